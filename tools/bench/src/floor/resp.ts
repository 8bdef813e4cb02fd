/**
 * A minimal RESP2 codec for the floor benchmark: commands out as arrays of bulk strings, replies
 * in through an incremental parser that takes socket chunks as they come and hands back every
 * reply completed so far. No client library sits between the loop and the socket, so what the
 * loop costs in Node is the protocol's cost and ours, nothing else.
 */

/** A reply as the parser hands it over: bulk strings are UTF-8 text; nulls (`$-1`, `*-1`) are `null`. */
export type RespValue = string | number | null | RespError | RespValue[];

/** An error reply (`-ERR ...`): a value, not thrown, so that the caller fails the one command it answers. */
export class RespError extends Error {
  override readonly name = 'RespError';
}

/** Bytes that are not RESP: the stream cannot be read further. */
export class RespProtocolError extends Error {
  override readonly name = 'RespProtocolError';
}

const CR = 13;
const LF = 10;

/**
 * A command as RESP: `*<count>\r\n` then `$<bytes>\r\n<arg>\r\n` per argument, written into one
 * Buffer sized up front.
 */
export function encodeCommand(args: readonly string[]): Buffer {
  const lengths = new Array<number>(args.length);
  let size = 3 + String(args.length).length;
  for (let i = 0; i < args.length; i += 1) {
    const bytes = Buffer.byteLength(args[i] as string);
    lengths[i] = bytes;
    size += 5 + String(bytes).length + bytes;
  }
  const out = Buffer.allocUnsafe(size);
  let at = out.write(`*${args.length}\r\n`, 0, 'latin1');
  for (let i = 0; i < args.length; i += 1) {
    at += out.write(`$${lengths[i] as number}\r\n`, at, 'latin1');
    at += out.write(args[i] as string, at, 'utf8');
    out[at] = CR;
    out[at + 1] = LF;
    at += 2;
  }
  return out;
}

/** An array still being read: its elements so far and how many it has in all. */
interface OpenArray {
  readonly items: RespValue[];
  readonly length: number;
}

/** Thrown inside the parser when the buffer ends mid-value; caught in {@link RespParser.feed}. */
const INCOMPLETE = Symbol('incomplete');

/**
 * Reads replies from a byte stream fed in chunks of any size. The arrays open at the end of a
 * chunk stay on a stack, so a value completed earlier is never read twice; a value cut off is
 * read again from its first byte once more bytes came (and a bulk string that needs many chunks
 * waits until all its bytes are in before they are joined, once).
 */
export class RespParser {
  #buffer: Buffer = Buffer.alloc(0);
  #offset = 0;
  /** Chunks held back while a value known to need `#need` bytes more waits for them. */
  #held: Buffer[] = [];
  #heldBytes = 0;
  #need = 0;
  readonly #stack: OpenArray[] = [];

  /** Takes the next chunk of the stream; returns the replies it completed, in order. */
  feed(chunk: Buffer): RespValue[] {
    if (this.#need > 0) {
      this.#held.push(chunk);
      this.#heldBytes += chunk.length;
      if (this.#heldBytes < this.#need) return [];
      chunk = Buffer.concat([this.#buffer.subarray(this.#offset), ...this.#held]);
      this.#held = [];
      this.#heldBytes = 0;
      this.#need = 0;
    } else if (this.#offset < this.#buffer.length) {
      chunk = Buffer.concat([this.#buffer.subarray(this.#offset), chunk]);
    }
    this.#buffer = chunk;
    this.#offset = 0;
    const replies: RespValue[] = [];
    while (this.#offset < this.#buffer.length) {
      const start = this.#offset;
      let value: RespValue | OpenArray;
      try {
        value = this.#readValue();
      } catch (error) {
        if (error !== INCOMPLETE) throw error;
        this.#offset = start;
        break;
      }
      this.#settle(value, replies);
    }
    if (this.#offset >= this.#buffer.length) {
      this.#buffer = Buffer.alloc(0);
      this.#offset = 0;
    }
    return replies;
  }

  /** True when no part of a reply is waiting for more bytes. */
  get idle(): boolean {
    return this.#stack.length === 0 && this.#offset >= this.#buffer.length && this.#heldBytes === 0;
  }

  /** Puts a value read into the array open on top of the stack, closing the arrays it fills; a top-level value is a reply. */
  #settle(value: RespValue | OpenArray, replies: RespValue[]): void {
    let done: RespValue;
    if (isOpenArray(value)) {
      if (value.length > 0) {
        this.#stack.push(value);
        return;
      }
      done = value.items;
    } else {
      done = value;
    }
    for (;;) {
      const top = this.#stack.at(-1);
      if (top === undefined) {
        replies.push(done);
        return;
      }
      top.items.push(done);
      if (top.items.length < top.length) return;
      this.#stack.pop();
      done = top.items;
    }
  }

  /** One value at the offset: a scalar, or the opening of a non-null array. */
  #readValue(): RespValue | OpenArray {
    const buffer = this.#buffer;
    const type = buffer[this.#offset];
    const lineEnd = this.#lineEnd(this.#offset + 1);
    const lineStart = this.#offset + 1;
    this.#offset = lineEnd + 2;
    switch (type) {
      case 0x2b: // '+'
        return buffer.toString('utf8', lineStart, lineEnd);
      case 0x2d: // '-'
        return new RespError(buffer.toString('utf8', lineStart, lineEnd));
      case 0x3a: // ':'
        return this.#integer(lineStart, lineEnd);
      case 0x24: {
        // '$'
        const bytes = this.#integer(lineStart, lineEnd);
        if (bytes === -1) return null;
        if (bytes < 0) throw new RespProtocolError(`bad bulk string length ${bytes}`);
        const end = this.#offset + bytes;
        if (end + 2 > buffer.length) {
          this.#need = end + 2 - buffer.length;
          throw INCOMPLETE;
        }
        if (buffer[end] !== CR || buffer[end + 1] !== LF) throw new RespProtocolError('bulk string not followed by CRLF');
        const text = buffer.toString('utf8', this.#offset, end);
        this.#offset = end + 2;
        return text;
      }
      case 0x2a: {
        // '*'
        const length = this.#integer(lineStart, lineEnd);
        if (length === -1) return null;
        if (length < 0) throw new RespProtocolError(`bad array length ${length}`);
        return { items: [], length };
      }
      default:
        throw new RespProtocolError(`unexpected type byte 0x${(type as number).toString(16)}`);
    }
  }

  /** Where the CRLF ending the line from `from` starts; INCOMPLETE when it is not in the buffer yet. */
  #lineEnd(from: number): number {
    const buffer = this.#buffer;
    const at = buffer.indexOf(CR, from);
    if (at < 0 || at + 1 >= buffer.length) throw INCOMPLETE;
    if (buffer[at + 1] !== LF) throw new RespProtocolError('CR not followed by LF');
    return at;
  }

  /** The decimal integer in `[from, to)`, digits only after an optional minus sign. */
  #integer(from: number, to: number): number {
    const buffer = this.#buffer;
    let i = from;
    const negative = buffer[i] === 0x2d;
    if (negative) i += 1;
    if (i >= to) throw new RespProtocolError('empty integer');
    let n = 0;
    for (; i < to; i += 1) {
      const digit = (buffer[i] as number) - 0x30;
      if (digit < 0 || digit > 9) throw new RespProtocolError(`bad integer ${JSON.stringify(buffer.toString('latin1', from, to))}`);
      n = n * 10 + digit;
    }
    return negative ? -n : n;
  }
}

function isOpenArray(value: RespValue | OpenArray): value is OpenArray {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof RespError);
}
