import { startLedgerMix } from './ledger.ts';
const env: Record<string, string> = { ...(process.env.TRACE ? { BENCH_TRACE: '1' } : {}), BENCH_POOL_MAX: '7', ...(process.env.SPLIT ? { BENCH_TOPOLOGY: 'split' } : {}) };
const load = await startLedgerMix('postgres', 'server.ts', env);
await load.slice(20000);
const f = load.figures();
console.log(JSON.stringify({ ops: f.opsPerSec, n: Object.values(f.byOperation).reduce((a, b) => a + b.ops, 0), cpu: f.cpu }));
await load.stop();
