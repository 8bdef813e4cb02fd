import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { redisTest as test, waitFor } from '@jobs/testing';
import { describe, expect } from 'vitest';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

describe('the demo and Redis passwords', () => {
  test('the password in REDIS_URL appears nowhere: not in the banner, the page or the API', async ({ redis, redisUrl, queueName }) => {
    const user = `demo-${queueName}`;
    const password = `s3cret-${queueName}`;
    await redis.acl('SETUSER', user, 'on', `>${password}`, '~*', '&*', '+@all');
    const url = new URL(redisUrl);
    url.username = user;
    url.password = password;
    const child = spawn(process.execPath, [MAIN, '--port', '0', '--queue-name', queueName], { env: { ...process.env, REDIS_URL: url.toString() }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      const base = await waitFor(() => (out.includes('Visibility timeout') ? /listening on (http:\/\/[\d.:]+)/.exec(out)?.[1] : undefined), { timeoutMs: 20_000 });
      expect(out).toContain(`Using Redis at redis://${user}:***@`);
      const seen = [await (await fetch(`${base}/`)).text(), await (await fetch(`${base}/stats`)).text(), await (await fetch(`${base}/jobs`)).text()];
      await fetch(`${base}/enqueue`, { method: 'POST', body: new URLSearchParams({ count: '1' }) });
      seen.push(await (await fetch(`${base}/jobs`)).text());
      for (const text of [...seen, out]) expect(text).not.toContain(password);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      await redis.acl('DELUSER', user);
    }
  });
});
