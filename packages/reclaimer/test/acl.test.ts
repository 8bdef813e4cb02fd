import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { jobsAclRules, jobsOperatorAclRules } from '../src/index.ts';

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

/** What the scripts ask only when the client found its user may (see QueueConnection's check at start). */
const ASKED_WHEN_ALLOWED = new Set(['pubsub|numsub', 'pubsub|numpat']);

describe('jobsAclRules', () => {
  test('allow every command the Lua scripts run (an ACL user would otherwise meet NOPERM inside a script)', () => {
    const rules = new Set(jobsAclRules(['orders']));
    const commands = scriptCommands();
    expect(commands.size).toBeGreaterThan(20);
    for (const command of commands) if (!ASKED_WHEN_ALLOWED.has(command)) expect(rules, command).toContain(`+${command}`);
    for (const command of commands) expect(new Set(jobsOperatorAclRules()), command).toContain(`+${command}`);
  });

  test("grant a tenant nothing that changes other users' code, reaches other clients or lists other tenants' names", () => {
    const rules = jobsAclRules(['orders']);
    for (const rule of ['+@all', '+@connection', '+@admin', '+@dangerous', '+function', '+function|load', '+function|delete', '+function|flush', '+function|restore', '+script|flush', '+client', '+client|pause', '+client|kill', '+client|list', '+scan', '+keys', '+randomkey', '+info', '+pubsub|numsub', '+pubsub|numpat', '+pubsub|channels']) {
      expect(rules, rule).not.toContain(rule);
    }
    expect(rules.filter((rule) => rule.startsWith('~') || rule.startsWith('&'))).toEqual(['~queue:{orders}:*', '&queue:{orders}:events', '&queue:{orders}:wake', '&queue:{orders}:schedules-wake', '&queue:{orders}:control']);
    expect(jobsOperatorAclRules()).toContain('+function|load');
  });
});
