import { Cluster, type Redis } from 'ioredis';
import { FUNCTION_LIBRARY } from './generated/library.ts';
import type { RedisClient } from './redis-connection.ts';
import { refreshSlots } from './cluster-redirects.ts';

/**
 * Whether a client runs the scripts as Redis functions (FCALL of the generated library, whose
 * helpers are defined once, when it loads) or as scripts (EVALSHA, whose content is its hash).
 * A library is code that runs inside every caller's FCALL with that caller's permissions, and
 * any user allowed FUNCTION LOAD may put one there under our name. So a client sends FCALL only
 * after it read the library back (`FUNCTION LIST ... WITHCODE`) on every node it talks to and
 * found it byte-for-byte ours. It loads the library itself only where it is missing and its user
 * may (never with REPLACE). Anything else (a different library under our name, a user that may
 * not read or load it, Redis before 7) runs the scripts through EVALSHA, and a different library
 * is reported as a process warning {@link FOREIGN_LIBRARY_WARNING}.
 */
interface LibraryState {
  /** `unchecked`: the next call reads the library first; `functions`: FCALL; `scripts`: EVALSHA. */
  mode: 'unchecked' | 'functions' | 'scripts';
  /** The check in flight, shared by every call that waits for it. */
  checking: Promise<void> | undefined;
  /** When a client on scripts looks again (a library an operator loaded since, a fixed one). */
  recheckAt: number;
  /** Set once a foreign library was reported, so that a rechecking client warns once. */
  warned: boolean;
  /** False once the user was refused FUNCTION LOAD: a recheck then only reads the library. */
  mayLoad: boolean;
}

/** The code of the process warning emitted when a library under our name is not ours. */
export const FOREIGN_LIBRARY_WARNING = 'JOBS_FOREIGN_FUNCTION_LIBRARY';

/** How long a client on EVALSHA waits before it reads the library again. */
const RECHECK_MS = 60_000;

const states = new WeakMap<RedisClient, LibraryState>();

function stateOf(client: RedisClient): LibraryState {
  let state = states.get(client);
  if (!state) {
    const created: LibraryState = { mode: 'unchecked', checking: undefined, recheckAt: 0, warned: false, mayLoad: true };
    state = created;
    states.set(client, state);
    // A new connection may reach a server that restarted or failed over (its library lost, or
    // replaced meanwhile): the next call reads it again. A cluster reports its nodes instead.
    const forget = (): void => {
      if (created.mode === 'functions') created.mode = 'unchecked';
      else if (created.mode === 'scripts') created.recheckAt = 0;
    };
    if (typeof client.on === 'function') {
      if (client instanceof Cluster) client.on('+node', forget);
      else client.on('close', forget);
    }
  }
  return state;
}

/** True while `client` sends FCALL; false while it reads the library or runs EVALSHA. */
export function usesFunctions(client: RedisClient): boolean {
  return stateOf(client).mode === 'functions';
}

/**
 * Undefined when `client` knows how it sends its scripts; else a promise that settles once it
 * read (and if need be loaded) the library. A client on EVALSHA starts a new check in the
 * background from time to time, without waiting for it.
 */
export function libraryChecked(client: RedisClient): Promise<void> | undefined {
  const state = stateOf(client);
  if (state.mode === 'functions') return undefined;
  if (state.mode === 'scripts') {
    if (Date.now() >= state.recheckAt && state.checking === undefined) {
      // A check that could not finish (Redis away) is not tried again on every call meanwhile.
      void checkLibrary(client).catch(() => {
        state.recheckAt = Date.now() + RECHECK_MS;
      });
    }
    return undefined;
  }
  return checkLibrary(client);
}

/** An FCALL answered so: the server does not hold the library (a restart, a failover, FUNCTION FLUSH, a first call). */
export function isFunctionMissing(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('ERR Function not found');
}

/** An FCALL the server or the user cannot send at all (Redis before 7, an ACL user without it). */
function isFcallRefused(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const message = error.message.toLowerCase();
  return (message.startsWith('err unknown command') || message.startsWith('noperm')) && message.includes('fcall');
}

/** A FUNCTION command the server answered with a refusal that will not pass (ERR, NOPERM, OOM), not a passing state (LOADING, BUSY, READONLY, a lost connection). */
function isRefused(error: unknown): boolean {
  return error instanceof Error && /^(ERR|NOPERM|OOM)\b/.test(error.message);
}

/** What a node holds under our library's name. */
export type LibraryOnNode = 'ours' | 'missing' | 'foreign';

/**
 * Reads the library of our name on `node` with `FUNCTION LIST LIBRARYNAME <name> WITHCODE` and
 * compares its code with ours, byte for byte. Rejects with the server's error (NOPERM for a
 * user without `function|list`).
 */
export async function libraryOn(node: Redis): Promise<LibraryOnNode> {
  const reply = (await node.call('FUNCTION', 'LIST', 'LIBRARYNAME', FUNCTION_LIBRARY.name, 'WITHCODE')) as unknown[];
  // The name is a pattern to Redis; ours has no glob characters, and only an exact match counts.
  for (const entry of Array.isArray(reply) ? reply : []) {
    const fields = fieldsOf(entry);
    if (fields.get('library_name') !== FUNCTION_LIBRARY.name) continue;
    return fields.get('library_code') === FUNCTION_LIBRARY.source ? 'ours' : 'foreign';
  }
  return 'missing';
}

/** A FUNCTION LIST entry (a flat list of names and values in RESP2, a map in RESP3) as a map. */
function fieldsOf(entry: unknown): Map<string, unknown> {
  const fields = new Map<string, unknown>();
  if (Array.isArray(entry)) {
    for (let i = 0; i + 1 < entry.length; i += 2) fields.set(String(entry[i]), bufferText(entry[i + 1]));
  } else if (entry instanceof Map) {
    for (const [name, value] of entry) fields.set(String(name), bufferText(value));
  }
  return fields;
}

function bufferText(value: unknown): unknown {
  return Buffer.isBuffer(value) ? value.toString('utf8') : value;
}

/**
 * Makes sure node `node` holds our library: read it; when missing, FUNCTION LOAD it (no REPLACE:
 * a library someone else put there first is read again, never overwritten).
 */
async function ensureOn(node: Redis, state: LibraryState): Promise<LibraryOnNode> {
  const found = await libraryOn(node);
  if (found !== 'missing' || !state.mayLoad) return found;
  try {
    await node.call('FUNCTION', 'LOAD', FUNCTION_LIBRARY.source);
    return 'ours';
  } catch (error) {
    if (error instanceof Error && error.message.includes('already exists')) return libraryOn(node);
    if (error instanceof Error && error.message.startsWith('NOPERM')) {
      state.mayLoad = false;
      return 'missing';
    }
    throw error;
  }
}

/** Times a cluster's slot map is read again when a node it names as a master has become a replica. */
const STALE_MASTER_REFRESHES = 3;

/** A node that is a replica now (a failover the client's slot map has not seen yet) refused a write. */
function isReadOnly(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('READONLY');
}

/**
 * `perNode` on the server, or on every master of a cluster. A node of a stale slot map that
 * answers READONLY (a replica since a failover) makes it read the slot map again and start over
 * on the masters it names then, so a failover does not fail the call; other errors reject.
 * `perNode` must be safe to run again on a node it already ran on.
 */
async function onEveryMaster<T>(client: RedisClient, perNode: (node: Redis) => Promise<T>): Promise<T[]> {
  if (!(client instanceof Cluster)) return [await perNode(client)];
  for (let refreshes = 0; ; refreshes += 1) {
    // A cluster client that has not read its slot map yet knows no node: a command waits for it.
    if (client.status !== 'ready' || client.nodes('master').length === 0) await client.call('CLUSTER', 'INFO');
    try {
      return await Promise.all(client.nodes('master').map(perNode));
    } catch (error) {
      if (!isReadOnly(error) || refreshes >= STALE_MASTER_REFRESHES) throw error;
      await refreshSlots(client);
    }
  }
}

/** Reads (and where missing and allowed, loads) the library on every node `client` talks to, and sets its mode. */
function checkLibrary(client: RedisClient): Promise<void> {
  const state = stateOf(client);
  state.checking ??= (async () => {
    try {
      const found = await onEveryMaster(client, (node) => ensureOn(node, state));
      // A cluster that names no master yet holds no library for us.
      if (found.length > 0 && found.every((what) => what === 'ours')) {
        state.mode = 'functions';
        return;
      }
      if (found.includes('foreign') && !state.warned) {
        state.warned = true;
        process.emitWarning(`Redis holds a function library named ${FUNCTION_LIBRARY.name} whose code is not @jobs' own: it is not used, the scripts run through EVALSHA (an operator can load ours with \`jobsctl functions load --replace\`)`, {
          code: FOREIGN_LIBRARY_WARNING,
        });
      }
      // Missing where the user may not load it, or not ours: look again later.
      toScripts(state, true);
    } catch (error) {
      // Refused (no permission to read it, no memory, an old server): the scripts run through
      // EVALSHA until a reconnect. Anything else (the connection dropped, the server is still
      // loading its data) passes: the call fails as any call would then, and the next one checks again.
      if (!isRefused(error)) throw error;
      toScripts(state, false);
    } finally {
      state.checking = undefined;
    }
  })();
  return state.checking;
}

/** EVALSHA from now on; `recheck`: read the library again after a while (else after a reconnect only). */
function toScripts(state: LibraryState, recheck: boolean): void {
  state.mode = 'scripts';
  state.recheckAt = recheck ? Date.now() + RECHECK_MS : Number.POSITIVE_INFINITY;
}

/**
 * After an FCALL failed with `error` (and so did not run): true when the call may be sent again,
 * as FCALL when the library was found (or loaded) and checked again now, else as EVALSHA (see
 * {@link usesFunctions}). False for any other error. Rejects with the check's own error when it
 * failed for a reason that passes (see isRefused).
 */
export async function recoverFunctions(client: RedisClient, error: unknown): Promise<boolean> {
  const state = stateOf(client);
  if (isFcallRefused(error)) {
    toScripts(state, false);
    return true;
  }
  if (!isFunctionMissing(error)) return false;
  if (state.mode === 'functions') state.mode = 'unchecked';
  await checkLibrary(client);
  return true;
}

/** What {@link loadLibrary} found and did on one node (`host:port`). */
export interface LibraryLoad {
  readonly node: string;
  /** What the node held before: ours, none, or a different library under our name. */
  readonly found: LibraryOnNode;
  /** True when this call loaded ours there. */
  readonly loaded: boolean;
}

/**
 * The operator's step (`jobsctl functions load`): loads our library on the server, or on every
 * master of a cluster, where it is missing. A different library under our name is replaced only
 * with `replace` (FUNCTION LOAD REPLACE), else left and reported. Needs a user with
 * `function|list` and `function|load`.
 */
export async function loadLibrary(client: RedisClient, options: { replace?: boolean } = {}): Promise<LibraryLoad[]> {
  // What each node reported the first time: a round started over after a stale slot map does not
  // report a node this call loaded as one that held ours already.
  const reported = new Map<string, LibraryLoad>();
  return onEveryMaster(client, async (node) => {
    const name = `${node.options.host ?? '127.0.0.1'}:${node.options.port ?? 6379}`;
    const earlier = reported.get(name);
    if (earlier) return earlier;
    const found = await libraryOn(node);
    let loaded = false;
    if (found === 'missing' || (found === 'foreign' && options.replace === true)) {
      await node.call('FUNCTION', 'LOAD', ...(found === 'foreign' ? ['REPLACE'] : []), FUNCTION_LIBRARY.source);
      // Read back: a library another user loaded between the two calls would fail the load.
      loaded = (await libraryOn(node)) === 'ours';
    }
    const load = { node: name, found, loaded };
    reported.set(name, load);
    return load;
  });
}

/** The name of the function library this release of @jobs loads (it carries a hash of its code). */
export const FUNCTION_LIBRARY_NAME = FUNCTION_LIBRARY.name;
