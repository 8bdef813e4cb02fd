import { Redis } from 'ioredis';

/**
 * Opens a short-lived connection to the Redis node on 127.0.0.1:`port`, asks `question`, and
 * closes the connection. Resolves `undefined` when the node does not take the connection (it is
 * down); an error from the question itself (say, the node dies mid-answer) rejects.
 */
export async function askNode<T>(port: number, question: (client: Redis) => Promise<T>): Promise<T | undefined> {
  // No retries and no offline queue: a dead node must fail fast, not be waited for.
  const client = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    connectTimeout: 1_000,
    commandTimeout: 1_000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // Failures reach us as the rejected connect or command; without a listener they would also be
  // reported as unhandled 'error' events.
  client.on('error', () => undefined);
  try {
    try {
      await client.connect();
    } catch {
      return undefined;
    }
    return await question(client);
  } finally {
    client.disconnect();
  }
}

/**
 * Opens a connection to the Redis node on 127.0.0.1:`port`, asks `question`, and closes the
 * connection: for a test that must talk to one node of a cluster directly. Unlike
 * {@link askNode}, a node that does not answer is an error, and the question has no time limit
 * of its own.
 */
export async function onNode<T>(port: number, question: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis({ host: '127.0.0.1', port });
  try {
    return await question(client);
  } finally {
    client.disconnect();
  }
}
