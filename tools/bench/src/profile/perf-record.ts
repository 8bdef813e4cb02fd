import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** A `perf record` attached to a process; {@link stop} ends it and returns what `perf script` prints of it. */
export interface PerfRecording {
  stop(): Promise<string>;
}

/**
 * Samples process `pid` (every thread) at `hz` with DWARF call graphs into `file`, until
 * {@link PerfRecording.stop}. DWARF unwinding, because the Debian redis-server has no frame
 * pointers. Resolves once perf has attached, and rejects when perf is missing or may not attach
 * (`kernel.perf_event_paranoid`, no root).
 */
export async function recordPerf(pid: number, file: string, hz = 999): Promise<PerfRecording> {
  const child = spawn('perf', ['record', '-F', String(hz), '--call-graph', 'dwarf,16384', '-p', String(pid), '-o', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  await Promise.race([
    once(child, 'spawn'),
    once(child, 'error').then(([error]) => {
      throw new Error(`perf could not start (is linux-perf installed?): ${(error as Error).message}`);
    }),
  ]);
  // perf says nothing once attached; a refusal makes it exit at once.
  const early = await Promise.race([once(child, 'exit'), new Promise((resolve) => setTimeout(resolve, 300, undefined))]);
  if (early !== undefined) throw new Error(`perf record exited at once: ${stderr.trim()}`);
  return {
    stop: async () => {
      await signalAndWait(child);
      const script = spawn('perf', ['script', '-i', file], { stdio: ['ignore', 'pipe', 'ignore'] });
      const chunks: Buffer[] = [];
      script.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
      const [code] = (await once(script, 'exit')) as [number | null];
      if (code !== 0) throw new Error(`perf script exited with ${code}`);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}

async function signalAndWait(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGINT');
  await exited;
}
