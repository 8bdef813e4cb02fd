import { describe, expect, test } from 'vitest';
import { recoverFunctions, usesFunctions } from '../src/function-library.ts';
import type { RedisClient } from '../src/redis-connection.ts';

/** A client whose FUNCTION LOAD fails with `message`, counting its loads. */
function clientFailingLoad(message: string): { client: RedisClient; loads: () => number } {
  let loads = 0;
  const client = {
    call: async () => {
      loads += 1;
      throw new Error(message);
    },
  } as unknown as RedisClient;
  return { client, loads: () => loads };
}

const missing = new Error('ERR Function not found');

describe('loading the function library', () => {
  test.each(['Connection is closed.', 'LOADING Redis is loading the dataset in memory', 'BUSY Redis is busy running a script.', 'READONLY You can\'t write against a read only replica.'])(
    'a load that fails for a passing reason (%s) fails the call and keeps functions: the next call loads again',
    async (message) => {
      const { client, loads } = clientFailingLoad(message);
      await expect(recoverFunctions(client, missing)).rejects.toThrow(message);
      expect(usesFunctions(client)).toBe(true);
      await expect(recoverFunctions(client, missing)).rejects.toThrow(message);
      expect(loads()).toBe(2);
    },
  );

  test.each(["NOPERM User jobs has no permissions to run the 'function|load' command", 'OOM command not allowed when used memory > \'maxmemory\'.', "ERR unknown command 'FUNCTION'"])(
    'a load the server refuses (%s) turns the client to EVALSHA, and the call is sent again',
    async (message) => {
      const { client } = clientFailingLoad(message);
      await expect(recoverFunctions(client, missing)).resolves.toBe(true);
      expect(usesFunctions(client)).toBe(false);
    },
  );

  test('an FCALL the user may not send turns the client to EVALSHA without a load', async () => {
    const { client, loads } = clientFailingLoad('unused');
    await expect(recoverFunctions(client, new Error("NOPERM User jobs has no permissions to run the 'fcall' command"))).resolves.toBe(true);
    expect(usesFunctions(client)).toBe(false);
    expect(loads()).toBe(0);
  });

  test('any other error is not the library\'s: the call fails with it', async () => {
    const { client, loads } = clientFailingLoad('unused');
    await expect(recoverFunctions(client, new Error('WRONGTYPE Operation against a key holding the wrong kind of value'))).resolves.toBe(false);
    expect(usesFunctions(client)).toBe(true);
    expect(loads()).toBe(0);
  });
});
