import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { killOnExit } from './exit-with-parent.ts';
import { findFreePort } from './free-port.ts';
import { repoRoot } from './repo-root.ts';

/** Options for {@link startRedisServer}. */
export interface StartRedisServerOptions {
  /** A label used in the data folder's name and in error messages. Default `redis`. */
  name?: string;
  /** Port to bind; default: a free loopback port (retried if another process takes it first). */
  port?: number;
  /** Where Redis keeps its files. Default: a fresh folder under `<repo>/.redis-data/` (git-ignored). */
  dataDir?: string;
  /** Keep the data folder after {@link RedisServer.stop}. Default false. */
  keepData?: boolean;
  /** Extra `redis-server` arguments, e.g. `['--appendonly', 'yes']`. */
  args?: string[];
  /** Path of the binary. Default `REDIS_SERVER_BIN` or `redis-server` on PATH. */
  binary?: string;
  /**
   * Run it on these CPUs only (a `taskset` list such as `1` or `1-3`; Linux). For benchmarks that
   * must keep Redis and the process measured off each other's cores. Default: wherever the OS puts it.
   */
  cpus?: string;
  /** How long to wait for "Ready to accept connections". Default 10 s. */
  startTimeoutMs?: number;
  /**
   * Serve TLS only: a self-signed certificate for 127.0.0.1 is made in the data folder, the URL
   * is `rediss://`, and `tlsCa` holds the certificate for clients to trust.
   */
  tls?: boolean;
}

/** A running private redis-server child process. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>`, or `rediss://` with `tls` */
  readonly url: string;
  /** With `tls`: the server's self-signed certificate (PEM), for clients' `tls.ca`. */
  readonly tlsCa: string | undefined;
  readonly port: number;
  readonly dataDir: string;
  readonly pid: number;
  /** Stops the server (SIGTERM, then SIGKILL after 5 s) and removes its data folder unless kept. */
  stop(): Promise<void>;
  /** Kills the server at once (SIGKILL), as a crash would, and keeps its data folder. */
  crash(): Promise<void>;
}

const READY = /Ready to accept connections/;

/** Writes a fresh self-signed certificate for 127.0.0.1 (tls.crt, tls.key) and returns it. */
async function writeSelfSignedCertificate(dir: string): Promise<string> {
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec',
    curve: 'P-256',
    notAfterDate: new Date(Date.now() + 7 * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }, { type: 2, value: 'localhost' }] },
    ],
  });
  writeFileSync(join(dir, 'tls.crt'), pems.cert);
  writeFileSync(join(dir, 'tls.key'), pems.private, { mode: 0o600 });
  return pems.cert;
}

/**
 * Starts a private `redis-server` bound to 127.0.0.1 on a free port, with no persistence unless
 * `args` ask for it, and resolves once it accepts connections.
 */
export async function startRedisServer(options: StartRedisServerOptions = {}): Promise<RedisServer> {
  if (options.cpus !== undefined && !/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(options.cpus)) throw new Error(`cpus: expected a CPU list such as "1" or "1-3", got "${options.cpus}"`);
  const attempts = options.port === undefined ? 5 : 1;
  let lastError: unknown;
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const port = options.port ?? (await findFreePort());
    try {
      return await startOnPort(port, options);
    } catch (error) {
      lastError = error;
      if (!(error instanceof PortTakenError)) throw error;
    }
  }
  throw lastError;
}

/**
 * A start on an explicit port failed because another process holds it (for a cluster node: its
 * client or its bus port). Callers that chose the port themselves can pick another and retry.
 */
export class PortTakenError extends Error {}

async function startOnPort(port: number, options: StartRedisServerOptions): Promise<RedisServer> {
  const name = options.name ?? 'redis';
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? join(repoRoot(), '.redis-data', `${name}-${process.pid}-${port}`);
  mkdirSync(dataDir, { recursive: true });
  const binary = options.binary ?? process.env.REDIS_SERVER_BIN ?? 'redis-server';
  const tlsCa = options.tls ? await writeSelfSignedCertificate(dataDir) : undefined;
  const listen = tlsCa === undefined
    ? ['--port', String(port)]
    : ['--port', '0', '--tls-port', String(port), '--tls-cert-file', join(dataDir, 'tls.crt'), '--tls-key-file', join(dataDir, 'tls.key'),
       '--tls-ca-cert-file', join(dataDir, 'tls.crt'), '--tls-auth-clients', 'no'];
  const args = [
    ...listen,
    '--bind', '127.0.0.1',
    '--dir', dataDir,
    '--save', '',
    '--appendonly', 'no',
    '--daemonize', 'no',
    '--logfile', '',
    ...(options.args ?? []),
  ];

  const child = options.cpus === undefined
    ? spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn('taskset', ['--cpu-list', options.cpus, binary, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  killOnExit(child);
  let log = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name}: redis-server did not become ready within ${options.startTimeoutMs ?? 10_000} ms\n${log}`));
    }, options.startTimeoutMs ?? 10_000);
    const onData = (chunk: Buffer): void => {
      log += chunk.toString('utf8');
      if (READY.test(log)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        error.code === 'ENOENT'
          ? new Error(options.cpus === undefined
            ? `${binary} was not found. Install Redis 7 (Debian: apt-get install redis-server) or set REDIS_URL.`
            : `taskset was not found (Debian: apt-get install util-linux); it runs ${binary} on CPUs ${options.cpus}.`)
          : error,
      );
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (/Address already in use/.test(log)) reject(new PortTakenError(`port ${port} is taken`));
      else reject(new Error(`${name}: redis-server exited with code ${code} before it was ready\n${log}`));
    });
  });
  try {
    await ready;
  } catch (error) {
    if (ownsDataDir) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  // Stop buffering output once ready; keep draining the pipes so the child never blocks on them.
  child.stdout?.removeAllListeners('data').resume();
  child.stderr?.removeAllListeners('data').resume();

  let stopping: Promise<void> | undefined;
  const running = (): boolean => child.exitCode === null && child.signalCode === null;
  return {
    url: `${tlsCa === undefined ? 'redis' : 'rediss'}://127.0.0.1:${port}`,
    tlsCa,
    port,
    dataDir,
    pid: child.pid ?? -1,
    stop() {
      stopping ??= (async () => {
        if (running()) {
          child.kill('SIGTERM');
          const killTimer = setTimeout(() => child.kill('SIGKILL'), 5_000);
          await exited;
          clearTimeout(killTimer);
        }
        if (ownsDataDir && !options.keepData) rmSync(dataDir, { recursive: true, force: true });
      })();
      return stopping;
    },
    async crash() {
      if (running()) child.kill('SIGKILL');
      await exited;
    },
  };
}
