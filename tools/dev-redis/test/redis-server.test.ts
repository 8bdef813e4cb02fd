import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, test } from 'vitest';
import { repoRoot, startRedisServer } from '../src/index.ts';

describe('startRedisServer', () => {
  test('starts a private server on loopback that answers, and removes its data folder on stop', async () => {
    const server = await startRedisServer({ name: 'unit' });
    expect(server.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
    expect(existsSync(server.dataDir)).toBe(true);
    const client = new Redis(server.url);
    expect(await client.ping()).toBe('PONG');
    expect(await client.config('GET', 'bind')).toEqual(['bind', '127.0.0.1']);
    expect(await client.config('GET', 'appendonly')).toEqual(['appendonly', 'no']);
    client.disconnect();
    await server.stop();
    expect(existsSync(server.dataDir)).toBe(false);
    expect(() => process.kill(server.pid, 0)).toThrow();
    await server.stop();
  });

  test('cpus runs the server on those CPUs only, and a bad CPU list is refused before anything starts', async () => {
    const server = await startRedisServer({ name: 'pinned', cpus: '0' });
    // taskset execs redis-server in place: the pid is the server's, and its affinity is the list.
    expect(readFileSync(`/proc/${server.pid}/status`, 'utf8')).toMatch(/^Cpus_allowed_list:\s*0$/m);
    const client = new Redis(server.url);
    expect(await client.ping()).toBe('PONG');
    client.disconnect();
    await server.stop();
    await expect(startRedisServer({ name: 'pinned', cpus: '0; rm -rf /' })).rejects.toThrow(/cpus: expected a CPU list/);
  });

  test('passes extra arguments through (persistence for a test that needs it)', async () => {
    const server = await startRedisServer({ name: 'aof', args: ['--appendonly', 'yes', '--appendfsync', 'always'] });
    const client = new Redis(server.url);
    expect(await client.config('GET', 'appendfsync')).toEqual(['appendfsync', 'always']);
    client.disconnect();
    await server.stop();
  });

  test('crash kills the server at once and keeps its data: a restart on the same port and folder has it back (AOF)', async () => {
    const first = await startRedisServer({ name: 'crash', keepData: true, args: ['--appendonly', 'yes', '--appendfsync', 'always'] });
    const client = new Redis(first.url, { maxRetriesPerRequest: 50 });
    await client.set('survives', 'yes');
    await first.crash();
    expect(() => process.kill(first.pid, 0)).toThrow();
    const second = await startRedisServer({ name: 'crash', port: first.port, dataDir: first.dataDir, args: ['--appendonly', 'yes', '--appendfsync', 'always'] });
    expect(await client.get('survives')).toBe('yes');
    client.disconnect();
    await second.stop();
    rmSync(first.dataDir, { recursive: true, force: true });
  });

  test('a port already in use on an explicit port is an error, not a hang', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    await expect(startRedisServer({ name: 'taken', port })).rejects.toThrow(/port \d+ is taken/);
    blocker.close();
    // The failed start leaves no data folder behind.
    expect(existsSync(join(repoRoot(), '.redis-data', `taken-${process.pid}-${port}`))).toBe(false);
  });

  test('a missing binary says how to install Redis', async () => {
    await expect(startRedisServer({ binary: '/nonexistent/redis-server' })).rejects.toThrow(/apt-get install redis-server/);
  });
});

describe('startRedisServer with tls', () => {
  test('serves TLS only, with a certificate clients can trust', async () => {
    const server = await startRedisServer({ name: 'tls', tls: true });
    expect(server.url).toMatch(/^rediss:\/\/127\.0\.0\.1:\d+$/);
    const client = new Redis(server.url, { tls: { ca: server.tlsCa } });
    expect(await client.ping()).toBe('PONG');
    client.disconnect();
    const plain = new Redis(server.url.replace('rediss:', 'redis:'), { maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true });
    plain.on('error', () => undefined);
    await expect(plain.connect().then(() => plain.ping())).rejects.toThrow();
    plain.disconnect();
    await server.stop();
  });
});
