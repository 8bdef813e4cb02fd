import type { RedisClient } from '@jobs/core';
import { closeClient, duplicateClient } from '@jobs/core/internal';

/**
 * The one pub/sub connection of a worker, shared by what listens on it: the delayed-job notices
 * of every partition and the schedule runners' wakes. A connection in subscriber mode can serve
 * any number of channels; one per listener and partition would only cost the server connections.
 */
export class SharedSubscriber {
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
    await this.#connection.subscribe(...channels);
  }

  /** Closes the connection: every listener stops hearing. */
  close(): Promise<void> {
    return closeClient(this.#connection);
  }
}
