import { assertJobId, assertQueueName, KIND_NAME_PATTERN, LIST_STATES, type ListState } from '@jobs/core';
import { Argument, type Command } from 'commander';
import { fromFlagOrEnv, newProgram, parseCommandLine, type CommandLine } from '../command-line.ts';
import { checkRedisUrl, parseWholeNumber, UsageError } from '../usage-error.ts';
import { VERSION } from '../version.ts';
import { check, kindsOption, queueOption, type GlobalFlags } from './admin-options.ts';
import { loadKinds } from './kinds-module.ts';
import { cliLabel, type AuditCommand } from './run-audit.ts';
import { addJobVerbCommands, type JobVerbCommand } from './job-verbs.ts';
import type { PauseCommand } from './run-pause.ts';
import type { FunctionsCommand } from './run-functions.ts';
import { parseDuration, type HistoryCommand } from './run-history.ts';
import type { SchedulesCommand } from './run-schedules.ts';
import type { WorkersCommand } from './run-workers.ts';
import { addWorkerOrderCommands, type WorkerOrderCommand } from './run-worker-orders.ts';
import type { BatchesCommand } from './run-batches.ts';
import type { DedupeCommand } from './run-dedupe.ts';
import { addSchedulesCommands } from './schedules-program.ts';

/** A parsed `jobsctl` command. */
export type AdminCommand =
  | { name: 'queues' }
  | { name: 'stats'; queue: string | undefined }
  | { name: 'ls'; queue: string; state: ListState; limit: number; offset: number }
  | { name: 'show'; queue: string; id: string }
  | { name: 'why'; queue: string; id: string }
  | { name: 'events'; queue: string; from: string; follow: boolean; limit: number; partition: number | undefined }
  | { name: 'retry'; queue: string; ids: string[] }
  | { name: 'retry-all'; queue: string }
  | { name: 'cancel'; queue: string; id: string }
  | { name: 'purge'; queue: string }
  | { name: 'export-failed'; queue: string; out: string | undefined }
  | { name: 'acl'; user: string; queues: string[]; partitions: number; operator: boolean }
  | AuditCommand
  | FunctionsCommand
  | HistoryCommand
  | JobVerbCommand
  | PauseCommand
  | SchedulesCommand
  | WorkersCommand
  | WorkerOrderCommand
  | BatchesCommand
  | DedupeCommand;

/** What every command shares. */
export interface AdminInvocation {
  command: AdminCommand;
  redisUrl: string;
  json: boolean;
}

const STATES: readonly ListState[] = LIST_STATES;

const AFTER = `
Environment: REDIS_URL (for --redis-url), JOBS_QUEUE (for --queue). A flag wins.
Exit codes: 0 done, 1 failed (no such queue or job, Redis unreachable...), 2 wrong arguments.
Run jobsctl <command> --help for a command's options.`;



function repeat(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

const PAUSE_HELP = `
A pause is kept in Redis until a resume: it holds across worker and Redis restarts. Once pause
returns, no worker starts a new job of the queue (or kind), including claims already waiting;
running jobs finish; enqueues go on. A kind's jobs met meanwhile are parked, and go back to the
front of their lists on resume. On a partitioned queue, every partition. jobsctl stats shows the
paused state, the paused kinds and the parked jobs.`;

/** The `jobsctl` program; each command's action hands what to run to `take`. */
function adminProgram(env: NodeJS.ProcessEnv, take: (command: AdminCommand, globals: GlobalFlags) => void): Command {
  const program = newProgram('jobsctl', VERSION, 'Looks after @jobs queues without knowing their Redis keys.')
    .option('--redis-url <url>', 'Redis to use [REDIS_URL] (default redis://127.0.0.1:6379; a cluster: redis+cluster://host:port,host:port)')
    .option('--json', 'print JSON, for scripts (times in epoch milliseconds)')
    .configureHelp({ showGlobalOptions: true })
    .addHelpText('after', AFTER);

  /** The queue from -q or JOBS_QUEUE, checked, with the source named in errors. */
  const queueOf = (flag: string | undefined): string | undefined => {
    const { raw, name } = fromFlagOrEnv(flag, '--queue', env, 'JOBS_QUEUE');
    if (raw !== undefined) check(() => assertQueueName(raw, name));
    return raw;
  };
  const needQueue = (command: string, flag: string | undefined): string => {
    const queue = queueOf(flag);
    if (queue === undefined) throw new UsageError(`${command} needs --queue NAME (or JOBS_QUEUE)`);
    return queue;
  };
  const jobId = (id: string): string => {
    check(() => assertJobId(id));
    return id;
  };
  const globals = (command: Command): GlobalFlags => command.optsWithGlobals<GlobalFlags>();
  const kindName = (kind: string | undefined): string | undefined => {
    if (kind !== undefined && !KIND_NAME_PATTERN.test(kind)) throw new UsageError(`--kind: ${JSON.stringify(kind)} is not a kind name (a letter, then up to 63 letters, digits, "_", "." or "-")`);
    return kind;
  };

  program
    .command('queues')
    .description('the queues found in Redis, with their depths')
    .action((_flags, command: Command) => take({ name: 'queues' }, globals(command)));

  program
    .command('stats')
    .description('depths and counters of a queue (of every queue without --queue); with --since, its metrics history per step')
    .addOption(queueOption())
    .option('--since <duration>', 'the metrics history of the last 30m, 24h, 14d... (up to 14d): a row per step, oldest first')
    .option('--kind <kind>', 'with --since: one kind (default every kind, summed)')
    .option('--step <duration>', 'with --since: the rows\' step (default 1m up to 1h, 1h up to 24h, else 1d); a whole number of minutes up to 24h, of hours past it')
    .addHelpText(
      'after',
      `
A queue keeps no settings in Redis: visibility, attempts and backoff belong to the producers and
workers (and to each job: jobsctl show prints a job's visibility_ms and max_attempts).
The history (the queues' metricsHistory option) counts enqueued, completed, failed and retried
jobs and the run-time percentiles of the attempts, per minute for 24 hours and per hour for 14
days, on the Redis clock. Workers add their counts once per heartbeat interval.`,
    )
    .action((flags: { queue?: string; since?: string; kind?: string; step?: string }, command: Command) => {
      if (flags.since === undefined) {
        if (flags.kind !== undefined || flags.step !== undefined) throw new UsageError('--kind and --step go with --since');
        return take({ name: 'stats', queue: queueOf(flags.queue) }, globals(command));
      }
      const sinceMs = parseDuration('--since', flags.since);
      if (sinceMs < 60_000 || sinceMs > 14 * 86_400_000) throw new UsageError(`--since takes 1m to 14d, got ${flags.since}`);
      const stepMs = flags.step === undefined ? undefined : parseDuration('--step', flags.step);
      const ringStep = sinceMs <= 86_400_000 ? 60_000 : 3_600_000;
      if (stepMs !== undefined && (stepMs % ringStep !== 0 || stepMs > sinceMs)) {
        throw new UsageError(`--step must be a whole number of ${ringStep === 60_000 ? 'minutes' : 'hours'} up to --since, got ${flags.step}`);
      }
      return take({ name: 'history', queue: needQueue('stats --since', flags.queue), sinceMs, kind: kindName(flags.kind), stepMs }, globals(command));
    });

  program
    .command('ls')
    .description('jobs in one list of a queue: pending and waiting (every job not yet started) in the order they start, processing, completed and failed newest first')
    .addArgument(new Argument('<state>', 'the list').choices(STATES))
    .addOption(queueOption())
    .option('--limit <n>', 'jobs per page, 1 to 1000 (default 20)')
    .option('--offset <n>', 'jobs to skip (default 0)')
    .action((state: ListState, flags: { queue?: string; limit?: string; offset?: string }, command: Command) =>
      take(
        {
          name: 'ls',
          queue: needQueue('ls', flags.queue),
          state,
          limit: parseWholeNumber('--limit', flags.limit, 20, 1, 1_000),
          offset: parseWholeNumber('--offset', flags.offset, 0, 0, Number.MAX_SAFE_INTEGER),
        },
        globals(command),
      ),
    );

  program
    .command('show')
    .description("one job: every field of its hash (times in ISO 8601, or epoch ms with --json), and its timeline from the event log")
    .argument('<id>', 'the job id')
    .addOption(queueOption())
    .action((id: string, flags: { queue?: string }, command: Command) => take({ name: 'show', queue: needQueue('show', flags.queue), id: jobId(id) }, globals(command)));

  program
    .command('why')
    .description('why a job is not running: its status and each reason, with its numbers (a pause, a full rate limit or cap and who holds it, its delay, the jobs ahead of it...)')
    .argument('<id>', 'the job id')
    .addOption(queueOption())
    .addHelpText(
      'after',
      `
One atomic look at the job and the queue's state; it changes nothing. Times are ISO 8601 and
relative to the look ("in 4 s"); --json prints the object queue.why() returns (epoch ms).
Exit 1 when there is no such job.`,
    )
    .action((id: string, flags: { queue?: string }, command: Command) => take({ name: 'why', queue: needQueue('why', flags.queue), id: jobId(id) }, globals(command)));

  program
    .command('events')
    .description("the queue's event log (its eventLog option): the entries after --from, or --follow them as they come")
    .addOption(queueOption())
    .option('--from <id>', 'after this entry id (0: the oldest kept; $: now) (default: 0, or $ with --follow)')
    .option('-f, --follow', 'keep printing new entries until Ctrl-C; resumes after a lost connection, and says so when the capped log dropped entries it had not read')
    .option('--limit <n>', 'most entries without --follow (default 100)')
    .option('--partition <n>', 'the partition whose log to read, for a partitioned queue (default 0)')
    .action((flags: { queue?: string; from?: string; follow?: boolean; limit?: string; partition?: string }, command: Command) => {
      const from = flags.from ?? (flags.follow ? '$' : '0');
      if (from !== '$' && !/^\d{1,20}(-\d{1,20})?$/.test(from)) throw new UsageError(`--from takes an entry id (like 1700000000000-0), 0 or $, got ${from}`);
      const partition = flags.partition === undefined ? undefined : parseWholeNumber('--partition', flags.partition, 0, 0, 1_023);
      take(
        { name: 'events', queue: needQueue('events', flags.queue), from, follow: flags.follow ?? false, limit: parseWholeNumber('--limit', flags.limit, 100, 1, 100_000), partition },
        globals(command),
      );
    });

  program
    .command('retry')
    .description('put failed jobs back on pending, with fresh attempts')
    .argument('[ids...]', 'the failed jobs')
    .addOption(queueOption())
    .option('--all-failed', 'every job in the failed list (the dead letters)')
    .action((ids: string[], flags: { queue?: string; allFailed?: boolean }, command: Command) => {
      const queue = needQueue('retry', flags.queue);
      if (flags.allFailed) {
        if (ids.length > 0) throw new UsageError(`retry --all-failed takes no ids, got ${ids.join(' ')}`);
        return take({ name: 'retry-all', queue }, globals(command));
      }
      if (ids.length === 0) throw new UsageError('retry takes job ids, or --all-failed');
      return take({ name: 'retry', queue, ids: ids.map(jobId) }, globals(command));
    });

  program
    .command('cancel')
    .description('cancel a pending or delayed job')
    .argument('<id>', 'the job id')
    .addOption(queueOption())
    .action((id: string, flags: { queue?: string }, command: Command) => take({ name: 'cancel', queue: needQueue('cancel', flags.queue), id: jobId(id) }, globals(command)));

  program
    .command('export-failed')
    .description('write the failed jobs (the dead letters) as JSON lines, newest first: keep the evidence before a purge')
    .addOption(queueOption())
    .option('--out <file>', 'a new file to write (default: stdout)')
    .addHelpText(
      'after',
      `
Each line: queue, id, kind, status, attempts, max_attempts, payload, last_error, the times in
epoch ms (enqueued_at_ms, claimed_at_ms, failed_at_ms, last_error_at_ms) and every field of the
job's hash as stored. The list is read a page at a time; --out never overwrites a file.`,
    )
    .action((flags: { queue?: string; out?: string }, command: Command) => take({ name: 'export-failed', queue: needQueue('export-failed', flags.queue), out: flags.out }, globals(command)));

  program
    .command('purge')
    .description('delete every job and key of a queue')
    .addOption(queueOption())
    .option('--yes', 'confirm: this cannot be undone (jobsctl export-failed keeps the dead letters first)')
    .action((flags: { queue?: string; yes?: boolean }, command: Command) => {
      const queue = needQueue('purge', flags.queue);
      if (!flags.yes) throw new UsageError(`purge deletes every job and key of queue "${queue}": add --yes to go ahead`);
      take({ name: 'purge', queue }, globals(command));
    });

  program
    .command('pause')
    .description('stop workers starting jobs of a queue, or of one kind of it (running jobs finish)')
    .addOption(queueOption())
    .option('--kind <kind>', 'pause only this kind (it must be one the queue knows)')
    .option('--by <label>', 'who pauses, as jobsctl why reports it (default: your user@host)')
    .addOption(kindsOption('to check --kind against instead of the kinds found in Redis'))
    .addHelpText(
      'after',
      `${PAUSE_HELP}
Redis keeps no list of a queue's kinds: --kind must be the kind of a job or schedule found in the
queue (or already paused), or, with --kinds, one your code defines.`,
    )
    .action(async (flags: { queue?: string; kind?: string; kinds?: string; by?: string }, command: Command) => {
      const queue = needQueue('pause', flags.queue);
      const by = flags.by ?? cliLabel();
      if (by.length < 1 || by.length > 64 || /[^\x20-\x7e]/.test(by)) throw new UsageError('--by: 1 to 64 printable characters');
      const kind = kindName(flags.kind);
      if (flags.kinds !== undefined && kind === undefined) throw new UsageError('--kinds checks --kind: give --kind too, or neither');
      const kinds = flags.kinds === undefined ? undefined : await loadKinds(flags.kinds);
      take({ name: 'pause', queue, kind, kinds, by }, globals(command));
    });

  program
    .command('resume')
    .description('let workers start jobs of a paused queue, or of one paused kind, again')
    .addOption(queueOption())
    .option('--kind <kind>', 'resume only this kind (one that is paused)')
    .addHelpText('after', PAUSE_HELP)
    .action((flags: { queue?: string; kind?: string }, command: Command) =>
      take({ name: 'resume', queue: needQueue('resume', flags.queue), kind: kindName(flags.kind), kinds: undefined, by: undefined }, globals(command)),
    );

  addSchedulesCommands(program, { take, needQueue, globals });
  addJobVerbCommands(program, { take, needQueue, jobId, globals });

  program
    .command('workers')
    .description("a queue's live workers, from their heartbeats: host, pid, version, kinds, jobs running of its concurrency, quiet, started, last seen")
    .addOption(queueOption())
    .addHelpText(
      'after',
      `
Every worker heartbeats into its queue's registry (its heartbeatIntervalMs, default 5 s):
queue:{NAME}:workers, a sorted set of worker ids scored by the time (Redis clock) until which each
counts as alive (its last heartbeat plus three intervals), and queue:{NAME}:worker:<id>, a hash
that expires then. A closed worker leaves at once; a killed one drops out when its time runs out.
The registry is the queue's own keys (partition 0's for a partitioned queue), not CLIENT LIST: it
works on a cluster and under the queue's ACL user. --json gives every running job id (the first
100 of each worker, with runningCount) and the times in epoch ms.`,
    )
    .action((flags: { queue?: string }, command: Command) => take({ name: 'workers', queue: needQueue('workers', flags.queue) }, globals(command)));
  addWorkerOrderCommands(program, { take, needQueue, globals });

  program
    .command('batches')
    .description("a queue's batches, newest first: open, sealed or finished, their counts and callbacks")
    .addOption(queueOption())
    .option('--limit <n>', 'batches to show per partition, 1-10000 (default 100)')
    .addHelpText(
      'after',
      `
A batch (producer.batch) is a hash, queue:{NAME}:batch:<id>, counted by the scripts that end its
jobs: total, succeeded, failed (for good), cancelled (or removed) and pending. A callback shows
"(fired)" once its job (id batch:<id>:<callback>) was enqueued. A finished batch is kept a week.
--json gives every field, times in epoch ms.`,
    )
    .action((flags: { queue?: string; limit?: string }, command: Command) =>
      take({ name: 'batches', queue: needQueue('batches', flags.queue), limit: parseWholeNumber('--limit', flags.limit, 100, 1, 10_000) }, globals(command)),
    );

  program
    .command('dedupe')
    .description('the job that owns a dedupe or unique key of a kind, its status, and whether an enqueue with the key would be absorbed now')
    .argument('<key>', 'the key, as the enqueue option dedupe.key or unique.key gave it')
    .addOption(queueOption())
    .requiredOption('--kind <kind>', 'the kind the key belongs to (keys are per kind)')
    .addHelpText(
      'after',
      `
A key is queue:{NAME}:dedupe:<kind>:<key>, holding the id of the job that took it. The script that
ends that job releases it, unless the job ended in a state the key holds in (a unique key with
'completed' in its states, a throttle's window). An enqueue reads the job's status itself, so a key
whose job a recipe client finished holds nothing.`,
    )
    .action((key: string, flags: { queue?: string; kind: string }, command: Command) => take({ name: 'dedupe', queue: needQueue('dedupe', flags.queue), kind: flags.kind, key }, globals(command)));

  program
    .command('audit')
    .description("a queue's audit trail, newest first: who (role and label) did what, when, to how many jobs")
    .addOption(queueOption())
    .option('--limit <n>', 'entries to show, 1-1000 (default 50)')
    .addHelpText(
      'after',
      `
The dashboard records every action it runs (retry, cancel, redrive, purge, pause, resume...) with
the role and label of the token or authorize hook behind it; jobsctl records its own (role cli,
label user@host). The trail is queue:{NAME}:audit, a capped stream (partition 0's for a
partitioned queue) that a purge keeps. --json gives the times in epoch ms and each target whole.`,
    )
    .action((flags: { queue?: string; limit?: string }, command: Command) =>
      take({ name: 'audit', queue: needQueue('audit', flags.queue), limit: parseWholeNumber('--limit', flags.limit, 50, 1, 1_000) }, globals(command)),
    );

  program
    .command('acl')
    .description("the ACL SETUSER line of a tenant's Redis user limited to some queues, or with --operator of the operator's user (needs no Redis)")
    .argument('<user>', 'the user name')
    .option('-q, --queue <name>', 'a queue the user may use; repeat for more', repeat)
    .option('--partitions <n>', 'the queues are partitioned queues of N partitions (default 1)')
    .option('--operator', "the operator's user: every queue, queue discovery and purge (SCAN), INFO, and loading the function library; not for applications")
    .addHelpText(
      'after',
      `
A tenant's user cannot load or change the function library (code every user's calls run), reach
other clients (CLIENT PAUSE, KILL, LIST) or read other tenants' key and channel names (SCAN, KEYS,
INFO, PUBSUB): it names its queues (jobs-reclaimer --queue), and an operator's user purges them.
Run the line on every node of a cluster, replicas too.`,
    )
    .action((user: string, flags: { queue?: string[]; partitions?: string; operator?: boolean }, command: Command) => {
      const operator = flags.operator === true;
      const queues = flags.queue ?? (env.JOBS_QUEUE && !operator ? [env.JOBS_QUEUE] : []);
      if (operator && queues.length > 0) throw new UsageError('acl --operator covers every queue: give no --queue');
      if (!operator && queues.length === 0) throw new UsageError('acl needs --queue NAME (repeat it for more queues), or --operator');
      for (const queue of queues) check(() => assertQueueName(queue, flags.queue ? '--queue' : 'JOBS_QUEUE'));
      if (!/^[A-Za-z0-9._-]{1,64}$/.test(user)) throw new UsageError('acl takes one user name (letters, digits, ".", "_", "-")');
      take({ name: 'acl', user, queues, partitions: parseWholeNumber('--partitions', flags.partitions, 1, 1, 1_024), operator }, globals(command));
    });

  const functions = program
    .command('functions')
    .description("the function library the scripts run as (FCALL): an operator's step, with the operator's user (jobsctl acl --operator)");
  functions
    .command('load')
    .description('load this release\'s library on the server (every master of a cluster) where it is missing')
    .option('--replace', 'also replace a different library found under its name (FUNCTION LOAD REPLACE)')
    .action((flags: { replace?: boolean }, command: Command) => take({ name: 'functions', action: 'load', replace: flags.replace === true }, globals(command)));
  functions
    .command('check')
    .description("whether each node holds this release's library byte for byte; exits 1 when one does not")
    .action((_flags, command: Command) => take({ name: 'functions', action: 'check', replace: false }, globals(command)));

  return program;
}

/**
 * Reads the command line and environment of `jobsctl`: the command to run, or an exit code once
 * help, the version or a usage error has been printed.
 */
export async function parseAdminCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<CommandLine<AdminInvocation>> {
  let invocation: AdminInvocation | undefined;
  const program = adminProgram(env, (command, flags) => {
    const redis = fromFlagOrEnv(flags.redisUrl, '--redis-url', env, 'REDIS_URL');
    invocation = { command, redisUrl: checkRedisUrl(redis.name, redis.raw ?? 'redis://127.0.0.1:6379'), json: flags.json ?? false };
  });
  return parseCommandLine(program, argv, () => invocation);
}
