import { Command, CommanderError } from 'commander';
import { UsageError } from './usage-error.ts';

/** What a command line came to: a value to run, or an exit code (help, version, a usage error). */
export type CommandLine<T> = { readonly run: T } | { readonly exitCode: number };

/**
 * A commander program set up the way both bins want it: no `process.exit` of its own (errors
 * are thrown and turned into exit codes here), help on stdout, and errors printed by
 * {@link parseCommandLine}. Add subcommands after this, so that they inherit the settings.
 */
export function newProgram(name: string, version: string, description: string): Command {
  return new Command(name)
    .description(description)
    .version(version, '-V, --version', 'print the version and exit')
    .helpOption('-h, --help', 'show this help')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => process.stdout.write(text),
      writeErr: (text) => process.stderr.write(text),
      outputError: () => undefined,
    });
}

/** The subcommand named in `argv` (`schedules upsert` for a nested one), for the hint after a usage error. */
function subcommandIn(program: Command, argv: readonly string[]): string | undefined {
  const path: string[] = [];
  let current = program;
  for (const arg of argv) {
    const next = current.commands.find((command) => command.name() === arg);
    if (!next) continue;
    path.push(arg);
    current = next;
  }
  return path.length > 0 ? path.join(' ') : undefined;
}

/**
 * Runs `program` over `argv`; its actions call `take` with what to run. Help and `--version`
 * give exit code 0, wrong arguments (commander's, or a {@link UsageError} from an action) a line
 * on stderr with a hint and exit code 2.
 */
export async function parseCommandLine<T>(program: Command, argv: readonly string[], taken: () => T | undefined): Promise<CommandLine<T>> {
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError && error.exitCode === 0) return { exitCode: 0 };
    // No command given: commander has printed the help (to stderr).
    if (error instanceof CommanderError && error.code === 'commander.help') return { exitCode: 2 };
    if (!(error instanceof CommanderError) && !(error instanceof UsageError)) throw error;
    const message = error.message.replace(/^error: /, '');
    const sub = subcommandIn(program, argv);
    process.stderr.write(`${program.name()}: ${message}\nRun ${program.name()}${sub ? ` ${sub}` : ''} --help for the options.\n`);
    return { exitCode: 2 };
  }
  const value = taken();
  return value === undefined ? { exitCode: 0 } : { run: value };
}

/**
 * The value of a setting that has a flag and an environment variable (the flag wins), with the
 * name to put in an error: the flag's, or the variable's when the value came from there.
 */
export function fromFlagOrEnv(flagValue: string | undefined, flag: string, env: NodeJS.ProcessEnv, variable: string): { raw: string | undefined; name: string } {
  if (flagValue !== undefined) return { raw: flagValue, name: flag };
  const raw = env[variable];
  return { raw: raw === '' ? undefined : raw, name: variable };
}

/**
 * Ends the process quietly when stdout's reader goes away (`jobsctl export-failed | head`),
 * as command-line tools do, instead of an EPIPE stack trace.
 */
export function exitQuietlyOnClosedPipe(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}
