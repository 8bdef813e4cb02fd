import type { RedisClient } from './redis-connection.ts';

/** The part of a socket this needs (ioredis keeps its connection's socket in `stream`). */
interface CorkableStream {
  cork(): void;
  uncork(): void;
  readonly writableCorked: number;
}

function uncork(stream: CorkableStream): void {
  stream.uncork();
}

/** `client`'s socket, if it has one that can hold writes (a cluster client has none of its own). */
function socketOf(client: RedisClient): CorkableStream | undefined {
  const stream = (client as { stream?: Partial<CorkableStream> }).stream;
  return stream && typeof stream.cork === 'function' && typeof stream.uncork === 'function' ? (stream as CorkableStream) : undefined;
}

/**
 * Holds the writes of `client`'s socket until the current tick's callbacks have run, so that the
 * commands sent in one tick (64 producers awaiting replies that came in one read, a worker's
 * claim and completion) leave in one write system call instead of one each: per-command socket
 * writes were a large share of a busy producer's CPU (docs/BENCHMARKS.md). A cluster client (no
 * single socket) is left as it is.
 */
export function coalesceWrites(client: RedisClient): void {
  const stream = socketOf(client);
  if (!stream || stream.writableCorked !== 0) return;
  stream.cork();
  process.nextTick(uncork, stream);
}

/**
 * Runs `send` (which sends commands on `client`) with the socket's writes held, so that its
 * commands leave in one write system call, at once: a write costs the sender per call more than
 * per byte, most of it waking a sleeping Redis. A cluster client (no single socket) sends as it
 * would.
 */
export function writeTogether<T>(client: RedisClient, send: () => T): T {
  const stream = socketOf(client);
  if (!stream) return send();
  stream.cork();
  try {
    return send();
  } finally {
    stream.uncork();
  }
}
