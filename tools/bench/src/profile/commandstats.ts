/** One command's line of `INFO commandstats`. */
export interface CommandStat {
  command: string;
  calls: number;
  usec: number;
}

/** Parses `INFO commandstats` (`cmdstat_<name>:calls=..,usec=..,...` lines), busiest first. */
export function parseCommandStats(info: string): CommandStat[] {
  const stats: CommandStat[] = [];
  for (const line of info.split(/\r?\n/)) {
    const match = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/.exec(line);
    if (match) stats.push({ command: match[1] as string, calls: Number(match[2]), usec: Number(match[3]) });
  }
  return stats.sort((a, b) => b.usec - a.usec);
}

/**
 * The commands a run sent, per job, as a Markdown table. Scripts' inner commands count in
 * their own rows as well as in the script's (fcall, evalsha) time.
 */
export function commandStatsTable(stats: readonly CommandStat[], jobs: number, skip: ReadonlySet<string> = new Set(['info', 'config|resetstat'])): string {
  const rows = stats.filter((stat) => !skip.has(stat.command) && stat.calls / jobs >= 0.001);
  const lines = ['| command | calls per job | µs per job | µs per call |', '|---|---:|---:|---:|'];
  for (const stat of rows) lines.push(`| ${stat.command} | ${(stat.calls / jobs).toFixed(3)} | ${(stat.usec / jobs).toFixed(2)} | ${(stat.usec / stat.calls).toFixed(2)} |`);
  const scripts = new Set(['fcall', 'fcall_ro', 'evalsha', 'eval']);
  const commands = rows.filter((stat) => !scripts.has(stat.command)).reduce((sum, stat) => sum + stat.calls, 0);
  lines.push('', `Commands per job, scripts' inner commands included and the scripts themselves not: ${(commands / jobs).toFixed(2)}.`);
  return lines.join('\n');
}
