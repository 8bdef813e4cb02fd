import { hostname, userInfo } from 'node:os';
import type { AuditEntry, AuditRecord, AuditTarget, Queue, RedisClient } from '@jobs/core';
import { renderTable } from '../table.ts';
import type { AdminCommand } from './admin-program.ts';
import type { AdminResult } from './run-admin.ts';
import { openNamed } from './run-admin.ts';

/** `jobsctl audit -q <queue> [--limit N]`: the queue's audit trail, newest first. */
export interface AuditCommand {
  readonly name: 'audit';
  readonly queue: string;
  readonly limit: number;
}

/** A cell someone wrote (a label, a target): control characters shown as `?`, so none reaches the terminal. */
function cell(text: string): string {
  return text.replace(/\p{Cc}/gu, '?');
}

function targetCell(target: AuditTarget): string {
  const parts = [
    target.id !== undefined && `id ${String(target.id)}`,
    target.kind !== undefined && `kind ${String(target.kind)}`,
    Array.isArray(target.ids) && `ids ${target.ids.slice(0, 3).join(', ')}${target.ids.length > 3 ? ` +${target.ids.length - 3}` : ''}`,
    target.filter !== undefined && `filter ${typeof target.filter === 'string' ? target.filter : JSON.stringify(target.filter)}`,
  ].filter((part): part is string => typeof part === 'string');
  const text = parts.join('; ') || '-';
  return cell(text.length > 60 ? `${text.slice(0, 59)}…` : text);
}

function row(entry: AuditEntry): string[] {
  return [new Date(entry.atMs).toISOString(), cell(entry.who.role), cell(entry.who.label), cell(entry.action), targetCell(entry.target), String(entry.count), cell(entry.error ?? '-')];
}

const HEADERS = ['AT', 'ROLE', 'WHO', 'ACTION', 'TARGET', 'COUNT', 'ERROR'];

/** Lists the newest `limit` entries of the queue's audit trail (a partitioned queue's, from partition 0). */
export async function runAuditCommand(command: AuditCommand, client: RedisClient): Promise<AdminResult> {
  const page = await (await openNamed(client, command.queue)).auditTrail({ limit: command.limit });
  if (page.entries.length === 0) return { code: 0, text: `no audit entries for ${command.queue}`, json: [] };
  return { code: 0, text: renderTable(HEADERS, page.entries.map(row)), json: page.entries };
}

/** Who runs this jobsctl, for the audit trail and as who paused: `user@host`, printable ASCII without spaces, at most 64 characters. */
export function cliLabel(): string {
  let user = 'unknown';
  try {
    user = userInfo().username || user;
  } catch {
    // No user name for this uid (a container's): the host still says where.
  }
  const label = `${user}@${hostname()}`.replace(/[^\x21-\x7e]/g, '?');
  return label.slice(0, 64);
}

/** The entry an acting command writes in its queue's trail, from its result; undefined for commands that only read. */
export function cliAuditRecord(command: AdminCommand, result: AdminResult, label: string): AuditRecord | undefined {
  const json = (result.json ?? {}) as Record<string, unknown>;
  const failed = result.code === 0 ? {} : { error: 'refused' };
  const who = { role: 'cli', label };
  switch (command.name) {
    case 'retry': {
      const retried = (result.json as { retried?: boolean }[]).filter((outcome) => outcome.retried === true).length;
      const target = command.ids.length === 1 ? { id: command.ids[0] as string } : { ids: command.ids.slice(0, 20) };
      return { ...who, action: 'retry', target, count: retried, ...failed };
    }
    case 'retry-all':
      return { ...who, action: 'redrive-failed', count: Array.isArray(json.retried) ? json.retried.length : 0, ...failed };
    case 'cancel':
      return { ...who, action: 'cancel', target: { id: command.id }, count: json.cancelled === true ? 1 : 0, ...failed };
    case 'purge':
      return { ...who, action: 'purge', count: result.code === 0 ? 1 : 0, ...failed };
    case 'pause':
    case 'resume':
      return { ...who, action: command.name, ...(command.kind !== undefined && { target: { kind: command.kind } }), count: json.changed === true ? 1 : 0, ...failed };
    case 'promote':
      return { ...who, action: 'promote', target: { id: command.id }, count: json.promoted === true ? 1 : 0, ...failed };
    case 'priority':
      return { ...who, action: 'priority', target: { id: command.id }, count: json.changed === true ? 1 : 0, ...failed };
    case 'remove':
      return { ...who, action: 'delete', target: { id: command.id }, count: json.removed === true ? 1 : 0, ...failed };
    case 'quiet':
    case 'resume-workers':
    case 'scale': {
      // The count is the workers told; a worker named is the target.
      const action = command.name === 'scale' ? `scale-workers:${String(command.concurrency)}` : command.name === 'quiet' ? 'quiet-workers' : 'resume-workers';
      return { ...who, action, ...(command.worker !== undefined && { target: { id: command.worker } }), count: Array.isArray(json.told) ? json.told.length : 0, ...failed };
    }
    default:
      return undefined;
  }
}

/** The queue whose trail an acting command is recorded in, opened before it runs (a purge deletes a partitioned queue's partition count); undefined for commands that only read. */
export async function trailFor(command: AdminCommand, client: RedisClient): Promise<Queue<unknown> | undefined> {
  if (!ACTING.has(command.name) || !('queue' in command) || command.queue === undefined) return undefined;
  return openNamed(client, command.queue);
}

const ACTING: ReadonlySet<string> = new Set(['retry', 'retry-all', 'cancel', 'purge', 'pause', 'resume', 'promote', 'priority', 'remove', 'quiet', 'resume-workers', 'scale']);

/**
 * Records an acting command in its queue's audit trail (after it ran, so a purge's entry
 * outlives the purge). A trail that cannot be written is said on stderr; the command's result stands.
 */
export async function recordCliAction(command: AdminCommand, result: AdminResult, trail: Queue<unknown>): Promise<void> {
  const record = cliAuditRecord(command, result, cliLabel());
  if (!record) return;
  try {
    await trail.recordAudit(record);
  } catch {
    process.stderr.write(`jobsctl: warning: could not record this ${command.name} in the audit trail of ${trail.name}\n`);
  }
}
