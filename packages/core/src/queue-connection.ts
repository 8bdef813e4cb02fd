import { Cluster } from 'ioredis';
import { checkAtStart, type QueueContext } from './commands/queue-context.ts';
import { InvalidArgumentError, JOBS_ERROR_CODES, JobsError } from './errors.ts';
import { followEventLog, type EventFollower, type FollowOptions } from './event-follower.ts';
import { assertWorkerId, queueKeys, type QueueKeys } from './keys.ts';
import type { Kinds } from './kinds.ts';
import { PARTITION_OPTION_KEYS, resolveQueueOptions, type PartitionOptions, type ResolvedQueueOptions } from './queue-options.ts';
import { assertOptionKeys } from './option-keys.ts';
import { closeClient, connectRedis, duplicateClient, toJobsError, type RedisClient } from './redis-connection.ts';
import { ScriptSender } from './script-sender.ts';
import { WorkWaiter } from './wait-for-work.ts';
import { assertWholeNumber } from './whole-number.ts';

/**
 * What a queue partition holds besides its verbs: its checked options, its connection (opened here, or
 * the caller's), the one send path for its scripts, its blocking waits for work, the event-log
 * followers opened through it, the start-up checks it runs once, and the closing of all these.
 */
export class QueueConnection<P> {
  readonly keys: QueueKeys;
  readonly kinds: Kinds<P>;
  readonly options: ResolvedQueueOptions;
  readonly client: RedisClient;
  /** Blocking waits for work, on a connection of their own. */
  readonly waiter: WorkWaiter;
  /** What every verb of the queue works with. */
  readonly ctx: QueueContext<P>;
  readonly #owned: boolean;
  readonly #scripts: ScriptSender;
  /** How long a blocking read waits: well within the command timeout, which would cut it off. */
  readonly #blockMs: number;
  /** Followers of the event log opened through this queue, closed with it. */
  readonly #followers = new Set<EventFollower>();
  #started: Promise<unknown> | undefined;
  #closed = false;
  /** See {@link QueueContext.onlyHeard}: turned to `'0'` at start for a user without PUBSUB NUMSUB. */
  #onlyHeard: '0' | '1';

  constructor(options: PartitionOptions<P>) {
    assertOptionKeys('options', options, PARTITION_OPTION_KEYS);
    this.keys = queueKeys(options.queue);
    if (options.kinds === undefined || typeof options.kinds.validate !== 'function') {
      throw new InvalidArgumentError('kinds', 'expected a registry made with defineKinds()');
    }
    this.kinds = options.kinds;
    this.options = resolveQueueOptions(options);
    const idSuffix = options.idSuffix ?? '';
    if (idSuffix !== '' && !/^[A-Za-z0-9._:-]{1,16}$/.test(idSuffix)) throw new InvalidArgumentError('idSuffix', 'expected 1 to 16 letters, digits, ".", "_", "-" or ":"');
    const workerId = options.workerId ?? '';
    assertWorkerId(workerId, true);
    const commandTimeoutMs = assertWholeNumber('commandTimeoutMs', options.commandTimeoutMs ?? 10_000, 100, 3_600_000);
    const { client, owned } = connectRedis(options.redis, options.connectionName ?? `jobs:${options.queue}`, { commandTimeout: commandTimeoutMs });
    this.client = client;
    this.#owned = owned;
    this.#blockMs = Math.min(5_000, Math.floor(commandTimeoutMs / 2));
    this.waiter = new WorkWaiter(() => duplicateClient(client), this.keys.pending, this.#blockMs);
    const ready = (): Promise<unknown> => this.ready();
    this.#onlyHeard = client instanceof Cluster ? '0' : '1';
    const onlyHeard = (): '0' | '1' => this.#onlyHeard;
    this.#scripts = new ScriptSender(client, this.options.durability, ready);
    this.ctx = Object.freeze({
      name: this.keys.name,
      client,
      keys: this.keys,
      kinds: this.kinds,
      options: this.options,
      scripts: this.#scripts,
      channel: this.options.events ? this.keys.events : '',
      get onlyHeard() {
        return onlyHeard();
      },
      idSuffix,
      logMaxLen: this.options.eventLog === false ? '0' : String(this.options.eventLog.maxLen),
      metrics: this.options.metricsHistory ? '1' : '0',
      workerId,
      traced: options.claimTraceparent === true ? '1' : '0',
      ready,
    });
  }

  /** True once {@link close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Runs the queue's start-up checks once (see {@link checkAtStart}); rejects once closed. */
  ready(): Promise<unknown> {
    if (this.#closed) return Promise.reject(new JobsError(JOBS_ERROR_CODES.CLOSED, `queue ${this.keys.name} is closed`));
    this.#started ??= checkAtStart(this.client, this.keys).then(() => this.#checkHeard()).catch((error: unknown) => {
      this.#started = undefined;
      throw error;
    });
    return this.#started;
  }

  /**
   * Whether the scripts may ask PUBSUB NUMSUB/NUMPAT before publishing: Redis answers those for
   * any channel name, so a tenant's ACL user is not given them (see the reclaimer's jobsAclRules),
   * and its scripts then always publish. One call at start; an ACL refusal turns it off.
   */
  async #checkHeard(): Promise<void> {
    if (this.#onlyHeard === '0' || this.ctx.channel === '') return;
    try {
      await Promise.all([this.client.call('PUBSUB', 'NUMSUB', this.keys.events), this.client.call('PUBSUB', 'NUMPAT')]);
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith('NOPERM'))) throw toJobsError(error);
      this.#onlyHeard = '0';
    }
  }

  /** A follower of the queue's event log (see `Queue.events`), closed with the queue. */
  async follow(options: FollowOptions): Promise<EventFollower> {
    await this.ready();
    const follower = await followEventLog(this.client, this.keys.log, options, {
      blockMs: this.#blockMs,
      retryMaxMs: 2_000,
      onClose: (closed) => this.#followers.delete(closed),
    });
    this.#followers.add(follower);
    return follower;
  }

  /** Stops waits in flight and closes the followers and the connections opened here (not the caller's). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#scripts.close();
    this.waiter.close();
    await Promise.all([...this.#followers].map((follower) => follower.close()));
    if (this.#owned) await closeClient(this.client);
  }
}
