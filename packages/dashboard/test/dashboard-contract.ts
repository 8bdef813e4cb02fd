import type { Page, Route } from 'playwright-core';

// The API members other parts of issue 27 add (attempts, logs, the one error format, history,
// audit, promote/priority/delete/bulk), answered in the browser with the shapes of the shared
// contract, on top of the real dashboard: the page's views for them are tested before their
// server side lands. Everything else still comes from the real server and Redis.

/** A POST the page sent to a contract route. */
export interface SentAction {
  readonly path: string;
  readonly body: Record<string, unknown>;
}

/** What the contract routes answer. */
export interface ContractAnswers {
  /** Capabilities to turn on in the session, and its label. */
  readonly capabilities?: Readonly<Record<string, boolean>>;
  readonly label?: string;
  /** Added to a job's detail (`error`, `attempts`, `logs`), by job id. */
  readonly detail?: (id: string) => Record<string, unknown> | undefined;
  readonly history?: (query: URLSearchParams) => unknown;
  readonly audit?: (query: URLSearchParams) => unknown;
  /** The answer to a POST of `bulk`, `promote`, `priority` or `delete`. */
  readonly act?: (action: SentAction) => unknown;
}

const ACTION = /\/api\/queues\/[^/]+\/(bulk|jobs\/[^/]+\/(promote|priority|delete))$/;
const DETAIL = /\/api\/queues\/[^/]+\/jobs\/([^/]+)$/;

async function json(route: Route, body: unknown, status = 200): Promise<void> {
  await route.fulfill({ status, contentType: 'application/json; charset=utf-8', body: JSON.stringify(body) });
}

/** Answers the contract's routes on `page`; returns the actions the page sent to them. */
export async function contractRoutes(page: Page, answers: ContractAnswers): Promise<SentAction[]> {
  const sent: SentAction[] = [];
  await page.route(
    (url) => url.pathname.endsWith('/api/session'),
    async (route) => {
      const real = await route.fetch();
      const body = (await real.json()) as { capabilities: Record<string, boolean> };
      await json(route, { ...body, capabilities: { ...body.capabilities, ...answers.capabilities }, ...(answers.label !== undefined && { label: answers.label }) }, real.status());
    },
  );
  await page.route(
    (url) => DETAIL.test(url.pathname),
    async (route) => {
      if (route.request().method() !== 'GET') return route.fallback();
      const real = await route.fetch();
      const body = (await real.json()) as { job?: Record<string, unknown> };
      const id = decodeURIComponent(DETAIL.exec(new URL(route.request().url()).pathname)?.[1] ?? '');
      const extra = real.ok() ? answers.detail?.(id) : undefined;
      if (!extra) return json(route, body, real.status());
      const { error, ...rest } = extra;
      await json(route, { ...body, ...rest, job: { ...body.job, ...(error !== undefined && { error }) } });
    },
  );
  if (answers.history) {
    const history = answers.history;
    await page.route((url) => /\/api\/queues\/[^/]+\/history$/.test(url.pathname), (route) => json(route, history(new URL(route.request().url()).searchParams)));
  }
  if (answers.audit) {
    const audit = answers.audit;
    await page.route((url) => /\/api\/queues\/[^/]+\/audit$/.test(url.pathname), (route) => json(route, audit(new URL(route.request().url()).searchParams)));
  }
  await page.route(
    (url) => ACTION.test(url.pathname),
    async (route) => {
      const action = { path: new URL(route.request().url()).pathname, body: (route.request().postDataJSON() ?? {}) as Record<string, unknown> };
      sent.push(action);
      await json(route, answers.act?.(action) ?? { count: 1 });
    },
  );
  return sent;
}

/** A history answer of `steps` minutes ending at `endMs`, with `rate` jobs a minute. */
export function historyOf(queue: string, range: string, kind: string | null, kinds: readonly string[], steps: number, endMs: number, rate: number): unknown {
  const atMs = Array.from({ length: steps }, (_, i) => endMs - (steps - 1 - i) * 60_000);
  const wave = atMs.map((_, i) => Math.round(rate * (1 + Math.sin(i / 5))));
  return {
    queue,
    range,
    kind,
    kinds,
    stepMs: 60_000,
    atMs,
    enqueued: wave,
    completed: wave.map((n) => Math.max(0, n - 1)),
    failed: wave.map((n) => (n % 4 === 0 ? 1 : 0)),
    retried: wave.map((n) => (n % 3 === 0 ? 1 : 0)),
    runMsP50: wave.map((n) => 20 + n),
    runMsP95: wave.map((n) => 60 + 2 * n),
    runMsP99: wave.map((n, i) => (i % 7 === 0 ? null : 120 + 3 * n)),
  };
}
