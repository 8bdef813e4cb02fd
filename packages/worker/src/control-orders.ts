import type { Partition } from '@jobs/core';
import { parseControlOrder, type ControlOrder, type SharedSubscriber } from '@jobs/core/internal';

/**
 * Hears the orders published on the control channel of each of the worker's queues (one per
 * partition), on the worker's pub/sub connection, and hands each one it knows to `onOrder`.
 * Messages lost (a reconnect) are made up for by what each order only hurries (see
 * `ControlOrder`).
 */
export class ControlOrders {
  #closed = false;
  /** Settles once the channels are subscribed (or that failed, which is reported). */
  readonly ready: Promise<void>;

  /** Subscribes at once, on `subscriber` (the worker's, which the worker closes). */
  constructor(subscriber: SharedSubscriber, queues: readonly Pick<Partition<unknown>, 'keys'>[], onOrder: (order: ControlOrder) => void, onError: (error: unknown, message: string) => void) {
    const channels = queues.map((queue) => queue.keys.control);
    this.ready = subscriber
      .listen(channels, (_channel, message) => {
        if (this.#closed) return;
        const order = parseControlOrder(message);
        if (order !== undefined) onOrder(order);
      })
      .then(
        () => undefined,
        (error: unknown) => {
          if (!this.#closed) onError(error, 'could not subscribe to the control channel: a running job cancelled is stopped at its next lease renewal, and a quiet, resume or scale order obeyed at the next heartbeat, instead');
        },
      );
  }

  /** Stops hearing orders (the connection is the worker's to close). */
  async close(): Promise<void> {
    this.#closed = true;
  }
}
