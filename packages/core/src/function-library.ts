import { Cluster } from 'ioredis';
import { FUNCTION_LIBRARY } from './generated/library.ts';
import type { RedisClient } from './redis-connection.ts';

/**
 * Whether a client runs the scripts as Redis functions (FCALL of the generated library, whose
 * helpers are defined once, when it loads) or as scripts (EVALSHA, which defines them again on
 * every call). Functions first; a server or user that cannot have them (Redis before 7, an ACL
 * user without FCALL or FUNCTION LOAD, no memory to load it) gets scripts from then on.
 */
interface LibraryState {
  functions: boolean;
  /** The load in flight, shared by every call that found the library missing meanwhile. */
  loading: Promise<void> | undefined;
}

const states = new WeakMap<RedisClient, LibraryState>();

function stateOf(client: RedisClient): LibraryState {
  let state = states.get(client);
  if (!state) {
    state = { functions: true, loading: undefined };
    states.set(client, state);
  }
  return state;
}

/** True while `client` sends FCALL; false once it fell back to EVALSHA. */
export function usesFunctions(client: RedisClient): boolean {
  return stateOf(client).functions;
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

/** A FUNCTION LOAD the server answered with a refusal that will not pass (ERR, NOPERM, OOM), not a passing state (LOADING, BUSY, READONLY, a lost connection). */
function isLoadRefused(error: unknown): boolean {
  return error instanceof Error && /^(ERR|NOPERM|OOM)\b/.test(error.message);
}

/** FUNCTION LOAD of the library on one node; a library of that name already there is the same one. */
async function loadOn(node: RedisClient): Promise<void> {
  try {
    await node.call('FUNCTION', 'LOAD', FUNCTION_LIBRARY.source);
  } catch (error) {
    if (error instanceof Error && error.message.includes('already exists')) return;
    throw error;
  }
}

/**
 * After an FCALL failed with `error` (and so did not run): true when the call may be sent again,
 * as FCALL when the library was loaded now, else as EVALSHA (see {@link usesFunctions}). Loads the
 * library on the server, or on every master of a cluster. False for any other error. Rejects
 * with the load's own error when it failed for a reason that passes (see isLoadRefused).
 */
export async function recoverFunctions(client: RedisClient, error: unknown): Promise<boolean> {
  const state = stateOf(client);
  if (isFcallRefused(error)) {
    state.functions = false;
    return true;
  }
  if (!isFunctionMissing(error)) return false;
  state.loading ??= (async () => {
    try {
      await Promise.all(client instanceof Cluster ? client.nodes('master').map(loadOn) : [loadOn(client)]);
    } catch (loadError) {
      // Refused (no permission, no memory, an old server): the scripts run through EVALSHA from
      // now on. Anything else (the connection dropped, the server is still loading its data)
      // passes: the call fails as any call would then, and the next one tries the load again.
      if (!isLoadRefused(loadError)) throw loadError;
      state.functions = false;
    } finally {
      state.loading = undefined;
    }
  })();
  await state.loading;
  return true;
}
