// Prints the gateway comparison's results (gateway.sh's OUT dir) as the
// Markdown table docs/benchmarks.md carries.
//
//   node gateway-table.mjs <results dir>
import {readFileSync, existsSync} from 'node:fs';
import {join} from 'node:path';

const dir = process.argv[2];
const read = (f) => (existsSync(join(dir, f)) ? JSON.parse(readFileSync(join(dir, f), 'utf8')) : null);
const f1 = (v) => (v == null ? '—' : v.toFixed(1));
const f0 = (v) => (v == null ? '—' : v.toFixed(0));
const clients = [...new Set(['1', '50', '200', ...(process.env.CLIENTS || '').split(/\s+/).filter(Boolean)])];
console.log('| gateway | run | round trips/s | p50 ms | p99 ms | errors | peak RSS MiB |');
console.log('|---|---|---:|---:|---:|---:|---:|');
for (const gw of ['openclaw', 'switchboard']) {
  const rows = [[`sessions.list, 1 client`, read(`${gw}-list.json`)], ...clients.map((n) => [`agent + agent.wait, ${n} clients`, read(`${gw}-agent-c${n}.json`)])];
  for (const [what, r] of rows) {
    if (!r) continue;
    console.log(`| ${gw} | ${what} | ${f0(r.roundTripsPerSecond)} | ${f1(r.latencyMs?.p50)} | ${f1(r.latencyMs?.p99)} | ${r.errors} | ${f0(r.gatewayPeakRssMB || r.gateway?.rssMB)} |`);
  }
}
if (existsSync(join(dir, 'load.txt'))) console.log('\n' + readFileSync(join(dir, 'load.txt'), 'utf8'));
