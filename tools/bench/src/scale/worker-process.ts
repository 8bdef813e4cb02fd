/**
 * One worker process of the scale benchmark, forked by the parent with
 * `<system> <redis URL> <queue> <concurrency> <warmup>` and an IPC channel. It runs `warmup`
 * jobs on a queue of its own (untimed), then starts that system's workers paused and says `ready`; on `go` they claim, and it reports the jobs completed in
 * batches; on `stop` it reads its CPU since `go`, closes, sends that CPU, and exits.
 */
import type { AdapterFactory, QueueAdapter } from '../adapter.ts';
import { BATCH_JOBS, BATCH_MS, isParentMessage, type ChildMessage } from './protocol.ts';
import { scaleSystem } from './systems.ts';

/** Sends `message` to the parent; resolves once it is handed to the channel. */
function send(message: ChildMessage): Promise<void> {
  return new Promise((resolve, reject) => {
    if (process.send === undefined) reject(new Error('no IPC channel: this process must be forked by the scale benchmark'));
    else process.send(message, undefined, {}, (error) => (error ? reject(error) : resolve()));
  });
}

/** Gathers completed job ids and sends them in batches, not one message per job. */
class CompletionBatcher {
  #ids: number[] = [];
  #timer: NodeJS.Timeout | undefined;

  add(id: number): void {
    this.#ids.push(id);
    if (this.#ids.length >= BATCH_JOBS) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), BATCH_MS);
  }

  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#ids.length === 0) return;
    const ids = this.#ids;
    this.#ids = [];
    void send({ type: 'done', ids });
  }
}

/** Runs `jobs` jobs through `factory`'s workers on a queue of this process's own, then closes them. */
async function warmUp(factory: AdapterFactory, redisUrl: string, queue: string, concurrency: number, jobs: number): Promise<void> {
  const adapter = await factory(redisUrl, queue);
  try {
    for (let first = 0; first < jobs; first += 1_000) {
      await adapter.enqueueBulk(Array.from({ length: Math.min(1_000, jobs - first) }, (_, i) => ({ n: first + i, sentAt: 0 })));
    }
    let done = 0;
    await new Promise<void>((resolve) => {
      void adapter.startWorkers(concurrency, () => undefined, () => {
        done += 1;
        if (done === jobs) resolve();
      });
    });
  } finally {
    await adapter.close();
  }
}

async function main(): Promise<void> {
  const [system = '', redisUrl = '', queue = '', concurrencyText = '', warmupText = '0'] = process.argv.slice(2);
  const factory = scaleSystem(system);
  const concurrency = Number(concurrencyText);
  const warmup = Number(warmupText);
  if (factory === undefined || redisUrl === '' || queue === '' || !Number.isInteger(concurrency) || concurrency < 1 || !Number.isInteger(warmup) || warmup < 0) {
    throw new Error(`usage: worker-process.js <system> <redis URL> <queue> <concurrency> <warmup>; got ${JSON.stringify(process.argv.slice(2))}`);
  }
  const batcher = new CompletionBatcher();
  // Filled in as the start-up goes: a 'stop' may come (from a parent that gave up) before it ends.
  const state: { adapter?: QueueAdapter; go?: () => void; cpuAtGo?: NodeJS.CpuUsage } = {};
  // Listening before the start-up, so that a 'go' or 'stop' sent as soon as 'ready' arrives is not missed.
  process.on('message', (message: unknown) => {
    if (!isParentMessage(message)) return;
    if (message.type === 'go') {
      state.cpuAtGo = process.cpuUsage();
      state.go?.();
      return;
    }
    // Read before closing: the close is not part of the timed work.
    const cpu = process.cpuUsage(state.cpuAtGo);
    batcher.flush();
    void (async () => {
      await state.adapter?.close();
      await send({ type: 'stopped', cpu });
      process.exit(0);
    })().catch(fail);
  });
  if (warmup > 0) await warmUp(factory, redisUrl, `${queue}-warm-${process.pid}`, concurrency, warmup);
  const adapter = await factory(redisUrl, queue);
  state.adapter = adapter;
  const start = adapter.startPausedWorkers;
  if (start === undefined) throw new Error(`${adapter.name} cannot start its workers paused`);
  state.go = await start.call(adapter, concurrency, (payload) => batcher.add(payload.n));
  await send({ type: 'ready' });
}

/** Tells the parent what went wrong (if it still listens) and exits. */
function fail(error: unknown): void {
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  const exit = (): never => process.exit(1);
  if (process.connected) void send({ type: 'failed', message }).then(exit, exit);
  else exit();
}

// A parent that dies closes the channel: a worker process never outlives it.
process.on('disconnect', () => process.exit(1));
main().catch(fail);
