import { FUNCTION_LIBRARY_NAME } from '@jobs/core/internal';
import { onEveryNode, redisTest as test, urlWithUser } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { jobsAclRules, jobsOperatorAclRules } from '../src/index.ts';
import { BIN, runCli } from './cli.ts';

describe("jobsctl's operator steps", () => {
  test('functions load puts this release\'s library on the server (every master), and functions check finds it byte for byte', async ({ redisUrl }) => {
    const env = { REDIS_URL: redisUrl };
    const load = await runCli(BIN.jobsctl, ['functions', 'load'], env);
    expect(load.code).toBe(0);
    expect(load.stdout).toMatch(new RegExp(`(loaded ${FUNCTION_LIBRARY_NAME}|holds it)`));
    const check = await runCli(BIN.jobsctl, ['functions', 'check', '--json'], env);
    expect(check.code).toBe(0);
    const { library, nodes } = JSON.parse(check.stdout) as { library: string; nodes: { found: string }[] };
    expect(library).toBe(FUNCTION_LIBRARY_NAME);
    expect(nodes.length).toBeGreaterThan(0);
    expect(nodes.every((node) => node.found === 'ours')).toBe(true);
  });

  test("acl --operator prints the operator's line, and takes no queue", async () => {
    const line = await runCli(BIN.jobsctl, ['acl', 'jobs-operator', '--operator']);
    expect(line).toMatchObject({ code: 0, stdout: `ACL SETUSER jobs-operator on >PASSWORD ${jobsOperatorAclRules().join(' ')}\n` });
    const both = await runCli(BIN.jobsctl, ['acl', 'jobs-operator', '--operator', '-q', 'mail']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--operator covers every queue/);
  });

  test("a tenant's user can check the library but not list the queues; jobsctl says what to do instead", async ({ redis, redisUrl, queueName }) => {
    const user = `tenant-${queueName}`;
    await onEveryNode(redis, (node) => node.acl('SETUSER', user, 'reset', 'on', '>pw-tenant', ...jobsAclRules([queueName])));
    try {
      const env = { REDIS_URL: urlWithUser(redisUrl, user, 'pw-tenant') };
      // Reading the library back is a tenant's (it shows code, no keys); loading it is not (see tools/chaos/test/tenants.test.ts).
      const check = await runCli(BIN.jobsctl, ['functions', 'check'], env);
      expect(check.code).toBe(0);
      const queues = await runCli(BIN.jobsctl, ['queues'], env);
      expect(queues.code).toBe(1);
      expect(queues.stderr).toMatch(/name the queues/);
      expect(`${check.stderr}${queues.stderr}`).not.toContain('pw-tenant');
    } finally {
      await onEveryNode(redis, (node) => node.acl('DELUSER', user));
    }
  });
});
