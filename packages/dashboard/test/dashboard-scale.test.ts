import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineKinds, Queue } from '@jobs/core';
import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { jobQueueSource, type DashboardDataSource } from '../src/index.ts';
import { startTestDashboard } from './dashboard-client.ts';

const kinds = defineKinds({ email: { schema: { type: 'object', properties: { to: { type: 'string' }, user: { type: 'object' } } } } });
const MILLION = 1_000_000;
const SCAN_LIMIT = 1_000;

// Pushes ids ARGV[1]..ARGV[2] (no hashes: cheap) onto the pending list, 5000 per LPUSH. Called
// for 50k ids at a time: one script busy for seconds could make a cluster fail its node over.
const PUSH_IDS = `
local first, last, chunk = tonumber(ARGV[1]), tonumber(ARGV[2]), 5000
for start = first, last, chunk do
  local ids = {}
  for i = start, math.min(last, start + chunk - 1) do ids[#ids + 1] = 'synthetic' .. i end
  redis.call('LPUSH', KEYS[1], unpack(ids))
end
return redis.call('LLEN', KEYS[1])`;
const PUSH_CALL = 50_000;

describe('the dashboard with a million jobs in a queue', () => {
  test('overview, pages, search by id, kind and payload field each read a bounded number of entries', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    // The oldest jobs are real (at the far end of pending), then a million ids pushed after them.
    const real = [];
    for (let i = 0; i < 5; i++) real.push(await queue.enqueue('email', { to: `user${i}@example.com`, user: { id: i } }));
    let length = 0;
    for (let first = 1; first <= MILLION; first += PUSH_CALL) length = Number(await redis.eval(PUSH_IDS, 1, `queue:{${queueName}}:pending`, first, first + PUSH_CALL - 1));
    expect(length).toBe(MILLION + 5);

    const plain = jobQueueSource([queue]);
    const reads = { lists: 0, entries: 0 };
    const source: DashboardDataSource = {
      ...plain,
      list: async (name, state, page) => {
        reads.lists++;
        reads.entries += page.limit;
        return plain.list(name, state, page);
      },
    };
    const d = await startTestDashboard(undefined, { source, scanLimit: SCAN_LIMIT });
    const timings: Record<string, number> = {};
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read loosely here
    const measure = async (name: string, path: string): Promise<{ status: number; body: any }> => {
      reads.lists = 0;
      reads.entries = 0;
      const started = performance.now();
      const answer = await d.call('GET', path);
      timings[name] = Math.round(performance.now() - started);
      expect(answer.status, name).toBe(200);
      return answer;
    };
    try {
      const overview = await measure('overview', 'api/overview');
      expect(overview.body.queues[0].stats.pendingDepth).toBe(MILLION + 5);
      expect(reads.entries).toBe(0);

      const first = await measure('first page of pending', `api/queues/${queueName}/jobs?state=pending&limit=25`);
      expect(first.body.jobs.map((job: { id: string }) => job.id)).toEqual(real);
      expect(first.body).toMatchObject({ depth: MILLION + 5, scanned: 25, nextOffset: 25, filtered: false });
      expect(reads.entries).toBe(25);

      const deep = await measure('page at offset 500000', `api/queues/${queueName}/jobs?state=pending&offset=500000&limit=100`);
      expect(deep.body).toMatchObject({ offset: 500_000, scanned: 100, nextOffset: 500_100 });
      expect(reads.entries).toBe(100);

      const byField = await measure('payload field search', `api/queues/${queueName}/jobs?state=pending&field=user.id&value=3`);
      expect(byField.body.jobs.map((job: { id: string }) => job.id)).toEqual([real[3]]);
      expect(byField.body).toMatchObject({ filtered: true, scanned: SCAN_LIMIT, nextOffset: SCAN_LIMIT, scanLimit: SCAN_LIMIT });
      expect(reads.entries).toBe(SCAN_LIMIT);

      const byKind = await measure('kind filter, a window deep in the list', `api/queues/${queueName}/jobs?state=pending&kind=email&offset=700000`);
      expect(byKind.body).toMatchObject({ jobs: [], filtered: true, scanned: SCAN_LIMIT, nextOffset: 700_000 + SCAN_LIMIT });
      expect(reads.entries).toBe(SCAN_LIMIT);

      const byId = await measure('search by id', `api/queues/${queueName}/jobs/${real[4]}`);
      expect(byId.body.job.payload).toEqual({ kind: 'email', to: 'user4@example.com', user: { id: 4 } });
      expect(reads.entries).toBe(0);

      const failed = await measure('failed list', `api/queues/${queueName}/jobs?state=failed`);
      expect(failed.body).toMatchObject({ jobs: [], depth: 0, nextOffset: null });
      mkdirSync(fileURLToPath(new URL('../test-results/', import.meta.url)), { recursive: true });
      writeFileSync(fileURLToPath(new URL('../test-results/dashboard-million.json', import.meta.url)), `${JSON.stringify({ jobs: MILLION + 5, milliseconds: timings }, null, 2)}\n`);
    } finally {
      await d.close();
    }
  }, 120_000);
});
