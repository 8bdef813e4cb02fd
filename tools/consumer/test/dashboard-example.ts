import { within } from '@jobs/testing';
import { expect } from 'vitest';
import { describeResult, type RunningCommand } from '../src/run-command.ts';

/**
 * Reads a running copy of examples/dashboard.ts: its page, a script of the page (shipped inside
 * the package's code), and `queues` (its two, renamed) in the overview; SIGTERM closes it and it exits 0.
 */
export async function provesTheDashboardExample(queues: readonly string[], dashboard: RunningCommand): Promise<void> {
  try {
    const [, url] = await dashboard.waitForOutput(/dashboard on (http:\/\/127\.0\.0\.1:\d+\/)/);
    const page = await fetch(url as string);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('assets/app.js');
    const script = await fetch(new URL('assets/app.js', url));
    expect(script.status).toBe(200);
    expect(await script.text()).toContain('api/overview');
    const overview = (await (await fetch(new URL('api/overview', url))).json()) as { queues: { name: string }[] };
    expect(overview.queues.map((queue) => queue.name)).toEqual(queues);
  } finally {
    const exit = await within(dashboard.stop(), 20_000, () => `the dashboard did not exit after SIGTERM:\n${dashboard.output()}`);
    expect(exit.code, describeResult(exit)).toBe(0);
  }
}
