import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DEFAULT_WORK_CONFIG, type WorkConfig } from './work-config.ts';

/** The built worker entry, found the same way from src/ (tests) and dist/. */
const WORKER_SCRIPT = fileURLToPath(new URL('../dist/worker-process.js', import.meta.url));

/** What the supervisor needs to start workers. */
export interface SupervisorOptions {
  redisUrl: string;
  queue: string;
  visibilityMs: number;
  /** Override the worker entry (tests). */
  script?: string;
}

/**
 * Runs a pool of worker processes (`worker-1` .. `worker-N`), like the recipe's PHP supervisor
 * but tracking the real child processes: it forks them, sends them their config over IPC,
 * replaces the ones that crash ("hang") while the pool should be running, and stops them with
 * SIGTERM (they hand unfinished jobs back and exit).
 */
export class WorkerSupervisor {
  readonly #options: SupervisorOptions;
  readonly #workers = new Map<string, ChildProcess>();
  #size = 0;
  #config: WorkConfig = { ...DEFAULT_WORK_CONFIG };
  #crashes = 0;
  #processed = 0;

  constructor(options: SupervisorOptions) {
    this.#options = options;
  }

  /** Worker processes alive now. */
  get running(): number {
    return this.#workers.size;
  }

  /** The size the pool is kept at. */
  get size(): number {
    return this.#size;
  }

  get config(): WorkConfig {
    return { ...this.#config };
  }

  /** Worker processes that died without being asked to (hangs). */
  get crashes(): number {
    return this.#crashes;
  }

  /** Jobs the workers completed since the demo started. */
  get processed(): number {
    return this.#processed;
  }

  /** Applies `config` and resizes the pool to `size`: starts missing workers, stops the highest-numbered extras. */
  async start(size: number, config: WorkConfig): Promise<void> {
    this.configure(config);
    this.#size = size;
    for (let i = 1; i <= size; i += 1) if (!this.#workers.has(`worker-${i}`)) this.#spawn(`worker-${i}`);
    const extras = [...this.#workers.keys()].filter((name) => Number(name.slice('worker-'.length)) > size);
    await Promise.all(extras.map((name) => this.#stopOne(name)));
  }

  /** Updates the running workers' behaviour without restarting them. */
  configure(config: WorkConfig): void {
    this.#config = { ...config };
    for (const child of this.#workers.values()) if (child.connected) child.send({ type: 'configure', config: this.#config });
  }

  /** Stops every worker (SIGTERM; SIGKILL after 5 s). */
  async stop(): Promise<void> {
    this.#size = 0;
    await Promise.all([...this.#workers.keys()].map((name) => this.#stopOne(name)));
  }

  #spawn(name: string): void {
    const child = fork(this.#options.script ?? WORKER_SCRIPT, [], {
      env: {
        ...process.env,
        DEMO_WORKER_NAME: name,
        REDIS_URL: this.#options.redisUrl,
        QUEUE: this.#options.queue,
        VISIBILITY_MS: String(this.#options.visibilityMs),
        WORK_LATENCY_MS: String(this.#config.workLatencyMs),
        FAIL_RATE: String(this.#config.failRate),
        HANG_RATE: String(this.#config.hangRate),
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      // Not the parent's node flags (a test runner's loaders and conditions): a plain node.
      execArgv: [],
    });
    this.#workers.set(name, child);
    child.on('message', (message: { type?: string }) => {
      if (message.type === 'processed') this.#processed += 1;
    });
    child.on('exit', (code, signal) => {
      if (this.#workers.get(name) !== child) return;
      this.#workers.delete(name);
      const wanted = Number(name.slice('worker-'.length)) <= this.#size;
      if (wanted) {
        // It died on its own (a simulated hang kills its process): replace it.
        this.#crashes += 1;
        process.stderr.write(`[demo] ${name} exited (${signal ?? code}); starting a replacement\n`);
        setTimeout(() => {
          if (Number(name.slice('worker-'.length)) <= this.#size && !this.#workers.has(name)) this.#spawn(name);
        }, 100).unref();
      }
    });
  }

  async #stopOne(name: string): Promise<void> {
    const child = this.#workers.get(name);
    if (!child) return;
    this.#workers.delete(name);
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}
