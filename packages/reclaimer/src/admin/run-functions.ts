import { FUNCTION_LIBRARY_NAME, libraryOn, loadLibrary, type LibraryOnNode } from '@jobs/core/internal';
import type { RedisClient } from '@jobs/core';
import { Cluster, type Redis } from 'ioredis';
import type { AdminResult } from './run-admin.ts';

/** `jobsctl functions load [--replace]` and `jobsctl functions check`. */
export interface FunctionsCommand {
  readonly name: 'functions';
  readonly action: 'load' | 'check';
  readonly replace: boolean;
}

const FOUND: Readonly<Record<LibraryOnNode, string>> = {
  ours: 'holds it',
  missing: 'does not hold it',
  foreign: 'holds a DIFFERENT library under its name (not used: clients run EVALSHA there)',
};

/**
 * Loads or checks the function library on the server, or on every master of a cluster (a
 * replica gets it from its master). A node holding a different library under our name fails
 * the command unless `--replace` put ours there.
 */
export async function runFunctionsCommand(command: FunctionsCommand, client: RedisClient): Promise<AdminResult> {
  if (command.action === 'load') {
    const loads = await loadLibrary(client, { replace: command.replace });
    const lines = loads.map(({ node, found, loaded }) =>
      loaded ? `${node}: loaded ${FUNCTION_LIBRARY_NAME}${found === 'foreign' ? ' (replaced a different library)' : ''}` : `${node}: ${FOUND[found]}${found === 'foreign' ? '; jobsctl functions load --replace puts ours there' : ''}`,
    );
    const ok = loads.every(({ found, loaded }) => loaded || found === 'ours');
    return { code: ok ? 0 : 1, text: lines.join('\n'), json: { library: FUNCTION_LIBRARY_NAME, nodes: loads } };
  }
  if (client instanceof Cluster && client.status !== 'ready') await client.call('CLUSTER', 'INFO');
  const nodes: Redis[] = client instanceof Cluster ? client.nodes('master') : [client];
  const found = await Promise.all(nodes.map(async (node) => ({ node: `${node.options.host ?? '127.0.0.1'}:${node.options.port ?? 6379}`, found: await libraryOn(node) })));
  const ok = found.every((entry) => entry.found === 'ours');
  return { code: ok ? 0 : 1, text: found.map(({ node, found: what }) => `${node}: ${FOUND[what]} (${FUNCTION_LIBRARY_NAME})`).join('\n'), json: { library: FUNCTION_LIBRARY_NAME, nodes: found } };
}
