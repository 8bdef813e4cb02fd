import { isJobsError } from '@jobs/core';
import { Option, type Command } from 'commander';
import { UsageError } from '../usage-error.ts';
import type { AdminCommand } from './admin-program.ts';

/** The options every `jobsctl` command shares. */
export interface GlobalFlags {
  redisUrl?: string;
  json?: boolean;
}

/** What each command's action is given to check its flags and hand what to run over. */
export interface ProgramContext {
  /** Hands the command to run over, with the shared flags. */
  readonly take: (command: AdminCommand, globals: GlobalFlags) => void;
  /** The queue from -q or JOBS_QUEUE, checked; a {@link UsageError} naming `command` when neither is given. */
  readonly needQueue: (command: string, flag: string | undefined) => string;
  /** The shared flags, wherever on the command line they were given. */
  readonly globals: (command: Command) => GlobalFlags;
}

/** Runs a core check, turning its error into a {@link UsageError} (exit code 2). */
export function check(assertion: () => void): void {
  try {
    assertion();
  } catch (error) {
    throw new UsageError(isJobsError(error) ? error.message : String(error));
  }
}

/** The `-q, --queue` option every command on one queue takes. */
export const queueOption = (): Option => new Option('-q, --queue <name>', 'the queue [JOBS_QUEUE]');

/** The `--kinds` option: the module that defines the queue's kinds, for the checks that need them. */
export const kindsOption = (what: string): Option =>
  new Option('--kinds <file>', `a JavaScript module exporting the queue's kinds (export const kinds = defineKinds(...), or the default export), ${what}`);
