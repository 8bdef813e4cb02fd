import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { jobsAclRules } from '../src/index.ts';

const scriptsDir = new URL('../../core/scripts/', import.meta.url);

/** Every Redis command the core scripts (and their includes) run, in lower case. */
function scriptCommands(): Set<string> {
  const commands = new Set<string>();
  for (const dir of [scriptsDir, new URL('lib/', scriptsDir)]) {
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.lua'))) {
      const source = readFileSync(new URL(file, dir), 'utf8');
      for (const match of source.matchAll(/redis\.p?call\('([A-Z]+)'(?:,\s*'([A-Z]+)')?/g)) {
        const [, command, sub] = match as unknown as [string, string, string | undefined];
        commands.add(command === 'PUBSUB' && sub ? `pubsub|${sub.toLowerCase()}` : command.toLowerCase());
      }
    }
  }
  return commands;
}

describe('jobsAclRules', () => {
  test('allow every command the Lua scripts run (an ACL user would otherwise meet NOPERM inside a script)', () => {
    const rules = new Set(jobsAclRules(['orders']));
    const commands = scriptCommands();
    expect(commands.size).toBeGreaterThan(20);
    for (const command of commands) expect(rules, command).toContain(`+${command}`);
  });
});
