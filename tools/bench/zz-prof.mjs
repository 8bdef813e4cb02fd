import { Redis } from 'ioredis';
import { startRedisServer } from '/work/main/tools/dev-redis/dist/index.js';
import { jobsAdapter } from '/work/main/tools/bench/dist/adapters/jobs.js';
import { processPreEnqueued, enqueueConcurrent } from '/work/main/tools/bench/dist/scenarios.js';
const server = await startRedisServer({ name: 'prof' });
const admin = new Redis(server.url);
for (const [label, fn] of [['enqueue-64', (a) => enqueueConcurrent(a, 20000, 64)], ['process-64', (a) => processPreEnqueued(a, 20000, 64)]]) {
  await admin.flushall(); 
  const a = await jobsAdapter(server.url, 'p');
  if (label === 'process-64') { for (let i = 0; i < 20000; i += 1000) await a.enqueueBulk(Array.from({length: 1000}, (_, j) => ({ n: i + j, sentAt: 0 }))); }
  await admin.config('RESETSTAT');
  const t0 = process.cpuUsage();
  const r = label === 'process-64' ? await (async () => { let done = 0; let res; const all = new Promise(r => res = r); const s = performance.now(); await a.startWorkers(64, () => {}, () => { if (++done === 20000) res(); }); await all; return { rate: 20000 / ((performance.now() - s) / 1000) }; })() : await fn(a);
  const cpu = process.cpuUsage(t0);
  const stats = await admin.info('commandstats');
  console.log(label, Math.round(r.rate), 'node cpu ms', Math.round((cpu.user + cpu.system) / 1000));
  console.log(stats.split('\n').filter(l => /calls=/.test(l)).map(l => l.replace(/,rejected.*/, '')).join('\n'));
  const srv = await admin.info('cpu'); console.log(srv.split('\n').filter(l => /used_cpu_(user|sys):/.test(l)).join(' '));
  await a.close();
}
admin.disconnect(); await server.stop();
