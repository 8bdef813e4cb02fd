import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { Cluster } from 'ioredis';
import { isClusterUrl, parseClusterUrl } from './cluster-url.ts';
import { openRedis, type OpenRedisOptions, type TestRedis } from './open-redis.ts';

/** A command as a client sent it: its name upper-cased, then its arguments. */
export type ProxiedCommand = readonly string[];

/** Which commands a {@link RedisProxy} acts on. */
export type CommandMatch = (command: ProxiedCommand) => boolean;

/**
 * A TCP proxy on loopback in front of one or more Redis servers, for tests of what a client does
 * when a reply is lost: every byte goes through unchanged until a test arms it.
 */
export interface RedisProxy {
  /** The proxy's address for each upstream `host:port` it fronts. */
  readonly addresses: ReadonlyMap<string, { host: string; port: number }>;
  /**
   * Once Redis has replied to the `nth` command matching `match` from now on (counted over every
   * connection), closes that connection without handing the client the reply: Redis ran the
   * command, the client saw the connection drop (and resends it, as ioredis does). Resolves then.
   */
  dropAfterReply(match: CommandMatch, nth?: number): Promise<void>;
  /**
   * Holds the `nth` command matching `match` from now on, and everything its connection sends
   * after it: Redis never sees them. Resolves once it holds one. It may match a SUBSCRIBE (a
   * channel then never subscribed), which {@link dropAfterReply} never does.
   */
  holdBefore(match: CommandMatch, nth?: number): Promise<void>;
  /** Closes the connections a {@link holdBefore} holds (their clients reconnect, and resend). */
  closeHeld(): void;
  /** Stops listening and closes every connection. */
  close(): Promise<void>;
}

/** True for a call of a script: FCALL, FCALL_RO, EVALSHA or EVAL (as @jobs sends its scripts). */
export function isScriptCall(command: ProxiedCommand): boolean {
  return ['FCALL', 'FCALL_RO', 'EVALSHA', 'EVALSHA_RO', 'EVAL', 'EVAL_RO'].includes(command[0] ?? '');
}

const CRLF = 0x0d;

/** Where the line starting at `at` ends (the index of its CR), or -1 when it is not complete yet. */
function lineEnd(buf: Buffer, at: number): number {
  const end = buf.indexOf(CRLF, at);
  return end < 0 || end + 1 >= buf.length ? -1 : end;
}

/** The end of the complete RESP value at `at` in `buf` (the index after it), or -1 when it is not complete yet. */
function valueEnd(buf: Buffer, at: number): number {
  if (at >= buf.length) return -1;
  const end = lineEnd(buf, at + 1);
  if (end < 0) return -1;
  const type = String.fromCharCode(buf[at] as number);
  const n = Number(buf.toString('latin1', at + 1, end));
  let next = end + 2;
  if (type === '$' || type === '=' || type === '!') {
    if (n < 0) return next;
    return next + n + 2 <= buf.length ? next + n + 2 : -1;
  }
  if (type === '*' || type === '~' || type === '>' || type === '%' || type === '|') {
    const items = n < 0 ? 0 : type === '%' || type === '|' ? n * 2 : n;
    for (let i = 0; i < items; i += 1) {
      next = valueEnd(buf, next);
      if (next < 0) return -1;
    }
    // An attribute (|) comes before the value it describes.
    return type === '|' ? valueEnd(buf, next) : next;
  }
  return next;
}

/** The command (array of bulk strings) at the start of `buf` and where it ends, or undefined when incomplete. */
function readCommand(buf: Buffer): { command: string[]; end: number } | undefined {
  const end = valueEnd(buf, 0);
  if (end < 0) return undefined;
  const command: string[] = [];
  if (buf[0] === 0x2a) {
    let at = lineEnd(buf, 1) + 2;
    while (at < end) {
      const line = lineEnd(buf, at + 1);
      const length = Number(buf.toString('latin1', at + 1, line));
      command.push(buf.toString('utf8', line + 2, line + 2 + length));
      at = line + 2 + length + 2;
    }
  } else {
    // An inline command: words on one line.
    command.push(...buf.toString('utf8', 0, end - 2).trim().split(/\s+/));
  }
  if (command[0] !== undefined) command[0] = command[0].toUpperCase();
  return { command, end };
}

interface Arm {
  action: 'drop' | 'hold';
  match: CommandMatch;
  left: number;
  done: () => void;
}

/** One client connection and its upstream: counts commands and replies, so it knows whose reply is whose. */
class ProxiedConnection {
  #commands = Buffer.alloc(0);
  #replies = Buffer.alloc(0);
  #sent = 0;
  #answered = 0;
  /** The index of the command whose reply ends the connection (drop), if any, and its arm. */
  #dropAt: number | undefined;
  #dropArm: Arm | undefined;
  #held = false;
  #subscribed = false;

  readonly client: Socket;
  readonly upstream: Socket;
  readonly takeArm: (command: ProxiedCommand, holdOnly: boolean) => Arm | undefined;

  constructor(client: Socket, upstream: Socket, takeArm: (command: ProxiedCommand, holdOnly: boolean) => Arm | undefined) {
    this.client = client;
    this.upstream = upstream;
    this.takeArm = takeArm;
    client.on('data', (chunk: Buffer) => this.#fromClient(chunk));
    upstream.on('data', (chunk: Buffer) => this.#fromServer(chunk));
    const close = (): void => this.close();
    client.on('close', close);
    upstream.on('close', close);
    client.on('error', close);
    upstream.on('error', close);
  }

  close(): void {
    this.client.destroy();
    this.upstream.destroy();
  }

  /** True once it holds a command (see `RedisProxy.holdBefore`). */
  get held(): boolean {
    return this.#held;
  }

  #fromClient(chunk: Buffer): void {
    if (this.#held || this.#dropAt !== undefined) return;
    this.#commands = Buffer.concat([this.#commands, chunk]);
    let forward = 0;
    for (;;) {
      const read = readCommand(this.#commands.subarray(forward));
      if (!read) break;
      const { command } = read;
      // A connection in subscriber mode gets pushes, not one reply per command: from its first
      // SUBSCRIBE on, only a hold can match (one of its SUBSCRIBEs, say), never a drop.
      const subscribing = ['SUBSCRIBE', 'PSUBSCRIBE', 'SSUBSCRIBE', 'MONITOR'].includes(command[0] ?? '');
      const arm = this.#subscribed && !subscribing ? undefined : this.takeArm(command, this.#subscribed || subscribing);
      if (subscribing) this.#subscribed = true;
      if (arm?.action === 'hold') {
        this.#held = true;
        this.upstream.write(this.#commands.subarray(0, forward));
        this.#commands = Buffer.alloc(0);
        arm.done();
        return;
      }
      forward += read.end;
      this.#sent += 1;
      if (arm?.action === 'drop') {
        this.#dropAt = this.#sent - 1;
        this.#dropArm = arm;
        this.upstream.write(this.#commands.subarray(0, forward));
        this.#commands = Buffer.alloc(0);
        return;
      }
    }
    if (forward > 0) this.upstream.write(this.#commands.subarray(0, forward));
    this.#commands = this.#commands.subarray(forward);
  }

  #fromServer(chunk: Buffer): void {
    if (this.#subscribed) {
      this.client.write(chunk);
      return;
    }
    this.#replies = Buffer.concat([this.#replies, chunk]);
    let forward = 0;
    for (;;) {
      const end = valueEnd(this.#replies, forward);
      if (end < 0) break;
      if (this.#dropAt !== undefined && this.#answered === this.#dropAt) {
        this.client.write(this.#replies.subarray(0, forward));
        this.close();
        this.#dropArm?.done();
        return;
      }
      forward = end;
      this.#answered += 1;
    }
    if (forward > 0) this.client.write(this.#replies.subarray(0, forward));
    this.#replies = this.#replies.subarray(forward);
  }
}

/**
 * Starts a {@link RedisProxy} in front of the Redis servers at `upstreams` (`host:port` each),
 * one listening port on 127.0.0.1 per upstream.
 */
export async function startRedisProxy(upstreams: readonly string[]): Promise<RedisProxy> {
  const servers: Server[] = [];
  const connections = new Set<ProxiedConnection>();
  const addresses = new Map<string, { host: string; port: number }>();
  let arm: Arm | undefined;
  const takeArm = (command: ProxiedCommand, holdOnly: boolean): Arm | undefined => {
    if (!arm || (holdOnly && arm.action !== 'hold') || !arm.match(command)) return undefined;
    arm.left -= 1;
    if (arm.left > 0) return undefined;
    const taken = arm;
    arm = undefined;
    return taken;
  };
  for (const upstream of upstreams) {
    const colon = upstream.lastIndexOf(':');
    const host = upstream.slice(0, colon);
    const port = Number(upstream.slice(colon + 1));
    const server = createServer((client) => {
      client.setNoDelay(true);
      const socket = connect({ host, port });
      socket.setNoDelay(true);
      const connection = new ProxiedConnection(client, socket, takeArm);
      connections.add(connection);
      client.on('close', () => connections.delete(connection));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    servers.push(server);
    addresses.set(upstream, { host: '127.0.0.1', port: (server.address() as AddressInfo).port });
  }
  const armed = (action: Arm['action'], match: CommandMatch, nth: number): Promise<void> =>
    new Promise((resolve) => {
      arm = { action, match, left: nth, done: resolve };
    });
  return {
    addresses,
    dropAfterReply: (match, nth = 1) => armed('drop', match, nth),
    holdBefore: (match, nth = 1) => armed('hold', match, nth),
    closeHeld() {
      for (const connection of connections) if (connection.held) connection.close();
    },
    async close() {
      for (const connection of connections) connection.close();
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    },
  };
}

/** A connection that goes through a {@link RedisProxy}, and the proxy. */
export interface ProxiedRedis {
  readonly redis: TestRedis;
  readonly proxy: RedisProxy;
  /**
   * How a child process reaches Redis through the proxy, as environment variables:
   * `REDIS_URL` (the run's URL with the proxy in place of the server), or on a cluster
   * `PROXY_SEEDS`, `PROXY_NAT_MAP` and `PROXY_REDIS_OPTIONS` (JSON) for an ioredis `Cluster`.
   */
  readonly childEnv: Record<string, string>;
}

/**
 * Opens a connection to the run's Redis (`url`, the test's `redisUrl`) through a
 * {@link RedisProxy}: on a cluster, the proxy fronts every node and the client reaches the
 * nodes through it (its `natMap`). `through` is a connection to the same Redis, to read the
 * cluster's nodes. The caller closes both the connection and the proxy.
 */
export async function openProxiedRedis(url: string, through: TestRedis, options: OpenRedisOptions = {}): Promise<ProxiedRedis> {
  if (!isClusterUrl(url)) {
    const parsed = new URL(url);
    const proxy = await startRedisProxy([`${parsed.hostname}:${parsed.port || 6379}`]);
    const [address] = [...proxy.addresses.values()];
    parsed.hostname = address?.host ?? '127.0.0.1';
    parsed.port = String(address?.port);
    return { redis: openRedis(parsed.toString(), options), proxy, childEnv: { REDIS_URL: parsed.toString() } };
  }
  const slots = (await (through as Cluster).cluster('SLOTS')) as [number, number, ...[string, number, ...unknown[]][]][];
  const nodes = [...new Set(slots.flatMap(([, , ...hosts]) => hosts.map(([host, port]) => `${host}:${port}`)))];
  const proxy = await startRedisProxy(nodes);
  const { username, password, tls } = parseClusterUrl(url);
  const redisOptions: OpenRedisOptions = { ...options };
  if (username !== undefined) redisOptions.username = username;
  if (password !== undefined) redisOptions.password = password;
  if (tls) redisOptions.tls = {};
  const natMap = Object.fromEntries(proxy.addresses);
  const redis = new Cluster([...proxy.addresses.values()], {
    redisOptions,
    natMap,
    maxRedirections: 32,
    retryDelayOnClusterDown: 200,
    retryDelayOnFailover: 200,
    ...(options.lazyConnect === undefined ? {} : { lazyConnect: options.lazyConnect }),
  });
  const childEnv = { PROXY_SEEDS: JSON.stringify([...proxy.addresses.values()]), PROXY_NAT_MAP: JSON.stringify(natMap), PROXY_REDIS_OPTIONS: JSON.stringify(redisOptions) };
  return { redis, proxy, childEnv };
}
