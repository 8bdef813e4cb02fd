import type { FoldedPerf } from './perf-fold.ts';

/** Redis's stages of a script call, by the function that runs each, in the order a call passes them. */
const STAGES: readonly [string, string][] = [
  ['readQueryFromClient', 'reading requests and running them (everything below, but replies sent later)'],
  ['luaCallFunction', 'a script\'s run, everything it calls included'],
  ['scriptCall', 'redis.call / redis.pcall from a script: the command, and the checks around it'],
  ['parseReply', 'a called command\'s reply read into Lua values'],
  ['hmgetCommand', 'HMGET'],
  ['hsetCommand', 'HSET'],
  ['lpushCommand', 'LPUSH'],
  ['lrangeCommand', 'LRANGE'],
  ['ltrimCommand', 'LTRIM'],
  ['zaddCommand', 'ZADD'],
  ['zremCommand', 'ZREM'],
  ['delCommand', 'DEL'],
  ['handleClientsWithPendingWritesUsingThreads', 'sending replies'],
  ['beforeSleep', 'between event-loop turns (replies sent, expiries)'],
];

/** The markdown section of a bench:profile summary that says where redis-server's sampled time went, per job. */
export function redisProfileSection(perf: FoldedPerf, jobs: number): string[] {
  const perJob = (us: number): string => (us / jobs).toFixed(2);
  const share = (us: number): string => `${((us / (perf.totalUs || 1)) * 100).toFixed(1)}%`;
  const inclusive = new Map(perf.inclusive.map((entry) => [entry.name, entry.us]));
  const row = (name: string, us: number, what?: string): string => `| ${name.replaceAll('|', '\\|')} | ${what ?? ''} | ${perJob(us)} | ${share(us)} |`;
  return [
    '## Redis: where its time went (perf samples over the timed part)',
    '',
    `${perf.samples.toLocaleString('en-US')} samples, ${perJob(perf.totalUs)} µs per job sampled (perf's own sampling adds to Redis's CPU while it records). Functions the binary names; an unnamed frame inside redis-server (the Lua VM's, or a static function of Redis's) counts in the part of its nearest named caller (see perf-fold.ts). Stacks perf could not unwind to the event loop count under their innermost frames only.`,
    '',
    '### Self time by part',
    '',
    '| part | µs per job | share |',
    '|---|---:|---:|',
    ...perf.groups.map(({ group, us }) => `| ${group} | ${perJob(us)} | ${share(us)} |`),
    '',
    '### Stages of a call (time with everything each calls)',
    '',
    '| function | what | µs per job | share |',
    '|---|---|---:|---:|',
    ...STAGES.filter(([name]) => inclusive.has(name)).map(([name, what]) => row(name, inclusive.get(name) as number, what)),
    '',
    '### Top 30 functions by self time',
    '',
    '| function | part | µs per job | share |',
    '|---|---|---:|---:|',
    ...perf.self.slice(0, 30).map(({ name, group, us }) => row(name, us, group)),
    '',
  ];
}
