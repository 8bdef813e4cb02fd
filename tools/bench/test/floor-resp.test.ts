import { describe, expect, test } from 'vitest';
import { encodeCommand, RespError, RespParser, RespProtocolError, type RespValue } from '../src/floor/resp.ts';

/** Every reply kind once, nested arrays, nulls and multi-byte text included, and the values it stands for. */
const STREAM = Buffer.from(
  [
    '+OK\r\n',
    '-ERR Function not found\r\n',
    ':42\r\n',
    ':-7\r\n',
    '$5\r\nhello\r\n',
    '$0\r\n\r\n',
    '$-1\r\n',
    '$6\r\nh\u00e9\u00e9!\r\n',
    '$4\r\na\r\nb\r\n',
    '*0\r\n',
    '*-1\r\n',
    '*3\r\n:1\r\n*2\r\n$1\r\nx\r\n*-1\r\n*0\r\n',
    '*2\r\n*1\r\n*1\r\n:5\r\n-WRONGTYPE nope\r\n',
    '*4\r\n:1700000000000\r\n:-1\r\n$16\r\n0123456789abcdef\r\n$-1\r\n',
  ].join(''),
  'utf8',
);

const EXPECTED: unknown[] = [
  'OK',
  new RespError('ERR Function not found'),
  42,
  -7,
  'hello',
  '',
  null,
  'h\u00e9\u00e9!',
  'a\r\nb',
  [],
  null,
  [1, ['x', null], []],
  [[[5]], new RespError('WRONGTYPE nope')],
  [1_700_000_000_000, -1, '0123456789abcdef', null],
];

/** Replies as plain data: an error reply as `{ error: message }`, so that equality compares messages. */
function plain(value: RespValue): unknown {
  if (value instanceof RespError) return { error: value.message };
  if (Array.isArray(value)) return value.map(plain);
  return value;
}

function plainExpected(value: unknown): unknown {
  if (value instanceof RespError) return { error: value.message };
  if (Array.isArray(value)) return value.map(plainExpected);
  return value;
}

function feedAll(parser: RespParser, chunks: readonly Buffer[]): RespValue[] {
  return chunks.flatMap((chunk) => parser.feed(chunk));
}

describe('encodeCommand', () => {
  test('writes an array of bulk strings, lengths in bytes', () => {
    expect(encodeCommand(['SET', 'k', 'v']).toString('latin1')).toBe('*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n');
    expect(encodeCommand(['ECHO', 'h\u00e9', '']).equals(Buffer.from('*3\r\n$4\r\nECHO\r\n$3\r\nh\u00e9\r\n$0\r\n\r\n', 'utf8'))).toBe(true);
  });

  test('what it writes, read back as a reply, is the command itself', () => {
    const args = ['FCALL', 'jobs_x_complete_and_claim', '9', 'queue:{q}:pending', 'queue:{q}:job:', 'null', '{"n":1,"s":"\u00e9\u20ac"}', 'a'.repeat(10_000)];
    expect(new RespParser().feed(encodeCommand(args))).toEqual([args]);
  });
});

describe('RespParser', () => {
  test('reads every kind of reply from one chunk, in order', () => {
    const parser = new RespParser();
    expect(parser.feed(STREAM).map(plain)).toEqual(EXPECTED.map(plainExpected));
    expect(parser.idle).toBe(true);
  });

  test('an error reply is a RespError value, not a throw', () => {
    const [reply] = new RespParser().feed(Buffer.from('-NOSCRIPT No matching script\r\n'));
    expect(reply).toBeInstanceOf(RespError);
    expect((reply as RespError).message).toBe('NOSCRIPT No matching script');
  });

  test('the stream split in two at every byte position gives the same replies', () => {
    for (let at = 0; at <= STREAM.length; at += 1) {
      const parser = new RespParser();
      const replies = feedAll(parser, [STREAM.subarray(0, at), STREAM.subarray(at)]);
      expect(replies.map(plain), `split at ${at}`).toEqual(EXPECTED.map(plainExpected));
      expect(parser.idle, `split at ${at}`).toBe(true);
    }
  });

  test('the stream fed one byte at a time gives the same replies, each as soon as its last byte is in', () => {
    const parser = new RespParser();
    const replies: RespValue[] = [];
    const ends: number[] = [];
    for (let i = 0; i < STREAM.length; i += 1) {
      const got = parser.feed(STREAM.subarray(i, i + 1));
      replies.push(...got);
      for (let k = 0; k < got.length; k += 1) ends.push(i + 1);
    }
    expect(replies.map(plain)).toEqual(EXPECTED.map(plainExpected));
    // A reply comes out with its last byte: the ends are where each reply's bytes end.
    let offset = 0;
    const expectedEnds = EXPECTED.map((value) => {
      offset += Buffer.byteLength(encodeValue(value));
      return offset;
    });
    expect(ends).toEqual(expectedEnds);
  });

  test('a large bulk string in many chunks is read whole', () => {
    const text = 'x'.repeat(200_000);
    const bytes = Buffer.from(`*2\r\n$${text.length}\r\n${text}\r\n:9\r\n`);
    const parser = new RespParser();
    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += 1_000) chunks.push(bytes.subarray(i, i + 1_000));
    expect(feedAll(parser, chunks)).toEqual([[text, 9]]);
    expect(parser.idle).toBe(true);
  });

  test('a reply not complete yet is held, not handed back', () => {
    const parser = new RespParser();
    expect(parser.feed(Buffer.from('*2\r\n:1\r\n$3\r\nab'))).toEqual([]);
    expect(parser.idle).toBe(false);
    expect(parser.feed(Buffer.from('c\r\n+OK\r\n'))).toEqual([[1, 'abc'], 'OK']);
  });

  test.each([
    ['an unknown type byte', '!oops\r\n'],
    ['a non-numeric integer', ':12a\r\n'],
    ['an empty integer', ':\r\n'],
    ['a negative bulk length other than -1', '$-2\r\n'],
    ['a negative array length other than -1', '*-3\r\n'],
    ['a bulk string longer than its length', '$2\r\nabc\r\n'],
    ['a CR without LF', '+OK\rX\n'],
  ])('rejects %s with a protocol error', (_name, bytes) => {
    expect(() => new RespParser().feed(Buffer.from(bytes))).toThrow(RespProtocolError);
  });
});

/** A value as RESP, to know where each reply of STREAM ends. */
function encodeValue(value: unknown): string {
  if (value === null) return '$-1\r\n';
  if (value instanceof RespError) return `-${value.message}\r\n`;
  if (typeof value === 'number') return `:${value}\r\n`;
  if (typeof value === 'string') return value === 'OK' ? '+OK\r\n' : `$${Buffer.byteLength(value)}\r\n${value}\r\n`;
  return `*${(value as unknown[]).length}\r\n${(value as unknown[]).map(encodeValue).join('')}`;
}
