import { connect, type Socket } from 'node:net';
import { encodeCommand, RespError, RespParser, type RespValue } from './resp.ts';

/** A command sent and not answered yet. */
interface Waiting {
  resolve(value: RespValue): void;
  reject(error: Error): void;
}

/**
 * One plain TCP connection to Redis speaking RESP2 through {@link RespParser}: commands go out
 * in the order sent and their replies come back in that order, so a FIFO of promises is all the
 * bookkeeping there is. No reconnects, timeouts or retries: the floor benchmark fails loudly
 * instead, and any error closes the connection for good.
 */
export class RespSocket {
  readonly #socket: Socket;
  readonly #parser = new RespParser();
  readonly #waiting: Waiting[] = [];
  #failure: Error | undefined;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.#read(chunk));
    socket.on('error', (error) => this.#fail(error));
    socket.on('close', () => this.#fail(new Error('the Redis connection closed')));
  }

  /** Opens a connection to `url` (`redis://host:port`, no TLS, no password) and resolves once it is up. */
  static open(url: string): Promise<RespSocket> {
    const { hostname, port, protocol } = new URL(url);
    if (protocol !== 'redis:') return Promise.reject(new Error(`only redis:// URLs are supported, got ${url}`));
    return new Promise((resolve, reject) => {
      const socket = connect({ host: hostname, port: Number(port || 6379) });
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new RespSocket(socket));
      });
    });
  }

  /** Sends one command; resolves with its reply, or rejects with its error reply (a {@link RespError}). */
  send(args: readonly string[]): Promise<RespValue> {
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      this.#socket.write(encodeCommand(args));
    });
  }

  /** Closes the connection; commands still waiting are rejected. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.#socket.destroyed) return resolve();
      this.#socket.once('close', () => resolve());
      this.#socket.end();
    });
  }

  #read(chunk: Buffer): void {
    let replies: RespValue[];
    try {
      replies = this.#parser.feed(chunk);
    } catch (error) {
      this.#fail(error as Error);
      this.#socket.destroy();
      return;
    }
    for (const reply of replies) {
      const waiting = this.#waiting.shift();
      if (waiting === undefined) {
        this.#fail(new Error('a reply came that no command asked for'));
        this.#socket.destroy();
        return;
      }
      if (reply instanceof RespError) waiting.reject(reply);
      else waiting.resolve(reply);
    }
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const waiting of this.#waiting.splice(0)) waiting.reject(this.#failure);
  }
}
