import { queueKeys } from '@jobs/core';
import { claimTokenBase } from '@jobs/core/internal';
import { describe, expect, test } from 'vitest';
// Core's own generated wrappers and option defaults, read from source: not exported, and the
// floor's calls must lay out exactly what they lay out.
import { claimScript } from '../../../packages/core/src/generated/claim.ts';
import { completeScript } from '../../../packages/core/src/generated/complete.ts';
import { completeAndClaimScript } from '../../../packages/core/src/generated/complete-and-claim.ts';
import { CLAIM_DONE as CORE_CLAIM_DONE, CLAIM_STRIDE as CORE_CLAIM_STRIDE } from '../../../packages/core/src/generated/constants.ts';
import { failedHistoryCap, resolveQueueOptions } from '../../../packages/core/src/queue-options.ts';
import { benchWorkerPolicy, CLAIM_DONE, CLAIM_STRIDE, WorkerCalls } from '../src/floor/worker-calls.ts';

const QUEUE = 'floor-calls';
const keys = queueKeys(QUEUE);
// The bench adapter's worker options over core's defaults.
const o = resolveQueueOptions({ completedHistory: 1_000, completedTtlSeconds: 0 });
const policy = benchWorkerPolicy(keys);
const calls = new WorkerCalls(QUEUE, policy);
const completions = ['id1', 'tok1', 'null', 'id2', 'tok2', 'null'];

/** What core's context gives the scripts for this queue (queue-connection.ts), for a worker without tracing on one server. */
const ctx = { channel: o.events ? keys.events : '', onlyHeard: '1', logMaxLen: o.eventLog === false ? '0' : String(o.eventLog.maxLen), worker: policy.worker, traced: '0' } as const;

describe('the floor sends the worker calls as core lays them out', () => {
  test('claim', () => {
    const theirs = claimScript.argv(
      { pending: keys.pending, processing: keys.processing, leases: keys.leases, stats: keys.stats, delayed: keys.delayed, failed: keys.failed, admission: keys.admission, log: keys.log },
      { jobPrefix: keys.jobPrefix, visibilityMs: o.visibilityMs, maxAttempts: o.maxAttempts, max: 64, tokenBase: 'abcdef012345', failedTtlSeconds: o.failedTtlSeconds, failedHistoryCap: failedHistoryCap(o), channel: ctx.channel, prefix: keys.prefix, logMaxLen: ctx.logMaxLen, worker: ctx.worker, traced: ctx.traced },
    );
    const ours = calls.claim(64, 'abcdef012345');
    expect(ours.slice(0, 2)).toEqual(['FCALL', claimScript.fn]);
    expect(ours.slice(2)).toEqual(theirs.slice(1));
  });

  test('complete', () => {
    const theirs = completeScript.argv(
      { processing: keys.processing, completed: keys.completed, leases: keys.leases, stats: keys.stats, pending: keys.pending, delayed: keys.delayed, log: keys.log },
      { jobPrefix: keys.jobPrefix, ttlSeconds: o.completedTtlSeconds, historyCap: o.completedHistory, channel: ctx.channel, onlyHeard: ctx.onlyHeard, wakeChannel: keys.wake, prefix: keys.prefix, logMaxLen: ctx.logMaxLen, worker: ctx.worker, completions },
    );
    const ours = calls.complete(completions);
    expect(ours.slice(0, 2)).toEqual(['FCALL', completeScript.fn]);
    expect(ours.slice(2)).toEqual(theirs.slice(1));
  });

  test('complete_and_claim', () => {
    const theirs = completeAndClaimScript.argv(
      { pending: keys.pending, processing: keys.processing, leases: keys.leases, stats: keys.stats, delayed: keys.delayed, completed: keys.completed, failed: keys.failed, admission: keys.admission, log: keys.log },
      {
        jobPrefix: keys.jobPrefix,
        visibilityMs: o.visibilityMs,
        maxAttempts: o.maxAttempts,
        max: 33,
        tokenBase: '0123456789ab',
        ttlSeconds: o.completedTtlSeconds,
        historyCap: o.completedHistory,
        channel: ctx.channel,
        onlyHeard: ctx.onlyHeard,
        failedTtlSeconds: o.failedTtlSeconds,
        failedHistoryCap: failedHistoryCap(o),
        prefix: keys.prefix,
        wakeChannel: keys.wake,
        logMaxLen: ctx.logMaxLen,
        worker: ctx.worker,
        traced: ctx.traced,
        completions,
      },
    );
    const ours = calls.completeAndClaim(33, completions, '0123456789ab');
    expect(ours.slice(0, 2)).toEqual(['FCALL', completeAndClaimScript.fn]);
    expect(ours.slice(2)).toEqual(theirs.slice(1));
  });

  test("the reply constants are the scripts' own", () => {
    expect(CLAIM_DONE).toBe(CORE_CLAIM_DONE);
    expect(CLAIM_STRIDE).toBe(CORE_CLAIM_STRIDE);
  });

  test('a token base is 12 fresh hex digits per call', () => {
    const bases = Array.from({ length: 1_000 }, () => claimTokenBase());
    for (const base of bases) expect(base).toMatch(/^[0-9a-f]{12}$/);
    expect(new Set(bases).size).toBe(bases.length);
    expect(calls.claim(1)[15]).not.toBe(calls.claim(1)[15]);
  });
});
