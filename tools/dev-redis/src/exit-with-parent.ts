import type { ChildProcess } from 'node:child_process';

/** Every child handed to {@link killOnExit} and not yet exited. */
const live = new Set<ChildProcess>();
let hookInstalled = false;

/**
 * Last resort: when this process exits (even through `process.exit`), `child` is killed with it,
 * so a test or benchmark that dies never leaves a redis-server or worker process behind. The
 * child leaves the set by itself once it exits.
 */
export function killOnExit(child: ChildProcess): void {
  if (!hookInstalled) {
    hookInstalled = true;
    process.on('exit', () => {
      for (const each of live) each.kill('SIGKILL');
    });
  }
  live.add(child);
  child.once('exit', () => live.delete(child));
}
