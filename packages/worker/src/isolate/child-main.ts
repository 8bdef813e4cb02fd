import type { ErrorCodec } from './error-codec.ts';
import type { ToChild, ToParent } from './protocol.ts';

/** What the child's code runs on: its channel to the worker, and what it cannot import itself. */
export interface ChildHost {
  /** Sends to the worker; throws when the message cannot be cloned. */
  send(message: ToParent): void;
  listen(onMessage: (message: ToChild) => void): void;
  /** `import(url)`, written in the child's source where no bundler or test runner rewrites it. */
  load(url: string): Promise<Record<string, unknown>>;
  /** `util.format`, for log parts that cannot be cloned. */
  format(...parts: unknown[]): string;
  readonly codec: ErrorCodec;
  /** The handler module's `file:` URL. */
  readonly moduleUrl: string;
  /** The context methods forwarded to the worker (protocol.ts's FORWARDED_METHODS). */
  readonly methods: readonly string[];
  /** The levels of `ctx.log.<level>` (protocol.ts's FORWARDED_LOG_LEVELS). */
  readonly levels: readonly string[];
}

/**
 * The child's side: loads the handler module, says `ready` (or why not), then runs one job at a
 * time with a `ctx` whose signal the worker aborts and whose methods are calls to the worker.
 * It refers to nothing outside its own body, because the child runs its source text (see
 * child-source.ts): keep it that way.
 */
export function childMain(host: ChildHost): void {
  type Handler = (payload: unknown, ctx: Record<string, unknown>) => unknown;
  let handler: Handler | undefined;
  let current: { seq: number; controller: AbortController } | undefined;
  const calls = new Map<number, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>();
  let nextCall = 1;

  function call(seq: number, method: string, args: unknown[]): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const id = nextCall++;
      calls.set(id, { resolve, reject });
      try {
        host.send({ t: 'call', seq, call: id, method: method as never, args });
      } catch (error) {
        calls.delete(id);
        reject(error);
      }
    });
  }

  /** A call without a reply; parts that cannot be cloned are sent as text instead. */
  function tell(seq: number, method: string, args: unknown[], asText: () => unknown[]): void {
    try {
      host.send({ t: 'call', seq, call: 0, method: method as never, args });
    } catch {
      host.send({ t: 'call', seq, call: 0, method: method as never, args: asText() });
    }
  }

  function jobLog(seq: number): unknown {
    const log = (...parts: unknown[]): void => tell(seq, 'log', parts, () => [host.format(...parts)]);
    for (const level of host.levels) {
      (log as unknown as Record<string, unknown>)[level] = (fields: object, message?: string): void =>
        tell(seq, `log.${level}`, [fields, message], () => [{ fields: host.format(fields) }, message]);
    }
    return log;
  }

  async function run(seq: number, payload: unknown, values: Record<string, unknown>): Promise<void> {
    const controller = new AbortController();
    current = { seq, controller };
    const ctx: Record<string, unknown> = { ...values, signal: controller.signal, log: jobLog(seq) };
    for (const method of host.methods) ctx[method] = (...args: unknown[]) => call(seq, method, args);
    let settled: ToParent;
    try {
      settled = { t: 'done', seq, ok: true, value: await (handler as Handler)(payload, ctx) };
    } catch (error) {
      settled = { t: 'done', seq, ok: false, error: host.codec.toRecord(error) };
    }
    if (current?.seq === seq) current = undefined;
    try {
      host.send(settled);
    } catch (error) {
      // A result structured clone cannot carry would fail the same way on every attempt.
      const why = error instanceof Error ? error.message : String(error);
      const permanent = Object.assign(new Error(`the handler's result cannot be sent to the worker: ${why}`), { name: 'PermanentError', code: 'JOBS_PERMANENT' });
      host.send({ t: 'done', seq, ok: false, error: host.codec.toRecord(permanent) });
    }
  }

  host.listen((message) => {
    if (message.t === 'run') void run(message.seq, message.payload, message.ctx);
    else if (message.t === 'abort') {
      if (current?.seq === message.seq) current.controller.abort(host.codec.revive(message.reason));
    } else {
      const pending = calls.get(message.call);
      if (pending === undefined) return;
      calls.delete(message.call);
      if (message.ok) pending.resolve(message.value);
      else pending.reject(host.codec.revive(message.error));
    }
  });

  host.load(host.moduleUrl).then(
    (module) => {
      const fallback = module.default as Record<string, unknown> | undefined;
      const found = [module.default, module.handler, fallback?.handler, fallback?.default].find((candidate) => typeof candidate === 'function');
      if (found === undefined) {
        const exported = Object.keys(module).join(', ') || 'nothing';
        host.send({ t: 'load-failed', error: host.codec.toRecord(new TypeError(`it has no default export or export named "handler" that is a function (it exports: ${exported})`)) });
        return;
      }
      handler = found as Handler;
      host.send({ t: 'ready' });
    },
    (error: unknown) => host.send({ t: 'load-failed', error: host.codec.toRecord(error) }),
  );
}
