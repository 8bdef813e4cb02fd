import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Command, type ChainableCommander, type Cluster, type Redis } from 'ioredis';
import { coalesceWrites } from './write-coalescing.ts';

/**
 * The Lua scripts, one `.lua` file each under `packages/core/scripts/`, read once at start-up.
 * A line `--@include lib/x.lua` is replaced by that file (once per script), so shared routines
 * are written once. {@link runScript} sends EVALSHA, and EVAL after NOSCRIPT (a restart, a
 * failover, SCRIPT FLUSH). For the few pipelines, each script is also registered on the client
 * with ioredis `defineCommand` under a content-addressed name ({@link registerScripts}).
 */

/** The scripts, by file name. */
export const SCRIPT_NAMES = [
  'enqueue', 'claim', 'complete', 'complete-and-claim', 'fail', 'release', 'reclaim', 'extend', 'promote', 'cancel', 'retry', 'tidy', 'stats', 'peek',
  'schedule-upsert', 'schedule-fire', 'schedule-due', 'schedule-list', 'schedule-pause', 'schedule-resume', 'schedule-remove',
  'pause', 'progress', 'set-limits', 'rate-limited',
] as const;

/** A script's name. */
export type ScriptName = (typeof SCRIPT_NAMES)[number];

/** A loaded script. */
export interface LuaScript {
  readonly name: ScriptName;
  /** The source with includes expanded: what Redis runs. */
  readonly source: string;
  readonly sha1: string;
  /** The ioredis command name it is registered under. */
  readonly command: string;
}

const SCRIPTS_DIR = new URL('../scripts/', import.meta.url);
const INCLUDE = /^--@include (\S+)\s*$/;

/** Reads `file` (relative to the scripts folder) and expands its includes. */
export function readLua(file: string, included = new Set<string>()): string {
  const text = readFileSync(new URL(file, SCRIPTS_DIR), 'utf8');
  return text
    .split('\n')
    .map((line) => {
      const include = INCLUDE.exec(line)?.[1];
      if (include === undefined) return line;
      if (included.has(include)) return `-- (${include} is already included)`;
      included.add(include);
      return readLua(include, included).trimEnd();
    })
    .join('\n');
}

function load(name: ScriptName): LuaScript {
  const source = readLua(`${name}.lua`);
  const sha1 = createHash('sha1').update(source).digest('hex');
  return Object.freeze({ name, source, sha1, command: `jobs_${name.replaceAll('-', '_')}_${sha1.slice(0, 12)}` });
}

/** Every script, loaded. */
export const SCRIPTS: Readonly<Record<ScriptName, LuaScript>> = Object.freeze(
  Object.fromEntries(SCRIPT_NAMES.map((name) => [name, load(name)])) as Record<ScriptName, LuaScript>,
);

/** A Redis or Cluster client. */
export type RedisClient = Redis | Cluster;

type ScriptCommand = (numberOfKeys: number, ...keysAndArgs: (string | number)[]) => Promise<unknown>;

const registered = new WeakMap<RedisClient, Set<string>>();

function ensureRegistered(client: RedisClient, script: LuaScript): void {
  let names = registered.get(client);
  if (!names) {
    names = new Set();
    registered.set(client, names);
  }
  if (names.has(script.command)) return;
  client.defineCommand(script.command, { lua: script.source });
  names.add(script.command);
}

/** Registers every script on `client`; call before making a pipeline from it. */
export function registerScripts(client: RedisClient): void {
  for (const name of SCRIPT_NAMES) ensureRegistered(client, SCRIPTS[name]);
}

/** A reply of NOSCRIPT: the server does not hold the script (a restart, a failover, SCRIPT FLUSH). */
function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

/**
 * Runs `script` with `keys` and `args` in one round trip: EVALSHA, and EVAL with the source
 * after NOSCRIPT (the script did not run then, so sending it again is safe). `coalesce`: see
 * {@link coalesceWrites}. The command is built here, with its arguments in one array, rather
 * than through the command ioredis registers per script: that path copies the arguments three
 * times and adds a closure and a promise per call, which showed in the worker's GC pauses.
 */
export function runScript(client: RedisClient, script: LuaScript, keys: readonly string[], args: readonly (string | number)[], coalesce = true): Promise<unknown> {
  if (coalesce) coalesceWrites(client);
  const argv: string[] = new Array(2 + keys.length + args.length);
  argv[0] = script.sha1;
  argv[1] = String(keys.length);
  for (let i = 0; i < keys.length; i += 1) argv[2 + i] = keys[i] as string;
  for (let i = 0; i < args.length; i += 1) argv[2 + keys.length + i] = String(args[i]);
  return send(client, new Command('evalsha', argv, UTF8)).catch((error: unknown) => {
    if (!isNoScript(error)) throw error;
    const withSource = argv.slice();
    withSource[0] = script.source;
    return send(client, new Command('eval', withSource, UTF8));
  });
}

function send(client: RedisClient, command: Command): Promise<unknown> {
  void client.sendCommand(command);
  return command.promise as Promise<unknown>;
}

const UTF8 = { replyEncoding: 'utf8' as const };

/** Queues `script` on a pipeline made from a client that {@link registerScripts} has seen. */
export function pipeScript(pipeline: ChainableCommander, script: LuaScript, keys: readonly string[], args: readonly (string | number)[]): void {
  const command = (pipeline as unknown as Record<string, ScriptCommand>)[script.command];
  if (typeof command !== 'function') throw new Error(`script ${script.name} is not registered on the client this pipeline came from`);
  void command.call(pipeline, keys.length, ...keys, ...args);
}
