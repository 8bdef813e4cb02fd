import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { within } from '@jobs/testing';
import { Cluster } from 'ioredis';
import { afterEach, describe, expect, test } from 'vitest';
import { statsScript } from '../src/generated/stats.ts';
import { WorkWaiter } from '../src/wait-for-work.ts';

const argv = statsScript.argv(
  { pending: 'a', processing: 'b', delayed: 'c', completed: 'd', failed: 'e', stats: 'f', admission: 'g' },
  { jobPrefix: 'queue:{w}:job:', prefix: 'queue:{w}:' },
);

const silent: { server: Server; sockets: Set<Socket> }[] = [];

/**
 * A cluster client still connecting: its seed accepts the connection and never answers (a server
 * stalled mid-handshake), so the client holds its commands back, and a disconnect neither sends
 * nor rejects them.
 */
async function connectingCluster(): Promise<Cluster> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  silent.push({ server, sockets });
  const { port } = server.address() as AddressInfo;
  return new Cluster([{ host: '127.0.0.1', port }], { lazyConnect: false });
}

afterEach(async () => {
  for (const { server, sockets } of silent.splice(0)) {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe('WorkWaiter', () => {
  test('an aborted wait ends at once even when its cluster client was still connecting (its commands held back, never answered)', async () => {
    const client = await connectingCluster();
    const waiter = new WorkWaiter(() => client, 'queue:{w}:pending');
    const stop = new AbortController();
    const waiting = waiter.waitThenRun(60_000, statsScript, argv, stop.signal);
    stop.abort();
    await expect(within(waiting, 3_000, () => 'the aborted wait')).resolves.toBeNull();
    client.disconnect();
  });

  test('a close ends a wait in flight the same way', async () => {
    const client = await connectingCluster();
    const waiter = new WorkWaiter(() => client, 'queue:{w}:pending');
    const waiting = waiter.waitThenRun(60_000, statsScript, argv);
    waiter.close();
    await expect(within(waiting, 3_000, () => 'the closed wait')).resolves.toBeNull();
    client.disconnect();
  });
});
