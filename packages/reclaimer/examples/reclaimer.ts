import { createReclaimer, jsonLogger, startMetricsServer } from '@jobs/reclaimer';

// Sweep two queues every second; log JSON lines; serve /metrics and /healthz on 127.0.0.1.
export const reclaimer = createReclaimer({
  redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  queues: ['example-mail', 'example-billing'],
  intervalMs: 1_000,
  batch: 500,
  logger: jsonLogger({ level: 'info' }),
});

reclaimer.on('sweep', ({ queue, reclaimed, deadLettered }) => {
  if (reclaimed + deadLettered > 0) console.log(`${queue}: ${reclaimed} back to pending, ${deadLettered} dead-lettered`);
});

// Or, from a cron job: const reports = await reclaimer.runOnce();
reclaimer.start();
export const server = await startMetricsServer({ port: 0, metrics: reclaimer.metrics, healthy: () => reclaimer.healthy() });
console.log(`metrics on http://${server.host}:${server.port}/metrics`);

process.once('SIGTERM', () => void Promise.all([reclaimer.stop(), server.close()]));
