import { inspect } from 'node:util';
import { startRedisServer, type RedisServer } from '@jobs/dev-redis';
import { isClusterRun } from '@jobs/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createProducer } from '../src/index.ts';
import { kinds } from './kinds.ts';

const RIGHT = 'right-pw-producer-51c2';
const WRONG = 'wrong-pw-producer-Hk2v';

/** What a log could write of `error`: inspect with hidden fields, JSON, and every enumerable field down its cause chain (what pino's serializer copies). */
function rendered(error: unknown): string {
  const parts = [inspect(error, { depth: Infinity, showHidden: true }), JSON.stringify(error)];
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 10; at = at.cause, depth += 1) {
    parts.push(JSON.stringify(Object.fromEntries(Object.getOwnPropertyNames(at).map((name) => [name, (at as unknown as Record<string, unknown>)[name]]))));
  }
  return parts.join('\n');
}

// Brings its own redis-server with a password: a cluster run would only repeat it.
describe.skipIf(isClusterRun())('the producer with a wrong Redis password', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer({ name: 'producer-secrets', args: ['--requirepass', RIGHT, '--user', 'app', 'on', `>${RIGHT}`, '~*', '&*', '+@all'] });
  });
  afterAll(async () => {
    await server?.stop();
  });

  test('every call rejects with JOBS_REDIS_AUTH, whose message, fields and causes never hold the password', async () => {
    const producer = createProducer({ redis: `redis://app:${WRONG}@127.0.0.1:${server.port}/0`, queue: 'secrets', kinds });
    try {
      const calls: Promise<unknown>[] = [
        producer.enqueue('email', { recipient: 'a@example.com' }),
        producer.enqueueMany([{ kind: 'email', payload: { recipient: 'b@example.com' } }]),
        producer.stats(),
      ];
      for (const call of calls) {
        const error = await call.catch((e: unknown) => e);
        expect(error).toMatchObject({ code: 'JOBS_REDIS_AUTH', message: expect.stringMatching(/^Redis refused the credentials: WRONGPASS/) });
        expect(rendered(error)).not.toContain(WRONG);
      }
    } finally {
      await producer.close();
    }
  });
});
