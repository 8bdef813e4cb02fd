import { queueKeys } from '@jobs/core';
import type { TestRedis } from '@jobs/testing';
import { expect } from 'vitest';

/** Every field a job hash can hold (the recipe's and ours), and one no client writes. */
export const JOB_FIELDS = [
  'id', 'payload', 'status', 'kind', 'attempts', 'max_attempts', 'visibility_ms', 'enqueued_at_ms', 'claimed_at_ms', 'first_claimed_at_ms',
  'claim_token', 'first_claim_token', 'lease_expires_at_ms', 'run_at_ms', 'completed_at_ms', 'result', 'last_error', 'last_error_at_ms',
  'failed_at_ms', 'cancelled_at_ms', 'reclaimed_at_ms', 'released_at_ms', 'priority', 'expires_at_ms', 'progress', 'progress_at_ms',
  'progress_seq', 'traceparent', 'group', 'parent', 'children_left', 'log_ids', '<b>unknown</b>',
] as const;

/** Every field of a schedule's hash. */
export const SCHEDULE_FIELDS = [
  'id', 'kind', 'payload', 'cron', 'tz', 'every_ms', 'start_at_ms', 'end_at_ms', 'limit', 'runs', 'status', 'next_run_ms', 'last_run_ms',
  'last_job_id', 'created_at_ms', 'updated_at_ms', 'revision',
] as const;

/** Every field of a batch's hash (with its `success` callback), and one no client writes. */
export const BATCH_FIELDS = [
  'total', 'succeeded', 'failed', 'cancelled', 'sealed', 'created_at_ms', 'sealed_at_ms', 'finished_at_ms', 'cb_kind:success', 'cb_payload:success',
  'fired:success', '<b>unknown</b>',
] as const;

/** The script a hostile value would run if a page ever read it as HTML. */
export const SCRIPT = '<script>window.__pwned=1</script>';

/**
 * Values no client of ours writes, for any field: numbers no `Date` holds, not numbers, JSON of
 * the wrong shape, nesting too deep to write back as JSON, markup, control and bidi characters,
 * surrogate pairs (a cut may split one), huge text, bytes that are not UTF-8; null: the field is
 * missing.
 */
export const HOSTILE: readonly (string | Buffer | null)[] = [
  null, '9e99', '-9e99', '-1', '0', 'abc', String(Number.MAX_SAFE_INTEGER), '8640000000000001', '1e400', 'NaN', 'Infinity', '0x1F', '1.5',
  '', ' ', 'null', '{}', '[]', '"text"', '{"kind":{"x":1},"to":["<b>"]}', '{"__proto__":{"polluted":1},"constructor":1}',
  `${'['.repeat(100_000)}${']'.repeat(100_000)}`, SCRIPT, '<img src=x onerror="window.__pwned=1">', 'a\u0000b\u202ec\ufeff',
  '😀'.repeat(200), 'x'.repeat(300_000), Buffer.from([0xff, 0xfe, 0x80, 0x41]),
];

/** The states whose lists hold hostile jobs, with the status a real job there has. */
export const LISTED = { pending: 'pending', processing: 'processing', delayed: 'delayed', completed: 'completed', failed: 'failed' } as const;
export type ListedState = keyof typeof LISTED;

/** The id of the hostile job `index` in `state`'s list. */
export const hostileId = (state: ListedState, index: number): string => `h-${state}-${index}`;

/** Puts the ids of {@link HOSTILE}'s jobs into each state's list (the delayed set for delayed). */
export async function listHostileJobs(redis: TestRedis, queueName: string, nowMs: number): Promise<void> {
  const k = queueKeys(queueName);
  for (const state of Object.keys(LISTED) as ListedState[]) {
    const ids = HOSTILE.map((_, i) => hostileId(state, i));
    if (state === 'delayed') await redis.zadd(k.delayed, ...ids.flatMap((id) => [nowMs + 3_600_000, id]));
    else await redis.lpush(k[state], ...ids);
  }
}

/**
 * Rewrites every hostile job's hash as `template` (a real job's fields) with its own id and
 * status, then gives `field` the job's hostile value (`all`: every field of the template and
 * `field` get it).
 */
export async function writeHostileJobs(redis: TestRedis, queueName: string, template: Record<string, string>, field: string, all = false): Promise<void> {
  const k = queueKeys(queueName);
  const pipeline = redis.pipeline();
  for (const [state, status] of Object.entries(LISTED) as [ListedState, string][]) {
    HOSTILE.forEach((value, i) => {
      const id = hostileId(state, i);
      const names = all ? [...new Set([...Object.keys(template), ...JOB_FIELDS])] : [field];
      const base = { ...template, id, status };
      pipeline.del(k.job(id));
      const kept = Object.entries(base).filter(([name]) => !names.includes(name) || (all && name === 'id'));
      if (kept.length > 0) pipeline.hset(k.job(id), ...kept.flat());
      for (const name of names) {
        if (all && name === 'id') continue;
        if (value === null) pipeline.hdel(k.job(id), name);
        else pipeline.hset(k.job(id), name, value);
      }
    });
  }
  await pipeline.exec();
}

/** Rewrites the hostile schedules `hs-<i>` as `template` with `fields` set to the schedule's hostile value. */
export async function writeHostileSchedules(redis: TestRedis, queueName: string, template: Record<string, string>, fields: string | readonly string[]): Promise<void> {
  const k = queueKeys(queueName);
  const pipeline = redis.pipeline();
  HOSTILE.forEach((value, i) => {
    const id = `hs-${i}`;
    pipeline.zadd(k.schedules, 0, id);
    pipeline.del(k.schedule(id));
    pipeline.hset(k.schedule(id), ...Object.entries({ ...template, id }).flat());
    for (const field of typeof fields === 'string' ? [fields] : fields) {
      if (value === null) pipeline.hdel(k.schedule(id), field);
      else pipeline.hset(k.schedule(id), field, value);
    }
  });
  await pipeline.exec();
}

/** Rewrites the hostile batches `hb-<i>` (open, in the batches index) as `template` with `field` set to the batch's hostile value. */
export async function writeHostileBatches(redis: TestRedis, queueName: string, template: Record<string, string>, field: string): Promise<void> {
  const k = queueKeys(queueName);
  const pipeline = redis.pipeline();
  HOSTILE.forEach((value, i) => {
    const id = `hb-${i}`;
    pipeline.zadd(k.batches, '+inf', id);
    pipeline.del(k.batch(id));
    pipeline.hset(k.batch(id), ...Object.entries(template).flat());
    if (value === null) pipeline.hdel(k.batch(id), field);
    else pipeline.hset(k.batch(id), field, value);
  });
  await pipeline.exec();
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** What a page can draw without throwing: times a `Date` holds, texts of a bounded size. */
export function expectSane(body: unknown, where: string): void {
  const stack: [unknown, string][] = [[body, '']];
  while (stack.length > 0) {
    const [value, path] = stack.pop() as [unknown, string];
    if (typeof value === 'string') {
      expect(value.length, `${where}: ${path}`).toBeLessThan(100_200);
      // Text read from Redis is well-formed UTF-16: half a surrogate pair means a cut split one.
      expect(LONE_SURROGATE.test(value), `${where}: ${path} holds half a surrogate pair`).toBe(false);
    }
    if (typeof value === 'number' && /(AtMs|nowMs|AgeMs)$/.test(path)) {
      expect(() => new Date(value).toISOString(), `${where}: ${path} = ${value}`).not.toThrow();
    }
    if (typeof value === 'object' && value !== null) for (const [name, child] of Object.entries(value)) stack.push([child, `${path}.${name}`]);
  }
}
