import { Cluster, Command, type Pipeline, type Redis } from 'ioredis';
import { masterAt, redirectionOf, refreshSlots } from './cluster-redirects.ts';
import { isFunctionMissing, libraryChecked, recoverFunctions, usesFunctions } from './function-library.ts';
import type { DurabilityOptions } from './queue-options.ts';
import type { AnyLuaScript, LuaScript } from './lua-script.ts';
import { toJobsError, withRedisErrors, type RedisClient } from './redis-connection.ts';
import { coalesceWrites } from './write-coalescing.ts';

/** One script call: the script and the `argv` its generated builder made. */
export interface ScriptCall {
  readonly script: AnyLuaScript;
  readonly argv: string[];
}

/** A reply of NOSCRIPT: the server does not hold the script (a restart, a failover, SCRIPT FLUSH). */
function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

const UTF8 = { replyEncoding: 'utf8' as const };
/** Replies as Buffers, for the scripts whose replies hold bytes (the metrics history's read). */
const BYTES = { replyEncoding: null };
/** How a call's bulk replies are decoded. */
type ReplyEncoding = typeof UTF8 | typeof BYTES;

function sendCommand(client: RedisClient, command: Command): Promise<unknown> {
  void client.sendCommand(command);
  return command.promise as Promise<unknown>;
}

/** How a call is sent: FCALL of its function, EVALSHA, or EVAL with the source. */
type Stage = 'fcall' | 'evalsha' | 'eval';

/** The command of a call at `stage`: its argv with the function's name, the SHA1 or the source first. */
function commandOf({ script, argv }: ScriptCall, stage: Stage, encoding: ReplyEncoding = UTF8): Command {
  argv[0] = stage === 'fcall' ? script.fn : stage === 'evalsha' ? script.sha1 : script.source;
  return new Command(stage, argv, encoding);
}

/**
 * Sends one script call in one round trip: FCALL of its function in the generated library (see
 * function-library.ts) once the library on the server was read back and found to be ours,
 * loading it when the server lacks it and the user may; EVALSHA where functions cannot be had
 * or the library is not ours, and EVAL with the source after NOSCRIPT. A call refused so did not run, so
 * sending it again is safe. `coalesce`: see {@link coalesceWrites}. The command is built here
 * from the one argv array, not through a command ioredis registers per script (that path copies
 * the arguments and adds a closure and a promise per call). `encoding`: UTF-8 strings, or
 * Buffers for a script whose reply holds bytes.
 */
export function sendScript<R>(client: RedisClient, script: LuaScript<never, never, R>, argv: string[], coalesce = true, encoding: ReplyEncoding = UTF8): Promise<R> {
  // Before the first FCALL (and after a reconnect or a reload): the library is read back first.
  const checking = libraryChecked(client);
  if (checking) return checking.then(() => sendScript(client, script, argv, coalesce, encoding));
  if (coalesce) coalesceWrites(client);
  if (usesFunctions(client)) {
    argv[0] = script.fn;
    return sendCommand(client, new Command('fcall', argv, encoding)).catch(async (error: unknown) => {
      const call = { script, argv };
      if (!(await recoverFunctions(client, error))) throw error;
      if (!usesFunctions(client)) return sendEvalSha(client, call, encoding);
      // Missing again (a node that came after the load): this call goes as a script.
      return sendCommand(client, commandOf(call, 'fcall', encoding)).catch((again: unknown) => {
        if (isFunctionMissing(again)) return sendEvalSha(client, call, encoding);
        throw again;
      });
    }) as Promise<R>;
  }
  return sendEvalSha(client, { script, argv }, encoding) as Promise<R>;
}

function sendEvalSha(client: RedisClient, call: ScriptCall, encoding: ReplyEncoding = UTF8): Promise<unknown> {
  return sendCommand(client, commandOf(call, 'evalsha', encoding)).catch((error: unknown) => {
    if (!isNoScript(error)) throw error;
    return sendCommand(client, commandOf(call, 'eval', encoding));
  });
}

/** What {@link ScriptSender.runAll} sent back: each call's reply, and the replicas `WAIT` counted. */
export interface SentCalls {
  readonly replies: unknown[];
  /** From `WAIT` when one was asked for, else `undefined`. */
  readonly replicas: number | undefined;
}

/**
 * The one way a queue sends its scripts. {@link run} is the hot path: one call, FCALL (or EVALSHA,
 * see {@link sendScript}). {@link runAcknowledged} adds durable mode's `WAIT`, and {@link runAll} sends
 * several calls in one round trip: both go through one pipeline on the queue's connection (in a
 * cluster, the queue's node), which handles NOSCRIPT and the cluster's MOVED, ASK and TRYAGAIN.
 * Nothing is sent before `whenReady` has resolved once (the queue's start-up checks).
 */
export class ScriptSender {
  readonly #client: RedisClient;
  readonly #durability: Required<DurabilityOptions>;
  readonly #whenReady: () => Promise<unknown>;
  #open = false;
  #closed = false;

  constructor(client: RedisClient, durability: Required<DurabilityOptions>, whenReady: () => Promise<unknown>) {
    this.#client = client;
    this.#durability = durability;
    this.#whenReady = whenReady;
  }

  /** Stops the fast path: later calls wait for `whenReady` again (which a closed queue rejects). */
  close(): void {
    this.#open = false;
    this.#closed = true;
  }

  /**
   * Runs one script call. Once the queue is known ready it is sent at once, in this call (so a
   * batch sent mid-tick is on the wire while the tick goes on); `coalesce` holds the socket's
   * writes to the end of the tick.
   */
  run<R>(script: LuaScript<never, never, R>, argv: string[], coalesce = true): Promise<R> {
    if (this.#open) return withRedisErrors(() => sendScript(this.#client, script, argv, coalesce));
    return this.#ready().then(() => withRedisErrors(() => sendScript(this.#client, script, argv, coalesce)));
  }

  /** Runs one read whose reply holds bytes: its bulk strings come back as Buffers. */
  runBytes<R>(script: LuaScript<never, never, R>, argv: string[]): Promise<R> {
    return this.#ready().then(() => withRedisErrors(() => sendScript(this.#client, script, argv, false, BYTES)));
  }

  /**
   * Runs a write that acknowledges something (an enqueue, a completion, a failure). In durable
   * mode `WAIT` follows it in the same pipeline, on the same connection: returns the reply and how
   * many replicas hold the write. Otherwise the replica count is `undefined`.
   */
  async runAcknowledged<R>(script: LuaScript<never, never, R>, argv: string[], coalesce = true): Promise<{ reply: R; replicas: number | undefined }> {
    if (this.#durability.replicas === 0) return { reply: await this.run(script, argv, coalesce), replicas: undefined };
    const { replies, replicas } = await this.#pipeline([{ script, argv }], true);
    return { reply: replies[0] as R, replicas };
  }

  /** Runs several script calls of one queue in one round trip; their replies in order. */
  async runAll(calls: readonly ScriptCall[]): Promise<unknown[]> {
    return (await this.#pipeline(calls, false)).replies;
  }

  #ready(): Promise<unknown> {
    return this.#whenReady().then(() => {
      this.#open = !this.#closed;
    });
  }

  /**
   * Sends `calls` (and `WAIT` behind them when `wait`) as one pipeline. Plain FCALL or EVALSHA,
   * not a registered command: on NOSCRIPT ioredis would resend a registered script by itself,
   * outside the pipeline, after `WAIT` had answered. A call refused for want of its function or
   * script did not run: it is sent again once the library is loaded, or with its source (with
   * `WAIT` behind it again). A redirected pipeline did not run either: as ioredis does for
   * single commands, MOVED refreshes the slot map, ASK sends once to the node named, TRYAGAIN
   * waits, CLUSTERDOWN waits and refreshes the slot map, up to the client's maxRedirections
   * (ioredis follows redirections for a pipeline only when all its commands are read-only).
   */
  async #pipeline(calls: readonly ScriptCall[], wait: boolean): Promise<SentCalls> {
    await this.#ready();
    const checking = libraryChecked(this.#client);
    if (checking) await checking;
    const replies: unknown[] = new Array(calls.length);
    let todo = calls.map((_, index) => index);
    let stage: Stage = usesFunctions(this.#client) ? 'fcall' : 'evalsha';
    let replicas: number | undefined;
    let fcallRetries = 0;
    let asking: Redis | undefined;
    let redirects = 0;
    while (todo.length > 0) {
      try {
        // A Pipeline underneath: it takes built commands, so each call keeps its one argv array.
        const pipe = (asking ?? this.#client).pipeline() as unknown as Pipeline;
        if (asking) pipe.asking();
        for (const index of todo) {
          const call = calls[index] as ScriptCall;
          void pipe.sendCommand(commandOf(call, stage));
        }
        if (wait) pipe.wait(this.#durability.replicas, this.#durability.timeoutMs);
        const answers = ((await pipe.exec()) ?? []).slice(asking ? 1 : 0);
        const again: number[] = [];
        let refused: unknown;
        todo.forEach((index, i) => {
          const [error, reply] = answers[i] ?? [new Error('the pipeline returned no reply'), undefined];
          if (error && stage !== 'eval' && (stage === 'fcall' || isNoScript(error))) {
            again.push(index);
            refused ??= error;
          } else if (error) throw error;
          else replies[index] = reply;
        });
        // Refused calls did not run. FCALL: the library is loaded (or functions given up) and
        // they go again; an error that is no refusal is thrown. EVALSHA: EVAL after NOSCRIPT.
        if (stage === 'fcall' && refused !== undefined) {
          if (!(await recoverFunctions(this.#client, refused))) throw refused;
          stage = usesFunctions(this.#client) && fcallRetries++ === 0 ? 'fcall' : 'evalsha';
        } else if (refused !== undefined) {
          stage = 'eval';
        }
        if (wait) {
          // A WAIT that failed confirmed nothing: the write may be on the primary alone.
          const [waitError, acknowledged] = answers[todo.length] ?? [new Error('the pipeline returned no reply to WAIT'), undefined];
          if (waitError) throw waitError;
          replicas = Number(acknowledged);
        }
        todo = again;
        asking = undefined;
      } catch (error) {
        const client = this.#client;
        const redirection = client instanceof Cluster && error instanceof Error ? redirectionOf(error) : undefined;
        if (!(client instanceof Cluster) || !redirection || (redirects += 1) > (client.options.maxRedirections ?? 16)) throw toJobsError(error);
        asking = undefined;
        if (redirection.kind === 'moved') await refreshSlots(client);
        else if (redirection.kind === 'tryagain') await new Promise((resolve) => setTimeout(resolve, client.options.retryDelayOnTryAgain || 100));
        else if (redirection.kind === 'down') await new Promise((resolve) => setTimeout(resolve, client.options.retryDelayOnClusterDown || 100)).then(() => refreshSlots(client));
        else if (!(asking = await masterAt(client, redirection.address))) throw toJobsError(error);
      }
    }
    return { replies, replicas };
  }
}
