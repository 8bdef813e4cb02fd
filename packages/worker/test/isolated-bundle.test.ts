import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { queueKeysIn, redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';

const examples = fileURLToPath(new URL('../examples/', import.meta.url));
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** Runs `file` with node in `cwd`; resolves with its exit code and output. */
function run(file: string, cwd: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('README isolated handlers example, bundled', () => {
  test('the README shows examples/isolated.ts and examples/thumbnail.ts as they are', () => {
    for (const file of ['isolated.ts', 'thumbnail.ts']) expect(readme).toContain(readFileSync(join(examples, file), 'utf8').trim());
  });

  // Plain, and minified with names kept (whose helper calls land inside the children's code).
  for (const options of [{}, { minify: true, keepNames: true }]) {
  test(`bundled by esbuild ${JSON.stringify(options)} into one file (@jobs/worker inside it) beside its handler module, with no node_modules near, it runs: resizes in child processes, a PermanentError thrown there fails for good`, async ({ redisUrl, redis }) => {
    const keys = await queueKeysIn(redis, 'example-isolated');
    if (keys.length > 0) await redis.del(...keys);
    const out = mkdtempSync(join(tmpdir(), 'jobs-isolated-bundle-'));
    try {
      // The app and its handler module are two entry points: two files, each with what it imports inside.
      await build({
        entryPoints: [join(examples, 'isolated.ts'), join(examples, 'thumbnail.ts')],
        outdir: out,
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        // ioredis and ajv are CommonJS: an ES module bundle gives their require() of Node's modules a require.
        banner: { js: "import { createRequire as bannerCreateRequire } from 'node:module'; const require = bannerCreateRequire(import.meta.url);" },
        logLevel: 'silent',
        ...options,
      });
      const result = await run(join(out, 'isolated.js'), out, { REDIS_URL: redisUrl });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('64 true\nPermanentError: not a PNG: cat.gif\n');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
  }
});
