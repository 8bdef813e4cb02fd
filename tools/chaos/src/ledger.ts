import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The record every execution leaves, outside Redis: one JSON line per event, appended (and so
 * on disk) before the worker goes on. `start` when a handler begins; `end` when it returns or
 * throws (before the worker sends the outcome); `report` once the worker has recorded the
 * outcome in Redis (completed, retrying, failed) or found its claim lost. A start names the
 * job's kind and group when it has limits, for the concurrency checks (analyze-caps.ts).
 */
export type LedgerEntry =
  | { e: 'start'; id: string; attempt: number; pid: number; t: number; kind?: string; group?: string }
  | { e: 'end'; id: string; attempt: number; pid: number; t: number }
  | { e: 'report'; id: string; attempt: number; pid: number; t: number; outcome: 'completed' | 'retrying' | 'failed' | 'lost' };

/** Appends one entry to this process's ledger file in `dir`. */
export function appendLedger(dir: string, entry: LedgerEntry): void {
  appendFileSync(join(dir, `ledger-${process.pid}.jsonl`), `${JSON.stringify(entry)}\n`);
}

/** Every entry of every ledger file in `dir` (a line cut short by a SIGKILL is skipped). */
export function readLedgers(dir: string): LedgerEntry[] {
  const entries: LedgerEntry[] = [];
  for (const file of readdirSync(dir).filter((name) => name.startsWith('ledger-'))) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      if (!line) continue;
      try {
        entries.push(JSON.parse(line) as LedgerEntry);
      } catch {
        // The last line of a killed process may be cut short.
      }
    }
  }
  return entries;
}
