import { createServer, request, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { defineKinds, Queue } from '@jobs/core';
import { redisTest as test, within } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createDashboard } from '../src/index.ts';
import { TOKENS } from './dashboard-client.ts';

const kinds = defineKinds({});

/** An IPv4 address of this machine that is not loopback, if it has one. */
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((entry) => entry?.family === 'IPv4' && !entry.internal)?.address;

/** Serves `handler` on every address (as an app mounting the dashboard may) until `run` ends. */
async function servingEverywhere(handler: RequestListener, run: (port: number) => Promise<void>): Promise<void> {
  const server = await new Promise<Server>((resolve, reject) => {
    const created = createServer(handler);
    created.once('error', reject);
    created.listen(0, '0.0.0.0', () => resolve(created));
  });
  try {
    await run((server.address() as AddressInfo).port);
  } finally {
    server.closeAllConnections();
    await within(new Promise<void>((resolve) => server.close(() => resolve())), 10_000, () => 'closing the server');
  }
}

/** A GET of `url` with a `Host` header of the caller's choosing (fetch sends its own), resolving with the status and body. */
function getWithHost(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { headers: { host } }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

describe('a dashboard mounted in a server of yours', () => {
  // Without another address than loopback nothing can reach the server from outside to test.
  test.skipIf(outsideAddress === undefined)('without credentials it answers only peers on this machine, whatever address the server binds', async ({ redis, queueName }) => {
    const dashboard = createDashboard({ queues: [new Queue({ redis, queue: queueName, kinds })], sampleIntervalMs: 0 });
    await servingEverywhere(dashboard.handler, async (port) => {
      // A loopback Host name, as any client may send: the peer's address decides.
      const outside = await getWithHost(`http://${outsideAddress}:${port}/api/overview`, `127.0.0.1:${port}`);
      expect(outside.status).toBe(403);
      expect((JSON.parse(outside.body) as { error: { code: string } }).error.code).toBe('loopback_only');
      expect((await fetch(`http://127.0.0.1:${port}/api/overview`)).status).toBe(200);
    });
  });

  test.skipIf(outsideAddress === undefined)('with credentials it answers other machines, behind its login', async ({ redis, queueName }) => {
    const dashboard = createDashboard({ queues: [new Queue({ redis, queue: queueName, kinds })], credentials: { operatorToken: TOKENS.operator }, sampleIntervalMs: 0 });
    await servingEverywhere(dashboard.handler, async (port) => {
      const page = await fetch(`http://${outsideAddress}:${port}/`, { redirect: 'manual' });
      expect(page.status).toBe(303);
      expect(page.headers.get('location')).toBe('/login');
      expect((await fetch(`http://${outsideAddress}:${port}/api/overview`)).status).toBe(401);
    });
  });
});
