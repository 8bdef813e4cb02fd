import type { AddressInfo } from 'node:net';
import { DemoApp } from '../src/demo-app.ts';
import { createDemoServer } from '../src/server.ts';

/** The demo's app and server on a free loopback port, for API tests. */
export interface RunningDemo {
  readonly app: DemoApp;
  readonly base: string;
  /** fetch against the demo; a POST body object is sent as a form. */
  call(method: 'GET' | 'POST', path: string, body?: Record<string, string>, headers?: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

export async function startDemo(redisUrl: string, queue: string, visibilityMs = 1_000): Promise<RunningDemo> {
  const app = new DemoApp({ redisUrl, queue, visibilityMs });
  const server = createDemoServer(app, { hostNames: ['127.0.0.1', 'localhost'] });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    app,
    base,
    async call(method, path, body, headers = {}) {
      const response = await fetch(`${base}${path}`, { method, headers, ...(body !== undefined && { body: new URLSearchParams(body) }) });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
    },
  };
}
