import { findFreePort } from '@jobs/dev-redis';
import { within } from '@jobs/testing';
import { describe, expect, test } from 'vitest';
import { Cluster } from 'ioredis';
import { Queue, defineKinds, isJobsError } from '../src/index.ts';
import { connectRedis, describeRedis, parseClusterUrl } from '../src/redis-connection.ts';

describe('cluster connection input', () => {
  test('redis+cluster:// lists seeds, credentials and TLS', () => {
    expect(parseClusterUrl('redis+cluster://10.0.0.1:7000,10.0.0.2:7001')).toEqual({
      cluster: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
      ],
      redisOptions: {},
    });
    expect(parseClusterUrl('rediss+cluster://app:p%40ss@cache:6380/')).toEqual({
      cluster: [{ host: 'cache', port: 6380 }],
      redisOptions: { username: 'app', password: 'p@ss', tls: {} },
    });
    expect(parseClusterUrl('redis+cluster://:secret@[::1]:7000')).toEqual({ cluster: [{ host: '::1', port: 7000 }], redisOptions: { password: 'secret' } });
    expect(parseClusterUrl('redis://127.0.0.1:6379')).toBeUndefined();
  });

  test('a malformed cluster URL is a typed error naming the field', () => {
    for (const bad of ['redis+cluster://', 'redis+cluster://host', 'redis+cluster://host:0', 'redis+cluster://host:99999', 'redis+cluster://a:1/2']) {
      expect(() => parseClusterUrl(bad), bad).toThrow(expect.objectContaining({ code: 'JOBS_INVALID_ARGUMENT', field: 'redis' }));
    }
    expect(() => connectRedis({ cluster: [] }, 'x')).toThrow(expect.objectContaining({ code: 'JOBS_INVALID_ARGUMENT', field: 'redis.cluster' }));
  });

  test('a cluster URL or seed list opens a Cluster client; descriptions never show the password', async () => {
    const { client, owned } = connectRedis('redis+cluster://ops:s3cret@127.0.0.1:1,127.0.0.1:2', 'x', { lazyConnect: true });
    expect(client).toBeInstanceOf(Cluster);
    expect(owned).toBe(true);
    client.disconnect();
    expect(describeRedis('redis+cluster://ops:s3cret@127.0.0.1:7000,127.0.0.1:7001')).toBe('redis+cluster://ops:***@127.0.0.1:7000,127.0.0.1:7001');
    expect(describeRedis({ cluster: [{ host: 'a', port: 1 }], redisOptions: { password: 'pw', tls: {} } })).toBe('rediss+cluster://:***@a:1');
  });

  test('a cluster that stays away fails a call after commandTimeoutMs with JOBS_REDIS_UNAVAILABLE, not a hang', async () => {
    // Nothing listens on the only seed, so the client never gets a slot map or a node.
    const port = await findFreePort();
    const queue = new Queue({ redis: `redis+cluster://127.0.0.1:${port}`, queue: 'away', kinds: defineKinds({}), commandTimeoutMs: 300 });
    // A hang would outlast this deadline by far; the call's own timeout is 300 ms.
    const error = await within(queue.stats().catch((e: unknown) => e), 15_000, () => 'the call to a cluster that stays away did not fail');
    expect(isJobsError(error, 'JOBS_REDIS_UNAVAILABLE')).toBe(true);
    await queue.close();
  });
});
