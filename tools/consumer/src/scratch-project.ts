import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeResult, runCommand, type CommandResult } from './run-command.ts';

/** The workspace this tool lives in. */
export const WORKSPACE_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The packages users install from a registry, by directory under packages/. */
export const PUBLISHED_PACKAGES = ['core', 'producer', 'worker', 'dashboard', 'reclaimer'] as const;

/** What the tracing examples use beside @jobs (the README says to install them for tracing). */
const TRACING_PACKAGES = ['@opentelemetry/api@1', '@opentelemetry/sdk-trace-base@2', '@opentelemetry/context-async-hooks@2'];
/** What the worker's metrics use (the README says to install it for metrics). */
const METRICS_PACKAGES = ['prom-client@15'];
/** The servers the dashboard's README mounts it in (its adapters import none of them themselves). */
const SERVER_PACKAGES = ['express@5', '@types/express@5', 'fastify@5', 'hono@4', '@hono/node-server@2'];

/**
 * Examples compiled on their own with lib `dom` as well: hono's declarations name DOM event types
 * (`MessageEvent`, `CloseEvent`), so every other file is checked without it.
 */
const DOM_EXAMPLES = ['src/examples/embed-hono.ts'];
/** The tsconfig that compiles {@link DOM_EXAMPLES} (strict, `module: nodenext`, emitting to `dist/`). */
export const DOM_CONFIG = 'tsconfig.dom.json';

/** One of {@link PUBLISHED_PACKAGES}. */
export type PublishedPackage = (typeof PUBLISHED_PACKAGES)[number];

/** A scratch npm project with the packed packages installed, and the sources copied into it. */
export interface ScratchProject {
  /** The project's directory, under the OS temp dir: outside the workspace. */
  dir: string;
  /** The tarball `pnpm pack` made of each package. */
  tarballs: Record<PublishedPackage, string>;
  /** Each README example, as copied into `src/examples/` (path relative to `dir`). */
  examples: string[];
  /** The migration guide's snippets, as copied into `src/migrating/`. */
  migrating: string[];
  /** The environment npm and the examples run with: this process's, less npm's and pnpm's per-run settings. */
  env: NodeJS.ProcessEnv;
  /** Deletes the project. */
  remove(): void;
}

/** Options of {@link createScratchProject}. */
export interface ScratchProjectOptions {
  /**
   * Queue names of the copied examples start with this instead of `example`, so that a run
   * against a shared Redis (REDIS_URL) does not meet the packages' own README tests there.
   */
  queuePrefix: string;
}

/**
 * The settings `pnpm run` and `npm run` hand a script (`npm_config_*`, `npm_package_*`,
 * `npm_lifecycle_*`) would reconfigure the npm the test runs, so they are dropped; where the
 * registry and cache are is kept.
 */
export function cleanEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const keep = new Set(['npm_config_registry', 'npm_config_cache', 'npm_config_userconfig']);
  const clean: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (name.toLowerCase().startsWith('npm_') && !keep.has(name.toLowerCase())) continue;
    clean[name] = value;
  }
  clean.npm_config_update_notifier = 'false';
  clean.npm_config_fund = 'false';
  clean.npm_config_audit = 'false';
  return clean;
}

function mustSucceed(what: string, result: CommandResult): CommandResult {
  if (result.code !== 0) throw new Error(`${what} failed: ${describeResult(result)}`);
  return result;
}

/** Copies every `*.ts` of `from` into `to`, renaming the `example-…` queues; returns the copies' paths relative to `root`. */
function copySources(from: string, to: string, root: string, queuePrefix: string): string[] {
  mkdirSync(to, { recursive: true });
  const copied: string[] = [];
  for (const file of readdirSync(from).filter((name) => name.endsWith('.ts')).sort()) {
    const target = join(to, file);
    if (existsSync(target)) throw new Error(`two sources are called ${file}`);
    const source = readFileSync(join(from, file), 'utf8');
    writeFileSync(target, source.replaceAll(`'example-`, `'${queuePrefix}-${basename(file, '.ts')}-`));
    copied.push(relative(root, target));
  }
  return copied;
}

/**
 * Packs the published packages with `pnpm pack` (which writes `workspace:` and `catalog:`
 * dependencies as the ranges a registry would serve) and installs the tarballs with npm into a
 * new project under the OS temp dir, with `ioredis` and Node's types from the npm registry. The
 * core and dashboard tarballs stand in for the registry's copies the others depend on. The README examples, the
 * migration guide's snippets and the misuse fixture are copied into `src/`, with two tsconfigs:
 * `tsconfig.json` (strict, `module: nodenext`, emitting to `dist/`), `tsconfig.bundler.json`
 * (strict, `moduleResolution: bundler`) and {@link DOM_CONFIG}.
 */
export async function createScratchProject(options: ScratchProjectOptions): Promise<ScratchProject> {
  const dir = mkdtempSync(join(tmpdir(), 'jobs-consumer-'));
  if (!relative(WORKSPACE_ROOT, dir).startsWith(`..${sep}`)) throw new Error(`${dir} is inside the workspace: npm would see it`);
  const env = cleanEnvironment(process.env);
  try {
    const tarballDir = join(dir, 'tarballs');
    mkdirSync(tarballDir);
    const tarballs = {} as Record<PublishedPackage, string>;
    for (const name of PUBLISHED_PACKAGES) {
      const packed = mustSucceed(
        `pnpm pack of @jobs/${name}`,
        await runCommand('pnpm', ['pack', '--pack-destination', tarballDir, '--json'], { cwd: join(WORKSPACE_ROOT, 'packages', name), env: process.env }),
      );
      tarballs[name] = (JSON.parse(packed.stdout) as { filename: string }).filename;
    }

    writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'jobs-consumer-scratch', private: true, type: 'module' }, null, 2)}\n`);
    // What the READMEs say to run (`npm install @jobs/worker ioredis`, and for the tracing
    // examples the OpenTelemetry packages, for metrics prom-client, for the dashboard's embedding
    // examples their servers), with the tarballs in the packages' stead;
    // --prefer-offline takes third-party packages from npm's cache when it has them.
    mustSucceed(
      'npm install',
      await runCommand('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...PUBLISHED_PACKAGES.map((name) => tarballs[name]), 'ioredis', '@types/node@20', ...TRACING_PACKAGES, ...METRICS_PACKAGES, ...SERVER_PACKAGES], {
        cwd: dir,
        env,
        timeoutMs: 480_000,
      }),
    );

    const examples: string[] = [];
    for (const name of PUBLISHED_PACKAGES) {
      examples.push(...copySources(join(WORKSPACE_ROOT, 'packages', name, 'examples'), join(dir, 'src', 'examples'), dir, options.queuePrefix));
    }
    const migrating = copySources(join(WORKSPACE_ROOT, 'docs', 'migrating'), join(dir, 'src', 'migrating'), dir, options.queuePrefix);
    copyFileSync(join(WORKSPACE_ROOT, 'tools', 'consumer', 'fixtures', 'misuse.ts'), join(dir, 'src', 'misuse.ts'));

    const strict = { strict: true, target: 'es2022', lib: ['es2023'], types: ['node'], skipLibCheck: false };
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { ...strict, module: 'nodenext', moduleResolution: 'nodenext', rootDir: 'src', outDir: 'dist' }, include: ['src'], exclude: DOM_EXAMPLES }, null, 2),
    );
    writeFileSync(
      join(dir, 'tsconfig.bundler.json'),
      JSON.stringify({ compilerOptions: { ...strict, module: 'esnext', moduleResolution: 'bundler', noEmit: true }, include: ['src'], exclude: DOM_EXAMPLES }, null, 2),
    );
    writeFileSync(join(dir, DOM_CONFIG), JSON.stringify({ extends: './tsconfig.json', compilerOptions: { lib: ['es2023', 'dom'] }, include: DOM_EXAMPLES, exclude: [] }, null, 2));
    return { dir, tarballs, examples, migrating, env, remove: () => rmSync(dir, { recursive: true, force: true }) };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
