import { queueKeys } from '@jobs/core';
import { RespSocket } from './resp-socket.ts';

/**
 * Throws unless `queue` holds exactly `n` completions (its stats hash's `completed_total`) and
 * nothing pending or processing: a run that lost, doubled or left jobs measured something else.
 */
export async function assertAllCompleted(url: string, queue: string, n: number): Promise<void> {
  const keys = queueKeys(queue);
  const socket = await RespSocket.open(url);
  try {
    const [completed, pending, processing] = await Promise.all([
      socket.send(['HGET', keys.stats, 'completed_total']),
      socket.send(['LLEN', keys.pending]),
      socket.send(['LLEN', keys.processing]),
    ]);
    if (Number(completed) !== n || pending !== 0 || processing !== 0) {
      throw new Error(`queue ${queue}: completed_total ${String(completed)} of ${n} jobs, ${String(pending)} pending, ${String(processing)} processing`);
    }
  } finally {
    await socket.close();
  }
}
