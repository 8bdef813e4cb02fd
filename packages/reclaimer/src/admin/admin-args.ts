import { parseArgs } from 'node:util';
import { assertJobId, assertQueueName, isJobsError, type ListState } from '@jobs/core';
import { parseWholeNumber, UsageError } from '../usage-error.ts';

/** The help text of `jobs`. */
export const ADMIN_HELP = `Usage: jobs [options] <command> [arguments]

Looks after @jobs queues without knowing their Redis keys.

Commands:
  queues                   the queues found in Redis, with their depths
  stats                    depths and counters of --queue (of every queue without it)
  ls <state>               jobs in pending, processing, delayed, completed or failed
  show <id>                one job: every field of its hash, and its timeline (event log)
  events                   the event log of --queue: from --from ID (default: the oldest kept),
                           --limit entries; --follow keeps printing new ones until Ctrl-C
                           (--partition N for a partitioned queue)
  retry <id>...            put failed jobs back on pending, with fresh attempts
  retry --all-failed       ... every job in the failed list (the dead letters)
  cancel <id>              cancel a pending or delayed job
  purge --yes              delete every job and key of --queue
  acl <user>               the ACL SETUSER line of a user limited to --queue (repeat -q for more;
                           --partitions N for partitioned queues)

Options:
  -q, --queue NAME         the queue [JOBS_QUEUE]
  --redis-url URL          Redis to use [REDIS_URL] (default redis://127.0.0.1:6379;
                           a cluster: redis+cluster://host:port,host:port)
  --limit N, --offset N    page of ls (default 20, 0)
  --json                   print JSON, for scripts
  --yes                    confirm a destructive command
  -h, --help               show this help

Exit codes: 0 done, 1 failed (no such job, Redis unreachable...), 2 wrong arguments.`;

/** A parsed `jobs` command line. */
export type AdminCommand =
  | { name: 'help' }
  | { name: 'queues' }
  | { name: 'stats'; queue: string | undefined }
  | { name: 'ls'; queue: string; state: ListState; limit: number; offset: number }
  | { name: 'show'; queue: string; id: string }
  | { name: 'events'; queue: string; from: string; follow: boolean; limit: number; partition: number | undefined }
  | { name: 'retry'; queue: string; ids: string[] }
  | { name: 'retry-all'; queue: string }
  | { name: 'cancel'; queue: string; id: string }
  | { name: 'purge'; queue: string }
  | { name: 'acl'; user: string; queues: string[]; partitions: number };

/** What every command shares. */
export interface AdminInvocation {
  command: AdminCommand;
  redisUrl: string;
  json: boolean;
}

const STATES: readonly ListState[] = ['pending', 'processing', 'delayed', 'completed', 'failed'];

function check(assertion: () => void): void {
  try {
    assertion();
  } catch (error) {
    throw new UsageError(isJobsError(error) ? error.message : String(error));
  }
}

/** Reads the command line and environment; throws {@link UsageError} on anything off. */
export function parseAdminArgs(argv: readonly string[], env: NodeJS.ProcessEnv): AdminInvocation {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: true,
      options: {
        queue: { type: 'string', short: 'q', multiple: true },
        'redis-url': { type: 'string' },
        limit: { type: 'string' },
        partitions: { type: 'string' },
        offset: { type: 'string' },
        json: { type: 'boolean', default: false },
        yes: { type: 'boolean', default: false },
        'all-failed': { type: 'boolean', default: false },
        follow: { type: 'boolean', short: 'f', default: false },
        from: { type: 'string' },
        partition: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const redisUrl = values['redis-url'] ?? env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  if (!/^rediss?(\+cluster)?:\/\//.test(redisUrl)) throw new UsageError('--redis-url must start with redis://, rediss://, redis+cluster:// or rediss+cluster://');
  const json = values.json;
  const [name, ...args] = positionals;
  if (values.help || name === undefined || name === 'help') return { command: { name: 'help' }, redisUrl, json };

  const queues = values.queue ?? (env.JOBS_QUEUE ? [env.JOBS_QUEUE] : []);
  for (const queue of queues) check(() => assertQueueName(queue, '--queue'));
  const queueFlag = queues[0];
  const needQueue = (): string => {
    if (queueFlag === undefined) throw new UsageError(`${name} needs --queue NAME (or JOBS_QUEUE)`);
    return queueFlag;
  };
  const oneId = (): string => {
    if (args.length !== 1) throw new UsageError(`${name} takes one job id`);
    const id = args[0] as string;
    check(() => assertJobId(id));
    return id;
  };
  const noArgs = (): void => {
    if (args.length > 0) throw new UsageError(`${name} takes no arguments, got ${args.join(' ')}`);
  };

  switch (name) {
    case 'queues':
      noArgs();
      return { command: { name: 'queues' }, redisUrl, json };
    case 'stats':
      noArgs();
      return { command: { name: 'stats', queue: queueFlag }, redisUrl, json };
    case 'ls': {
      const state = args[0] as ListState;
      if (args.length !== 1 || !STATES.includes(state)) throw new UsageError(`ls takes one of ${STATES.join(', ')}`);
      return {
        command: {
          name: 'ls',
          queue: needQueue(),
          state,
          limit: parseWholeNumber('--limit', values.limit, 20, 1, 1_000),
          offset: parseWholeNumber('--offset', values.offset, 0, 0, Number.MAX_SAFE_INTEGER),
        },
        redisUrl,
        json,
      };
    }
    case 'events': {
      noArgs();
      const from = values.from ?? (values.follow ? '$' : '0');
      if (from !== '$' && !/^\d{1,20}(-\d{1,20})?$/.test(from)) throw new UsageError(`--from takes an event id (like 1700000000000-0), 0 or $, got ${from}`);
      const partition = values.partition === undefined ? undefined : parseWholeNumber('--partition', values.partition, 0, 0, 1_023);
      return { command: { name: 'events', queue: needQueue(), from, follow: values.follow, limit: parseWholeNumber('--limit', values.limit, 100, 1, 100_000), partition }, redisUrl, json };
    }
    case 'show':
      return { command: { name: 'show', queue: needQueue(), id: oneId() }, redisUrl, json };
    case 'cancel':
      return { command: { name: 'cancel', queue: needQueue(), id: oneId() }, redisUrl, json };
    case 'retry': {
      const queue = needQueue();
      if (values['all-failed']) {
        noArgs();
        return { command: { name: 'retry-all', queue }, redisUrl, json };
      }
      if (args.length === 0) throw new UsageError('retry takes job ids, or --all-failed');
      for (const id of args) check(() => assertJobId(id));
      return { command: { name: 'retry', queue, ids: args }, redisUrl, json };
    }
    case 'purge': {
      const queue = needQueue();
      noArgs();
      if (!values.yes) throw new UsageError(`purge deletes every job and key of queue "${queue}": add --yes to go ahead`);
      return { command: { name: 'purge', queue }, redisUrl, json };
    }
    case 'acl': {
      if (queues.length === 0) throw new UsageError('acl needs --queue NAME (repeat it for more queues)');
      const user = args[0];
      if (args.length !== 1 || user === undefined || !/^[A-Za-z0-9._-]{1,64}$/.test(user)) throw new UsageError('acl takes one user name (letters, digits, ".", "_", "-")');
      return { command: { name: 'acl', user, queues, partitions: parseWholeNumber('--partitions', values.partitions, 1, 1, 1_024) }, redisUrl, json };
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(name)}`);
  }
}
