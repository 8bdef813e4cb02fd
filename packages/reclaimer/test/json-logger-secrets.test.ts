import { describe, expect, test } from 'vitest';
import { jsonLogger } from '../src/index.ts';

const SECRET = 'hunter2-json-logger';

/** An error as ioredis makes it: the failed command, with its arguments, hung on it. */
function ioredisError(): Error {
  return Object.assign(new Error('WRONGPASS invalid username-password pair or user is disabled.'), { name: 'ReplyError', command: { name: 'hello', args: ['3', 'AUTH', 'app', SECRET] } });
}

describe("the daemon's JSON logger", () => {
  test('writes a raw ioredis error typed, and neither it nor an error that wraps it as cause shows the arguments', () => {
    const lines: string[] = [];
    const log = jsonLogger({ write: (line) => void lines.push(line) });
    log.error({ err: ioredisError() }, 'raw');
    log.error({ err: new Error('a caller wrapped it', { cause: ioredisError() }) }, 'wrapped');
    expect(lines).toHaveLength(2);
    expect(lines.join('\n')).not.toContain(SECRET);
    const [raw, wrapped] = lines.map((line) => JSON.parse(line) as { err: Record<string, unknown> });
    expect(raw?.err).toMatchObject({ code: 'JOBS_REDIS_AUTH', message: expect.stringContaining('WRONGPASS') });
    // pino folds the causes' messages into the line's; the command stays out.
    expect(wrapped?.err).toMatchObject({ message: expect.stringContaining('a caller wrapped it') });
    expect(JSON.stringify(wrapped?.err)).not.toContain('"args"');
  });
});
