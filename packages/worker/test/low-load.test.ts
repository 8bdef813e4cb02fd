import { createProducer } from '@jobs/producer';
import { redisTest as test, waitFor } from '@jobs/testing';
import { Redis, type Command } from 'ioredis';
import { afterEach, describe, expect } from 'vitest';
import { createWorker } from '../src/index.ts';
import { kinds, okHandlers } from './kinds.ts';

// Every command any ioredis connection of this file sends passes here (on a cluster too: a
// Cluster sends through its nodes' connections), so a test can see the order they leave in.
const send = Redis.prototype.sendCommand;
let watch: ((command: Command) => void) | undefined;
Redis.prototype.sendCommand = function (this: Redis, command: Command, ...rest: unknown[]) {
  watch?.(command);
  return (send as (this: Redis, command: Command, ...rest: unknown[]) => unknown).call(this, command, ...rest);
} as typeof send;

afterEach(() => {
  watch = undefined;
});

/**
 * A completion call: complete-and-claim (its seven keys have the completed list sixth), or
 * complete when it claims nothing (its five keys have the completed list second).
 */
function isCompletion(command: Command, queueName: string): boolean {
  const args = command.args.map(String);
  const completed = `queue:{${queueName}}:completed`;
  return command.name === 'evalsha' && ((args[1] === '7' && args[7] === completed) || (args[1] === '5' && args[3] === completed));
}

describe('a worker at low load', () => {
  test('sends its next blocking claim only once the completion in flight has answered', async ({ redis, queueName }) => {
    const order: string[] = [];
    let outstanding = 0;
    watch = (command) => {
      if (command.name === 'blmove' && String(command.args[0]) === `queue:{${queueName}}:pending`) {
        order.push(`blmove sent with ${outstanding} completion(s) in flight`);
      } else if (isCompletion(command, queueName)) {
        outstanding += 1;
        order.push('completion sent');
        const answered = (): void => {
          outstanding -= 1;
        };
        command.promise.then(answered, answered);
      }
    };
    const producer = createProducer({ redis, queue: queueName, kinds });
    const worker = createWorker({ redis, queue: queueName, kinds, concurrency: 8, handlers: okHandlers });
    // The worker subscribes to its delayed-job notices before its first claim, which on a
    // cluster can take longer than the first enqueue: wait until it is blocked, waiting for work.
    await waitFor(() => order.length > 0, { timeoutMs: 5_000, what: "the worker's first blocking claim" });
    // One job at a time: each finds the worker blocked, waiting for work.
    for (let n = 0; n < 5; n += 1) {
      const id = await producer.enqueue('email', { recipient: 'a@example.com', n });
      expect(await producer.waitForResult(id, { timeoutMs: 5_000 })).toEqual({ sentTo: 'a@example.com' });
    }
    await worker.close();
    await producer.close();
    expect(order.filter((line) => line === 'completion sent')).toHaveLength(5);
    const blocking = order.filter((line) => line.startsWith('blmove'));
    expect(blocking.length).toBeGreaterThanOrEqual(5);
    // The wait is bounded (10 ms), so a completion that slow on a loaded machine lets a claim
    // through; before, every blocking claim after a job's start (five) went out with its
    // completion in flight.
    expect(blocking.filter((line) => line !== 'blmove sent with 0 completion(s) in flight').length).toBeLessThanOrEqual(2);
  });
});
