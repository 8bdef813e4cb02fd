import { onEveryNode, redisTest as test, urlWithUser } from '@jobs/testing';
import { describe, expect, vi } from 'vitest';
import { Queue } from '../src/index.ts';
import { kinds } from './fixtures.ts';

describe("a user without INFO (a tenant's)", () => {
  test("connects without ioredis's ready-check warning, and its queue works", async ({ redis, redisUrl, queueName }) => {
    const user = `no-info-${queueName}`;
    await onEveryNode(redis, (node) => node.acl('SETUSER', user, 'reset', 'on', '>pw-no-info', '~*', '&*', '+@all', '-info'));
    const warn = vi.spyOn(console, 'warn');
    const queue = new Queue({ redis: urlWithUser(redisUrl, user, 'pw-no-info'), queue: queueName, kinds });
    try {
      await queue.enqueue('email', { recipient: 'a@example.com' });
      expect((await queue.stats()).pendingDepth).toBe(1);
      expect(warn.mock.calls.filter((call) => String(call[0]).includes('ready check'))).toEqual([]);
    } finally {
      warn.mockRestore();
      await queue.close();
      await onEveryNode(redis, (node) => node.acl('DELUSER', user));
    }
  });
});
