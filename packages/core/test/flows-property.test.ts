import { openRedis, redisTest as test, seededRandom, waitFor, within } from '@jobs/testing';
import { describe, expect } from 'vitest';
import type { ChildFailurePolicy, ClaimedJob, FlowRequest, FlowResult, PayloadTypesOf } from '../src/index.ts';
import type { kinds} from './fixtures.ts';
import { openQueue } from './fixtures.ts';

/**
 * The flows property: over random trees with injected handler failures, worker deaths (a claim
 * left to expire and be swept), cancellations and late redrives of failed children, every
 * parent reaches completed, failed or cancelled, and does so exactly once (counted from the
 * events the scripts publish). Nothing here waits on time but lease expiry, through waitFor.
 */

type P = PayloadTypesOf<typeof kinds>;

interface Node {
  readonly id: string;
  readonly parent: string | undefined;
  readonly children: readonly string[];
  readonly policy: ChildFailurePolicy;
}

/** A random tree: depth up to 3 below the root, up to 20 children at the root, fewer deeper down. */
function randomTree(random: () => number, depth: number, inherited: ChildFailurePolicy): FlowRequest<P> {
  const width = depth === 0 ? 1 + Math.floor(random() * 20) : depth < 3 && random() < 0.4 ? 1 + Math.floor(random() * 4) : 0;
  const policy: ChildFailurePolicy | undefined = random() < 0.3 ? (random() < 0.5 ? 'ignore' : 'fail') : undefined;
  const own = policy ?? inherited;
  const children = Array.from({ length: width }, () => randomTree(random, depth + 1, own));
  return {
    kind: 'thumbnail',
    payload: { image: `d${depth}`, width: 1 + Math.floor(random() * 100) },
    options: { maxAttempts: 2, visibilityMs: 40, ...(policy !== undefined && { onChildFailure: policy }) },
    children,
  };
}

function collect(request: FlowRequest<P>, result: FlowResult, parent: string | undefined, inherited: ChildFailurePolicy, into: Map<string, Node>): void {
  const policy = request.options?.onChildFailure ?? inherited;
  into.set(result.id, { id: result.id, parent, children: result.children.map((child) => child.id), policy });
  (request.children ?? []).forEach((child, i) => collect(child, result.children[i] as FlowResult, result.id, policy, into));
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

describe('flows under faults', () => {
  test('30 random trees (seeded) with failures, worker deaths, cancellations and late redrives: every parent ends completed, failed or cancelled, exactly once', async ({ redis, redisUrl, queueName }) => {
    const queue = openQueue(redis, queueName, { completedHistory: 100_000, failedHistory: 100_000 });
    const listener = openRedis(redisUrl);
    const terminal = new Map<string, string[]>();
    await listener.subscribe(queue.keys.events);
    listener.on('message', (_channel: string, message: string) => {
      const { id, status } = JSON.parse(message) as { id: string; status: string };
      if (TERMINAL.has(status)) terminal.set(id, [...(terminal.get(id) ?? []), status]);
    });

    const random = seededRandom(20_20);
    const nodes = new Map<string, Node>();
    for (let tree = 0; tree < 30; tree += 1) {
      const request = randomTree(random, 0, 'fail');
      collect(request, await queue.enqueueFlow(request), undefined, 'fail', nodes);
    }
    const all = [...nodes.values()];
    const parents = all.filter((node) => node.children.length > 0);
    const leaves = all.filter((node) => node.children.length === 0 && node.parent !== undefined);
    expect(parents.length).toBeGreaterThanOrEqual(30);

    /** Jobs whose handler failed at least once (their last attempt may have dead-lettered them). */
    const failedByHandler = new Set<string>();
    const redriven = new Set<string>();
    let rounds = 0;
    const drain = async (): Promise<void> => {
      for (;;) {
        rounds += 1;
        expect(rounds, 'the flows settle within a bounded number of rounds').toBeLessThan(2_000);
        await queue.reclaimStuck();
        const claimed: ClaimedJob[] = await queue.claim({ max: 16 });
        for (const job of claimed) {
          const dice = random();
          if (dice < 0.62) await queue.complete(job, { id: job.id });
          else if (dice < 0.82) {
            failedByHandler.add(job.id);
            await queue.fail(job, dice < 0.75 ? 'transient' : 'broken', { permanent: dice >= 0.75, retryDelayMs: 0 });
          }
          // else: the worker dies holding it; its lease runs out and a sweep takes it back.
        }
        if (random() < 0.15) {
          const victim = all[Math.floor(random() * all.length)] as Node;
          await queue.cancel(victim.id);
        }
        if (random() < 0.2) {
          // A late redrive: an operator retries a child that failed for good, maybe after its parent settled.
          const failed = leaves.filter((leaf) => !redriven.has(leaf.id));
          const pick = failed[Math.floor(random() * failed.length)];
          if (pick && (await queue.getJob(pick.id))?.status === 'failed') {
            redriven.add(pick.id);
            await queue.retry([pick.id]);
          }
        }
        if (claimed.length > 0) continue;
        const stats = await queue.stats();
        if (stats.pendingDepth + stats.delayedDepth > 0) continue;
        if (stats.processingDepth > 0) {
          // Only abandoned claims are left: wait for their leases to run out, then sweep again.
          await waitFor(async () => {
            const swept = await queue.reclaimStuck();
            return swept.reclaimed.length + swept.deadLettered.length > 0 || (await queue.stats()).processingDepth === 0;
          }, { what: 'abandoned leases swept' });
          continue;
        }
        break;
      }
    };
    await drain();
    // Late redrives: once all is quiet, every child still failed for good is retried, long after
    // its parent settled; the children run again, and no parent may settle a second time.
    const late: string[] = [];
    for (const leaf of leaves) if ((await queue.getJob(leaf.id))?.status === 'failed') late.push(leaf.id);
    expect(late.length, 'children left failed for a late redrive').toBeGreaterThan(0);
    expect(await queue.retry(late)).toEqual(late.map(() => true));
    await drain();

    // Nothing is left to run: no parent may still be waiting.
    const states = new Map<string, string>();
    for (const node of all) states.set(node.id, String((await queue.getJob(node.id))?.status));
    for (const parent of parents) expect(TERMINAL.has(states.get(parent.id) as string), `parent ${parent.id} is ${states.get(parent.id)}`).toBe(true);

    await waitFor(() => parents.every((parent) => terminal.has(parent.id)), { what: 'a terminal event for every parent' });
    for (const parent of parents) {
      const events = terminal.get(parent.id) as string[];
      expect(events, `terminal events of parent ${parent.id}`).toEqual([states.get(parent.id)]);
      const children = await queue.children(parent.id);
      const settled = parent.children.map((child) => (children[child] as { status: string }).status);
      const job = await queue.getJob(parent.id);
      if (states.get(parent.id) === 'completed') {
        // It ran: every child had settled, and under 'fail' every one had completed.
        expect(settled.includes('waiting'), `parent ${parent.id} ran with a child waiting`).toBe(false);
        if (parent.policy === 'fail') expect(settled.every((status) => status === 'completed')).toBe(true);
      } else if (states.get(parent.id) === 'failed' && !failedByHandler.has(parent.id)) {
        // Failed without its own handler failing: a child failed for good under 'fail', or its last lease ran out.
        const cause = job?.lastError ?? '';
        if (cause.startsWith('JOBS_CHILD_FAILED')) expect(parent.policy).toBe('fail');
        else expect(cause).toContain('lease expired');
      }
    }
    const outcomes = parents.map((parent) => states.get(parent.id));
    // The run exercised each ending (the seed is fixed, so this holds run after run).
    expect(new Set(outcomes)).toEqual(new Set(['completed', 'failed', 'cancelled']));
    const stats = await queue.stats();
    expect(stats.reclaimedTotal, 'worker deaths were swept').toBeGreaterThan(0);
    expect(stats.redrivenTotal, 'late redrives happened').toBeGreaterThan(0);
    expect(stats.cancelledTotal, 'cancellations happened').toBeGreaterThan(0);
    await within(listener.quit(), 5_000, () => 'listener quit');
    await queue.close();
  }, 120_000);
});
