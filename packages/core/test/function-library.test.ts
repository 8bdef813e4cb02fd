import { redisTest, scriptsMode } from '@jobs/testing';
import { Cluster } from 'ioredis';
import { describe, expect, test } from 'vitest';
import { libraryChecked, loadLibrary, recoverFunctions, usesFunctions } from '../src/function-library.ts';
import { Queue } from '../src/index.ts';
import { kinds } from './fixtures.ts';
import { FUNCTION_LIBRARY } from '../src/generated/library.ts';
import type { RedisClient } from '../src/redis-connection.ts';

type Reply = unknown | Error;

/**
 * A client that answers FUNCTION LIST and FUNCTION LOAD with the replies given (an Error is
 * thrown; `listAfterLoad`, when given, answers FUNCTION LIST once a load succeeded), recording
 * every command it was sent.
 */
function fakeClient(replies: { list: Reply; load?: Reply; listAfterLoad?: Reply }): { client: RedisClient; sent: string[] } {
  const sent: string[] = [];
  let loaded = false;
  const client = {
    call: async (...args: string[]) => {
      sent.push(`${args.slice(0, 2).join(' ')}${args.includes('REPLACE') ? ' REPLACE' : ''}`);
      const list = loaded && 'listAfterLoad' in replies ? replies.listAfterLoad : replies.list;
      const reply = args[1] === 'LIST' ? list : replies.load;
      if (args[1] === 'LOAD' && !(reply instanceof Error)) loaded = true;
      if (reply instanceof Error) throw reply;
      return reply;
    },
  } as unknown as RedisClient;
  return { client, sent };
}

/**
 * A cluster client whose slot map names `stale` as its masters until it is refreshed, then
 * `fresh`; counts the refreshes.
 */
function fakeCluster(stale: RedisClient[], fresh: RedisClient[]): { client: RedisClient; refreshes: () => number } {
  let refreshed = 0;
  const client = Object.create(Cluster.prototype) as Cluster;
  Object.assign(client, {
    status: 'ready',
    nodes: () => (refreshed === 0 ? stale : fresh),
    refreshSlotsCache: (done: () => void) => {
      refreshed += 1;
      done();
    },
  });
  return { client, refreshes: () => refreshed };
}

const missing = new Error('ERR Function not found');
const readOnly = new Error("READONLY You can't write against a read only replica.");
const listed = (code: string): unknown[] => [['library_name', FUNCTION_LIBRARY.name, 'engine', 'LUA', 'functions', [], 'library_code', code]];

describe('checking the function library', () => {
  test('a library that is byte-for-byte ours is used without a load', async () => {
    const { client, sent } = fakeClient({ list: listed(FUNCTION_LIBRARY.source) });
    await libraryChecked(client);
    expect(usesFunctions(client)).toBe(true);
    expect(sent).toEqual(['FUNCTION LIST']);
  });

  test('a different library under our name is neither used nor replaced: the client takes EVALSHA', async () => {
    const { client, sent } = fakeClient({ list: listed(`${FUNCTION_LIBRARY.source}\n-- one line more`), load: 'unused' });
    await libraryChecked(client);
    expect(usesFunctions(client)).toBe(false);
    expect(sent.some((command) => command.startsWith('FUNCTION LOAD'))).toBe(false);
  });

  test('a missing library is loaded without REPLACE, then used', async () => {
    const { client, sent } = fakeClient({ list: [], load: FUNCTION_LIBRARY.name });
    await libraryChecked(client);
    expect(usesFunctions(client)).toBe(true);
    expect(sent).toEqual(['FUNCTION LIST', 'FUNCTION LOAD']);
  });

  test('a library loaded by someone else between the read and the load is read again, not taken as ours', async () => {
    const { client } = fakeClient({ list: [], load: new Error(`ERR Library '${FUNCTION_LIBRARY.name}' already exists`) });
    await libraryChecked(client);
    expect(usesFunctions(client)).toBe(false);
  });

  test.each(['Connection is closed.', 'LOADING Redis is loading the dataset in memory', 'BUSY Redis is busy running a script.'])(
    'a check that fails for a passing reason (%s) fails the call, and the next call checks again',
    async (message) => {
      const { client, sent } = fakeClient({ list: new Error(message) });
      await expect(recoverFunctions(client, missing)).rejects.toThrow(message);
      expect(usesFunctions(client)).toBe(false);
      await expect(libraryChecked(client)).rejects.toThrow(message);
      expect(sent).toHaveLength(2);
    },
  );

  test.each(["NOPERM User jobs has no permissions to run the 'function|list' command", "ERR unknown command 'FUNCTION'"])(
    'a read the server refuses (%s) turns the client to EVALSHA, and the call is sent again',
    async (message) => {
      const { client } = fakeClient({ list: new Error(message) });
      await expect(recoverFunctions(client, missing)).resolves.toBe(true);
      expect(usesFunctions(client)).toBe(false);
    },
  );

  test.each(["NOPERM User jobs has no permissions to run the 'function|load' command", "OOM command not allowed when used memory > 'maxmemory'."])(
    'a missing library the server refuses to load (%s) turns the client to EVALSHA',
    async (message) => {
      const { client } = fakeClient({ list: [], load: new Error(message) });
      await expect(recoverFunctions(client, missing)).resolves.toBe(true);
      expect(usesFunctions(client)).toBe(false);
    },
  );

  test('an FCALL the user may not send turns the client to EVALSHA without a read or a load', async () => {
    const { client, sent } = fakeClient({ list: 'unused' });
    await expect(recoverFunctions(client, new Error("NOPERM User jobs has no permissions to run the 'fcall' command"))).resolves.toBe(true);
    expect(usesFunctions(client)).toBe(false);
    expect(sent).toEqual([]);
  });

  test("any other error is not the library's: the call fails with it", async () => {
    const { client, sent } = fakeClient({ list: listed(FUNCTION_LIBRARY.source) });
    await libraryChecked(client);
    await expect(recoverFunctions(client, new Error('WRONGTYPE Operation against a key holding the wrong kind of value'))).resolves.toBe(false);
    expect(usesFunctions(client)).toBe(true);
    expect(sent).toHaveLength(1);
  });

  test('a master of a stale slot map that is a replica now (READONLY to the load) makes the check read the slot map again and load on the new master', async () => {
    const replica = fakeClient({ list: [], load: readOnly });
    const master = fakeClient({ list: [], load: FUNCTION_LIBRARY.name });
    const { client, refreshes } = fakeCluster([replica.client], [master.client]);
    await libraryChecked(client);
    expect(refreshes()).toBe(1);
    expect(master.sent).toEqual(['FUNCTION LIST', 'FUNCTION LOAD']);
    expect(usesFunctions(client)).toBe(true);
  });

  test('a node that keeps answering READONLY after the slot map was read again fails the check with that reply', async () => {
    const replica = fakeClient({ list: [], load: readOnly });
    const { client, refreshes } = fakeCluster([replica.client], [replica.client]);
    await expect(libraryChecked(client)).rejects.toThrow(/^READONLY/);
    expect(refreshes()).toBe(3);
    expect(usesFunctions(client)).toBe(false);
  });

  test("the operator's load on a stale slot map reads it again and loads on the new master, reporting that load", async () => {
    const replica = fakeClient({ list: [], load: readOnly });
    const master = fakeClient({ list: [], load: FUNCTION_LIBRARY.name, listAfterLoad: listed(FUNCTION_LIBRARY.source) });
    Object.assign(replica.client, { options: { host: '127.0.0.1', port: 7000 } });
    Object.assign(master.client, { options: { host: '127.0.0.1', port: 7001 } });
    const { client, refreshes } = fakeCluster([replica.client], [master.client]);
    await expect(loadLibrary(client)).resolves.toEqual([{ node: '127.0.0.1:7001', found: 'missing', loaded: true }]);
    expect(refreshes()).toBe(1);
  });

  test('after "Function not found" the library is read again before the next FCALL', async () => {
    const { client, sent } = fakeClient({ list: listed(FUNCTION_LIBRARY.source) });
    await libraryChecked(client);
    await expect(recoverFunctions(client, missing)).resolves.toBe(true);
    expect(usesFunctions(client)).toBe(true);
    expect(sent).toEqual(['FUNCTION LIST', 'FUNCTION LIST']);
  });
});

describe('the function library on the run\'s Redis', () => {
  // The EVALSHA pass's user may not read the library: its clients never send FCALL.
  redisTest.runIf(scriptsMode() === 'functions')('a new client sends FCALL from its first call once it read the library back, on one server or every master', async ({ redisUrl, queueName }) => {
    const queue = new Queue({ redis: redisUrl, queue: queueName, kinds });
    try {
      expect(usesFunctions(queue.client)).toBe(false);
      await queue.stats();
      expect(usesFunctions(queue.client)).toBe(true);
    } finally {
      await queue.close();
    }
  });
});
