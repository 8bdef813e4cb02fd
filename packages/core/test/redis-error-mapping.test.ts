import { inspect } from 'node:util';
import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { isJobsError } from '../src/index.ts';
import { closeClient, connectRedis, toJobsError } from '../src/internal.ts';

const SECRET = 'card-4111-1111-1111-1111';

/** An error as ioredis makes it from a Redis reply: its name, and the command hung on it. */
function replyError(message: string, name: string, args: string[]): Error {
  const error = new Error(message);
  error.name = 'ReplyError';
  Object.assign(error, { command: { name, args } });
  return error;
}

/** Everything a log could write of `error`: inspect with hidden fields, JSON, its cause chain. */
function rendered(error: unknown): string {
  const causes: unknown[] = [];
  for (let at: unknown = error; at instanceof Error && causes.length < 10; at = at.cause) causes.push(at);
  return [inspect(error, { depth: Infinity, showHidden: true }), JSON.stringify(error), ...causes.map((cause) => JSON.stringify(cause, Object.getOwnPropertyNames(cause)))].join('\n');
}

describe('Redis errors are typed, and never carry the arguments of the command they answer', () => {
  test('a reply without a code of its own becomes JOBS_REDIS_ERROR naming the command, with only its first word when the text could repeat an argument', () => {
    const error = toJobsError(replyError(`ERR unknown command '${SECRET}', with args beginning with: '${SECRET}'`, 'fcall', ['jobs_enqueue', '3', SECRET]));
    expect(error).toMatchObject({ code: 'JOBS_REDIS_ERROR', message: expect.stringMatching(/^Redis refused FCALL: ERR \(/) });
    expect(rendered(error)).not.toContain(SECRET);
    // A reply whose text is fixed keeps it.
    expect(toJobsError(replyError("ERR wrong number of arguments for 'hset' command", 'hset', [SECRET]))).toMatchObject({ message: "Redis refused HSET: ERR wrong number of arguments for 'hset' command" });
    expect(toJobsError(replyError(`ERR syntax error, near '${SECRET}'`, 'set', [SECRET]))).toMatchObject({ message: expect.not.stringContaining(SECRET) });
    expect(toJobsError(replyError('WRONGTYPE Operation against a key holding the wrong kind of value', 'hget', [SECRET, 'f']))).toMatchObject({
      code: 'JOBS_REDIS_ERROR',
      message: 'Redis refused HGET: WRONGTYPE Operation against a key holding the wrong kind of value',
    });
  });

  test('a reply that merely mentions a passing state (loading, tryagain) in its text is no outage, and keeps no argument', () => {
    const error = toJobsError(replyError(`ERR unknown command 'loading-${SECRET}', with args beginning with: 'tryagain ${SECRET}'`, 'fcall', ['jobs_enqueue', SECRET]));
    expect(error).toMatchObject({ code: 'JOBS_REDIS_ERROR' });
    expect(rendered(error)).not.toContain(SECRET);
    // A reply that starts with one is the outage it names.
    expect(toJobsError(replyError('LOADING Redis is loading the dataset in memory', 'fcall', [SECRET]))).toMatchObject({ code: 'JOBS_REDIS_UNAVAILABLE' });
  });

  test('auth, out-of-memory and connection failures keep their codes and drop the command (no raw error as cause)', () => {
    const auth = toJobsError(replyError('WRONGPASS invalid username-password pair or user is disabled.', 'hello', ['3', 'AUTH', 'app', SECRET]));
    expect(auth).toMatchObject({ code: 'JOBS_REDIS_AUTH' });
    const oom = toJobsError(replyError("OOM command not allowed when used memory > 'maxmemory'.", 'fcall', [SECRET]));
    expect(oom).toMatchObject({ code: 'JOBS_REDIS_OOM' });
    const aborted = Object.assign(new Error('Command aborted due to connection close'), { name: 'AbortError', command: { name: 'fcall', args: [SECRET] } });
    const down = toJobsError(aborted);
    expect(down).toMatchObject({ code: 'JOBS_REDIS_UNAVAILABLE' });
    for (const error of [auth, oom, down]) expect(rendered(error)).not.toContain(SECRET);
  });

  test('what is no Redis error (a bug, an error of ours) is left as it is', () => {
    const bug = new TypeError('x is not a function');
    expect(toJobsError(bug)).toBe(bug);
    expect(isJobsError(toJobsError(new Error('plain')))).toBe(false);
  });

  test("a connection @jobs opens cuts the arguments off its commands' errors before the caller sees them", async ({ redisUrl, queueName }) => {
    const { client } = connectRedis(redisUrl, 'mapping-test');
    try {
      // SET with an option Redis does not know: an error reply to a command that holds the secret.
      const error = await client.call('SET', `${queueName}:k`, SECRET, 'NOT-AN-OPTION').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as { command?: unknown }).command).toEqual({ name: 'SET' });
      expect(rendered(error)).not.toContain(SECRET);
      expect(toJobsError(error)).toMatchObject({ code: 'JOBS_REDIS_ERROR', message: expect.stringMatching(/^Redis refused SET: ERR/) });
    } finally {
      await closeClient(client);
    }
  });
});
