import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { Queue } from '@jobs/core';
import { createProducer, defineKinds } from '@jobs/producer';
import { openRedis, within } from '@jobs/testing';
import { afterAll, beforeAll, describe, expect, inject, test, vi } from 'vitest';
import { describeResult, runCommand, startCommand, type CommandResult, type RunningCommand } from '../src/run-command.ts';
import { createScratchProject, DOM_CONFIG, PUBLISHED_PACKAGES, WORKSPACE_ROOT, type ScratchProject } from '../src/scratch-project.ts';
import { provesTheDashboardExample } from './dashboard-example.ts';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const redisUrl = inject('redisUrl');
const queuePrefix = `consumer-${randomBytes(4).toString('hex')}`;
/** The queue a copied example uses instead of its `example-<name>` one. */
const queueOf = (example: string, name: string): string => `${queuePrefix}-${example}-${name}`;

// The kinds of examples/worker.ts, for a producer in this test that feeds the example's worker.
const mailKinds = defineKinds({
  email: {
    schema: { type: 'object', properties: { recipient: { type: 'string' }, subject: { type: 'string' } }, required: ['recipient'], additionalProperties: false },
  },
  invoice: {
    schema: { type: 'object', properties: { customerId: { type: 'string' }, amountCents: { type: 'integer' } }, required: ['customerId', 'amountCents'], additionalProperties: false },
  },
});

/** Every README example of the published packages (packages/NAME/examples/*.ts). */
const examples = PUBLISHED_PACKAGES.flatMap((name) => readdirSync(join(WORKSPACE_ROOT, 'packages', name, 'examples')).filter((file) => file.endsWith('.ts'))).sort();
/** Examples that serve until told to stop, and those with checks of their own; every other one must run to its end. */
/** The dashboard's README examples that mount it in a server (node:http, express, fastify, hono). */
const embeddings = examples.filter((file) => file.startsWith('embed-'));
const checkedOnTheirOwn = ['queue.ts', 'enqueue.ts', 'worker.ts', 'isolated.ts', 'reclaimer.ts', 'dashboard.ts', 'sso-audit.ts', 'observed-worker.ts', ...embeddings];

let project: ScratchProject;
/** The strict `module: nodenext` compile of the copied sources, which also emits them to dist/ for the runs. */
let nodenext: CommandResult;
/** The same for the examples that need lib dom too (hono's declarations name DOM event types). */
let nodenextDom: CommandResult;
const leftovers: string[] = [];

beforeAll(async () => {
  project = await createScratchProject({ queuePrefix });
  nodenext = await runCommand(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project.dir, env: project.env });
  nodenextDom = await runCommand(process.execPath, [tsc, '-p', DOM_CONFIG], { cwd: project.dir, env: project.env });
}, 600_000);

afterAll(async () => {
  project?.remove();
  for (const dir of leftovers) rmSync(dir, { recursive: true, force: true });
  // The examples' queues, when the run shares a Redis (REDIS_URL) with others.
  const redis = openRedis(redisUrl);
  try {
    const keys = await redis.keys(`queue:{${queuePrefix}-*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}, 60_000);

/** Runs a compiled example (or a bundle) against the test Redis. */
function startExample(file: string, cwd = project.dir): RunningCommand {
  return startCommand(process.execPath, [file], { cwd, env: { ...project.env, REDIS_URL: redisUrl }, timeoutMs: 90_000 });
}

/** `promise`, or a rejection with the command's output if the command exits first. */
async function whileRunning<T>(command: RunningCommand, promise: Promise<T>): Promise<T> {
  return Promise.race([
    promise,
    command.exited.then((result) => {
      throw new Error(`the process exited first: ${describeResult(result)}`);
    }),
  ]);
}

/**
 * Feeds a running copy of examples/worker.ts: an email completes with the example's result, a
 * bad invoice fails for good and the example logs it, and SIGTERM closes the worker and exits 0.
 */
async function provesTheWorkerExample(worker: RunningCommand): Promise<void> {
  const producer = createProducer({ redis: redisUrl, queue: queueOf('worker', 'mail'), kinds: mailKinds });
  try {
    const mail = await producer.enqueue('email', { recipient: 'dora@example.com' });
    expect(await whileRunning(worker, producer.waitForResult(mail, { timeoutMs: 30_000 }))).toEqual({ sentTo: 'dora@example.com', subject: '(none)', attempt: 1 });
    const bill = await producer.enqueue('invoice', { customerId: 'acct_1', amountCents: 5 });
    await expect(whileRunning(worker, producer.waitForResult(bill, { timeoutMs: 30_000 }))).rejects.toMatchObject({ code: 'JOBS_JOB_FAILED', lastError: 'PermanentError: no such customer: acct_1' });
    // The example logs after its fail call returns; the producer may hear of the failure first.
    await vi.waitFor(() => expect(worker.output()).toContain(`job ${bill} failed for good`), { timeout: 10_000 });
  } finally {
    await producer.close();
    // Stopped whatever happened, so that no worker outlives its test and serves the next one's jobs.
    const exit = await within(worker.stop(), 20_000, () => `the worker did not exit after SIGTERM:\n${worker.output()}`);
    expect(exit.code, describeResult(exit)).toBe(0);
  }
}

/**
 * Bundles the copied `examples/<name>.ts` with esbuild into a fresh folder of its own, away from
 * any node_modules; returns the folder and the bundle's path.
 */
async function bundleExample(name: string): Promise<{ out: string; file: string }> {
  const out = mkdtempSync(join(tmpdir(), 'jobs-bundle-'));
  leftovers.push(out);
  const file = join(out, `${name}.mjs`);
  await build({
    absWorkingDir: project.dir,
    entryPoints: [`src/examples/${name}.ts`],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // ioredis and ajv are CommonJS: an ES module bundle gives their require() of Node's modules a
    // require. Under an alias, since the bundled code may import createRequire itself.
    banner: { js: "import { createRequire as bannerCreateRequire } from 'node:module'; const require = bannerCreateRequire(import.meta.url);" },
    logLevel: 'silent',
  });
  return { out, file };
}

describe('the packed packages', () => {
  const manifest = (name: string): Record<string, unknown> & { exports: Record<string, unknown>; dependencies?: Record<string, string> } =>
    JSON.parse(readFileSync(join(project.dir, 'node_modules', '@jobs', name, 'package.json'), 'utf8'));

  test('npm installed every package from its tarball, @jobs/core too (it stands in for the registry)', () => {
    const lock = JSON.parse(readFileSync(join(project.dir, 'package-lock.json'), 'utf8')) as { packages: Record<string, { resolved?: string }> };
    for (const name of PUBLISHED_PACKAGES) {
      expect(lock.packages[`node_modules/@jobs/${name}`]?.resolved, name).toBe(`file:tarballs/${project.tarballs[name].split('/').pop()}`);
    }
    // No second copy of core (or of the dashboard the reclaimer depends on) under a dependent's
    // node_modules: one registry stand-in serves them all.
    expect(Object.keys(lock.packages).filter((path) => path.endsWith('/@jobs/core'))).toEqual(['node_modules/@jobs/core']);
    expect(Object.keys(lock.packages).filter((path) => path.endsWith('/@jobs/dashboard'))).toEqual(['node_modules/@jobs/dashboard']);
  });

  test('each tarball has the LICENSE, a README without relative links, and a manifest a public registry takes', () => {
    for (const name of PUBLISHED_PACKAGES) {
      const dir = join(project.dir, 'node_modules', '@jobs', name);
      const license = readFileSync(join(dir, 'LICENSE'), 'utf8');
      expect(license).toContain('MIT License');
      expect(license).toContain('Copyright (c) 2026 the @jobs authors');
      // A package page shows the README without the repository around it: ../../docs is dead there.
      const readme = readFileSync(join(dir, 'README.md'), 'utf8');
      expect(readme.match(/\]\((?!https:\/\/|#)[^)]*\)/g) ?? [], `${name}/README.md`).toEqual([]);

      const pkg = manifest(name);
      expect(pkg).toMatchObject({
        license: 'MIT',
        publishConfig: { access: 'public' },
        repository: { type: 'git', url: 'git+https://github.com/jobs-queue/jobs.git', directory: `packages/${name}` },
        homepage: `https://github.com/jobs-queue/jobs/tree/main/packages/${name}#readme`,
        bugs: { url: 'https://github.com/jobs-queue/jobs/issues' },
      });
      expect(pkg.files, name).toContain('LICENSE');
      // Caret ranges, so that an app's copies of them dedupe with ours; nothing only pnpm reads.
      for (const [dependency, range] of Object.entries(pkg.dependencies ?? {})) {
        expect(range, `${name} → ${dependency}`).toMatch(/^\^\d+\.\d+\.\d+$/);
      }
      expect(JSON.stringify(pkg), name).not.toMatch(/"(workspace|catalog):/);
    }
  });

  test("the declarations import none of the optional peers (prom-client, @opentelemetry/api, the dashboard's servers): a user without them still type-checks", () => {
    // A dashboard adapter's own entry is the one place its framework's types may be named: only
    // a user who imports that entry (and so has the framework) reads it.
    const adapterPeers: Record<string, readonly string[]> = { 'dashboard/adapters/fastify.d.ts': ['fastify'], 'dashboard/adapters/hono.d.ts': ['hono', '@hono/node-server'] };
    for (const name of PUBLISHED_PACKAGES) {
      const dist = join(project.dir, 'node_modules', '@jobs', name, 'dist');
      const peers = (manifest(name) as { peerDependenciesMeta?: Record<string, { optional?: boolean }> }).peerDependenciesMeta ?? {};
      const optional = Object.keys(peers).filter((peer) => peers[peer]?.optional === true);
      for (const file of readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((path) => path.endsWith('.d.ts'))) {
        const text = readFileSync(join(dist, file), 'utf8');
        const allowed = adapterPeers[`${name}/${file}`] ?? [];
        for (const peer of optional.filter((peer) => !allowed.includes(peer))) expect(text, `${name}/dist/${file} imports ${peer}`).not.toMatch(new RegExp(`^(import|export)\\b[^\\n]* from '${peer}'|[:<,(] *import\\('${peer}'\\)`, 'm'));
        // Nothing else leads to an adapter's declarations, and so to its framework's types.
        if (!file.startsWith('adapters/')) expect(text, `${name}/dist/${file}`).not.toMatch(/from '\.\/adapters\//);
      }
    }
  });

  test('every exports condition puts types before default, after nothing but the workspace-source condition', () => {
    for (const name of PUBLISHED_PACKAGES) {
      for (const [subpath, target] of Object.entries(manifest(name).exports)) {
        if (typeof target === 'string') continue; // ./package.json
        const conditions = Object.keys(target as object);
        // `@jobs/source` points at the .ts sources for the workspace's own type checks and tests;
        // no consumer sets it, so for them `types` is the first condition that matches.
        expect(conditions, `${name} ${subpath}`).toEqual(['@jobs/source', 'types', 'default']);
        const paths = target as Record<string, string>;
        expect(paths['@jobs/source'], `${name} ${subpath}`).toMatch(/\.ts$/);
        expect(paths.types, `${name} ${subpath}`).toMatch(/\.d\.ts$/);
        expect(existsSync(join(project.dir, 'node_modules', '@jobs', name, paths.types as string)), `${name} ${subpath} types`).toBe(true);
        expect(existsSync(join(project.dir, 'node_modules', '@jobs', name, paths.default as string)), `${name} ${subpath} default`).toBe(true);
      }
    }
  });
});

describe('the README examples and the migration guide in a fresh npm project', () => {
  test('type-check under strict TypeScript with module nodenext (misuse included, and refused)', () => {
    expect(project.examples.map((file) => file.split('/').pop()).sort()).toEqual(examples);
    expect(project.migrating.length).toBeGreaterThan(0);
    expect(nodenext.code, describeResult(nodenext)).toBe(0);
    expect(nodenextDom.code, describeResult(nodenextDom)).toBe(0);
  });

  test('type-check under strict TypeScript with moduleResolution bundler', async () => {
    const result = await runCommand(process.execPath, [tsc, '-p', 'tsconfig.bundler.json'], { cwd: project.dir, env: project.env });
    expect(result.code, describeResult(result)).toBe(0);
  });

  test('examples/queue.ts (core) runs: it enqueues, claims and completes a job', async () => {
    const result = await startExample('dist/examples/queue.js').exited;
    expect(result.code, describeResult(result)).toBe(0);
    const redis = openRedis(redisUrl);
    try {
      expect(await redis.llen(`queue:{${queueOf('queue', 'core')}}:completed`)).toBe(1);
    } finally {
      redis.disconnect();
    }
  });

  test('examples/enqueue.ts (producer) runs: three emails wait, the invoice is delayed, the bad address is refused', async () => {
    const result = await startExample('dist/examples/enqueue.js').exited;
    expect(result.code, describeResult(result)).toBe(0);
    expect(result.stdout).toContain("pointer: '/recipient'");
    const redis = openRedis(redisUrl);
    try {
      const queue = queueOf('enqueue', 'mail');
      expect(await redis.llen(`queue:{${queue}}:pending`)).toBe(3);
      expect(await redis.zcard(`queue:{${queue}}:delayed`)).toBe(1);
    } finally {
      redis.disconnect();
    }
  });

  test('examples/worker.ts (worker) runs: it completes an email, fails a bad invoice for good, and exits 0 on SIGTERM', async () => {
    await provesTheWorkerExample(startExample('dist/examples/worker.js'));
  });

  test('examples/isolated.ts (worker) runs: its thumbnails are made in child processes that import the compiled thumbnail.js, and a PermanentError thrown there fails the job for good', async () => {
    const result = await startExample('dist/examples/isolated.js').exited;
    expect(result.code, describeResult(result)).toBe(0);
    expect(result.stdout).toBe('64 true\nPermanentError: not a PNG: cat.gif\n');
  });

  test('examples/reclaimer.ts (reclaimer) runs: it sweeps, serves /metrics, and exits 0 on SIGTERM', async () => {
    const reclaimer = startExample('dist/examples/reclaimer.js');
    try {
      const [, url] = await reclaimer.waitForOutput(/metrics on (http:\/\/\S+\/metrics)/);
      await vi.waitFor(
        async () => {
          const response = await fetch(url as string);
          expect(response.status).toBe(200);
          expect(await response.text()).toContain(`jobs_queue_depth{queue="${queueOf('reclaimer', 'mail')}",state="pending"}`);
        },
        { timeout: 10_000, interval: 100 },
      );
    } finally {
      const exit = await within(reclaimer.stop(), 20_000, () => `the reclaimer did not exit after SIGTERM:\n${reclaimer.output()}`);
      expect(exit.code, describeResult(exit)).toBe(0);
    }
  });

  test('examples/dashboard.ts (dashboard) runs: createDashboard on real Queues serves its page and its two queues on loopback, and exits 0 on SIGTERM', async () => {
    await provesTheDashboardExample([queueOf('dashboard', 'billing'), queueOf('dashboard', 'mail')], startCommand(process.execPath, ['dist/examples/dashboard.js'], { cwd: project.dir, env: { ...project.env, REDIS_URL: redisUrl, PORT: '0' }, timeoutMs: 90_000 }));
  });

  test.each(embeddings)('examples/%s (dashboard) runs: the dashboard answers under /admin/jobs of the app, the app beside it, and it exits 0 on SIGTERM', async (file) => {
    const name = file.replace(/\.ts$/, '');
    const app = startCommand(process.execPath, [`dist/examples/${name}.js`], { cwd: project.dir, env: { ...project.env, REDIS_URL: redisUrl, PORT: '0' }, timeoutMs: 90_000 });
    try {
      const [, url] = await app.waitForOutput(/dashboard on (http:\/\/127\.0\.0\.1:\d+\/admin\/jobs\/)/);
      const page = await fetch(url as string);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('assets/app.js');
      const overview = (await (await fetch(new URL('api/overview', url))).json()) as { queues: { name: string }[] };
      expect(overview.queues.map((queue) => queue.name)).toEqual([queueOf(name, 'mail')]);
      expect((await fetch(new URL('/api/overview', url))).status).toBe(404);
    } finally {
      const exit = await within(app.stop(), 20_000, () => `${file} did not exit after SIGTERM:\n${app.output()}`);
      expect(exit.code, describeResult(exit)).toBe(0);
    }
  });

  test('examples/sso-audit.ts (dashboard) runs: its authorize hook names callers by the proxy header, refuses the unnamed, and it exits 0 on SIGTERM', async () => {
    const app = startCommand(process.execPath, ['dist/examples/sso-audit.js'], { cwd: project.dir, env: { ...project.env, REDIS_URL: redisUrl, PORT: '0' }, timeoutMs: 90_000 });
    try {
      const [, url] = await app.waitForOutput(/dashboard on (http:\/\/127\.0\.0\.1:\d+\/)/);
      const sessionAs = async (user?: string) => fetch(new URL('api/session', url), { headers: user === undefined ? {} : { 'x-forwarded-user': user } });
      expect((await sessionAs()).status).toBe(403);
      expect(await (await sessionAs('olga@example.com')).json()).toMatchObject({ role: 'operator', label: 'olga@example.com' });
      expect(await (await sessionAs('vic@example.com')).json()).toMatchObject({ role: 'viewer', label: 'vic@example.com' });
      const overview = (await (await fetch(new URL('api/overview', url), { headers: { 'x-forwarded-user': 'vic@example.com' } })).json()) as { queues: { name: string }[] };
      expect(overview.queues.map((queue) => queue.name)).toEqual([queueOf('sso-audit', 'sso')]);
    } finally {
      const exit = await within(app.stop(), 20_000, () => `sso-audit.ts did not exit after SIGTERM:\n${app.output()}`);
      expect(exit.code, describeResult(exit)).toBe(0);
    }
  });

  test.each(examples.filter((file) => !checkedOnTheirOwn.includes(file)))('examples/%s runs to its end and exits 0', async (file) => {
    const result = await startExample(`dist/examples/${file.replace(/\.ts$/, '.js')}`).exited;
    expect(result.code, describeResult(result)).toBe(0);
  });

  // Awaits the core reshape (Lua embedded in the code): until then the bundle cannot find
  // scripts/*.lua and exits at start.
  test('examples/worker.ts bundled with esbuild runs on its own: it processes jobs with no node_modules near it', async () => {
    const { out, file } = await bundleExample('worker');
    await provesTheWorkerExample(startExample(file, out));
  });

  test('examples/dashboard.ts bundled with esbuild runs on its own: its page and scripts ship inside the bundle, with no node_modules near it', async () => {
    const { out, file } = await bundleExample('dashboard');
    await provesTheDashboardExample([queueOf('dashboard', 'billing'), queueOf('dashboard', 'mail')], startCommand(process.execPath, [file], { cwd: out, env: { ...project.env, REDIS_URL: redisUrl, PORT: '0' }, timeoutMs: 90_000 }));
  });
});

/** What examples/observed-worker.ts serves on /spans for each finished span. */
interface SpanSummary {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
}

// The kinds of examples/observed-worker.ts.
const observedKinds = defineKinds({
  email: { schema: { type: 'object', properties: { recipient: { type: 'string' } }, required: ['recipient'], additionalProperties: false } },
});

/** SpanKind.CONSUMER of @opentelemetry/api: an attempt's span. */
const CONSUMER = 4;

describe('examples/observed-worker.ts (worker: metrics and tracing on), bundled with esbuild', () => {
  // What the worker README's "Bundling" section says to write.
  const bundles = [
    {
      format: 'esm' as const,
      file: 'observed-worker.mjs',
      // ioredis and ajv are CommonJS: an ES module bundle gives their require() of Node's modules a require.
      banner: { js: "import { createRequire as bannerCreateRequire } from 'node:module'; const require = bannerCreateRequire(import.meta.url);" },
    },
    { format: 'cjs' as const, file: 'observed-worker.cjs' },
  ];

  test.each(bundles)('as $format, with no node_modules near it: each job gets its spans and the registry passed in counts it', async ({ format, file, ...options }) => {
    const out = mkdtempSync(join(tmpdir(), 'jobs-bundle-'));
    leftovers.push(out);
    await build({ absWorkingDir: project.dir, entryPoints: ['src/examples/observed-worker.ts'], outfile: join(out, file), bundle: true, platform: 'node', format, target: 'node20', logLevel: 'silent', ...options });
    const queue = `${queuePrefix}-observed-${format}`;
    const worker = startCommand(process.execPath, [join(out, file)], { cwd: out, env: { ...project.env, REDIS_URL: redisUrl, QUEUE: queue }, timeoutMs: 90_000 });
    const producer = createProducer({ redis: redisUrl, queue, kinds: observedKinds });
    try {
      const [, url] = await worker.waitForOutput(/worker on (http:\/\/\S+\/)/);
      const id = await producer.enqueue('email', { recipient: 'erin@example.com' });
      expect(await whileRunning(worker, producer.waitForResult(id, { timeoutMs: 30_000 }))).toEqual({ sentTo: 'erin@example.com' });
      // The attempt's span ends as its outcome is reported, which may be after the producer heard of it.
      await vi.waitFor(
        async () => {
          const spans = (await (await fetch(new URL('spans', url))).json()) as SpanSummary[];
          const attempt = spans.find((span) => span.kind === CONSUMER && span.attributes['jobs.id'] === id);
          expect(attempt, JSON.stringify(spans)).toMatchObject({ name: `process ${queue}`, attributes: { 'jobs.kind': 'email', 'jobs.attempt': 1 } });
          // The handler's own span is the attempt's child: the bundled context manager carried it.
          expect(spans.find((span) => span.name === 'smtp send')).toMatchObject({ traceId: attempt?.traceId, parentSpanId: attempt?.spanId });
          expect(spans.map((span) => span.name)).toContain(`receive ${queue}`);
        },
        { timeout: 10_000, interval: 100 },
      );
      await vi.waitFor(
        async () => {
          const text = await (await fetch(new URL('metrics', url))).text();
          expect(text).toContain(`jobs_worker_job_duration_seconds_count{queue="${queue}",kind="email",outcome="completed"} 1`);
          expect(text).toContain(`jobs_worker_job_wait_seconds_count{queue="${queue}",kind="email"} 1`);
          expect(text).toContain(`jobs_worker_jobs_in_flight{queue="${queue}"} 0`);
        },
        { timeout: 10_000, interval: 100 },
      );
    } finally {
      await producer.close();
      const exit = await within(worker.stop(), 20_000, () => `the bundled worker did not exit after SIGTERM:\n${worker.output()}`);
      expect(exit.code, describeResult(exit)).toBe(0);
    }
  });
});

describe('the bins, by name through npx', () => {
  const npx = (args: string[]): Promise<CommandResult> =>
    // npm_config_yes=false: npx never installs a package of that name from the registry instead.
    runCommand('npx', args, { cwd: project.dir, env: { ...project.env, npm_config_yes: 'false', REDIS_URL: redisUrl } });

  test('npx jobs-reclaimer --help prints its usage', async () => {
    const result = await npx(['jobs-reclaimer', '--help']);
    expect(result.code, describeResult(result)).toBe(0);
    expect(result.stdout).toContain('jobs-reclaimer');
  });

  // Awaits the CLI branch (--version on both bins).
  test('npx jobs-reclaimer --version prints the installed version', async () => {
    const result = await npx(['jobs-reclaimer', '--version']);
    expect(result.code, describeResult(result)).toBe(0);
    const { version } = JSON.parse(readFileSync(join(project.dir, 'node_modules', '@jobs', 'reclaimer', 'package.json'), 'utf8')) as { version: string };
    expect(result.stdout.trim()).toContain(version);
  });

  // Awaits the CLI branch (the admin CLI renamed from `jobs`, a shell builtin, to `jobsctl`).
  test('npx jobsctl --help prints the admin CLI usage', async () => {
    const result = await npx(['jobsctl', '--help']);
    expect(result.code, describeResult(result)).toBe(0);
    expect(result.stdout).toContain('jobsctl');
  });

  test('npx jobsctl cancel stops a running job: its claim is void, and jobsctl stats counts it', async () => {
    const queue = new Queue({ redis: redisUrl, queue: queueOf('bins', 'cancel'), kinds: defineKinds({ note: { schema: { type: 'object' } } }) });
    try {
      const id = await queue.enqueue('note', {});
      const [job] = await queue.claim();
      expect(job?.id).toBe(id);
      const result = await npx(['jobsctl', 'cancel', id, '-q', queue.name]);
      expect(result.code, describeResult(result)).toBe(0);
      expect(result.stdout).toContain(`cancelled ${id} (it was running`);
      expect((await queue.getJob(id))?.status).toBe('cancelled');
      const stats = await npx(['jobsctl', 'stats', '-q', queue.name, '--json']);
      expect(stats.code, describeResult(stats)).toBe(0);
      expect(stats.stdout).toMatch(/"cancelledTotal":\s*1/);
    } finally {
      await queue.close();
    }
  });
});
