import { closeClient, duplicateClient, withRedisErrors, type RedisClient } from './redis-connection.ts';
import type { ChannelListener } from './schedules/schedule-store.ts';

/**
 * One pub/sub connection shared by what listens on it: a worker's delayed-job notices and the
 * schedule runners' wakes of all its partitions, or a reclaimer daemon's runners of all its
 * queues. A connection in subscriber mode serves any number of channels; one per listener and
 * queue would only cost the server connections.
 */
export class SharedSubscriber implements ChannelListener {
  readonly #connection: RedisClient;
  readonly #handlers = new Map<string, (message: string) => void>();
  readonly #onReady = new Set<() => void>();

  /** Opens a duplicate of `client` (same server or cluster, same options). */
  constructor(client: RedisClient) {
    this.#connection = duplicateClient(client);
    this.#connection.on('message', (channel: string, message: string) => this.#handlers.get(channel)?.(message));
    this.#connection.on('ready', () => {
      for (const onReady of this.#onReady) onReady();
    });
  }

  /**
   * Hears `channels` (one listener per channel). `onReady` runs each time the connection is
   * ready, after a reconnect too, when a message may have been missed. Resolves once subscribed.
   */
  async listen(channels: readonly string[], onMessage: (channel: string, message: string) => void, onReady?: () => void): Promise<void> {
    for (const channel of channels) this.#handlers.set(channel, (message) => onMessage(channel, message));
    if (onReady) this.#onReady.add(onReady);
    await withRedisErrors(() => this.#connection.subscribe(...channels));
  }

  /** Closes the connection: every listener stops hearing. */
  close(): Promise<void> {
    return closeClient(this.#connection);
  }
}
