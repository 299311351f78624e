// The table of scripts/bench: native figures (the BENCH_JSON line of `cargo bench --bench cases`,
// in the file given), the benchmark page in Chromium and Firefox (served here on a free port), and
// the peers' result when that file exists. Usage:
//   node scripts/bench.mjs NATIVE_OUTPUT PEERS_RESULT_JSON [--quick]
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { benchInChromium, benchInFirefox } from './bench-browsers.mjs';
// The README serve command on a free port, as the end-to-end tests start it.
import { serve } from '../tests/e2e/harness.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const [nativeFile, peersFile, flag] = process.argv.slice(2);
const quick = flag === '--quick';
// The full plan runs for minutes in a browser on a loaded machine.
const TIMEOUT_MS = quick ? 120_000 : 1_800_000;

function nativeResults() {
  const line = readFileSync(nativeFile, 'utf8').split('\n').find((l) => l.startsWith('BENCH_JSON '));
  if (!line) throw new Error(`${nativeFile}: no BENCH_JSON line (did cargo bench --bench cases run?)`);
  return JSON.parse(line.slice('BENCH_JSON '.length));
}


/** case figures by "n×d|case". */
function index(results) {
  const m = new Map();
  for (const s of results.sizes) for (const c of s.cases) m.set(`${s.n}×${s.d}|${c.case}`, c);
  return m;
}

const ms = (x) => (x === undefined ? '–' : x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toFixed(4));
const ratio = (x) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : '–');
const pad = (s, w) => String(s).padStart(w);

function table(headers, rows) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (r) => r.map((c, i) => (i < 2 ? String(c).padEnd(widths[i]) : pad(c, widths[i]))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

async function main() {
  const native = nativeResults();
  const server = serve();
  let chromiumResults;
  let firefoxResults;
  try {
    const url = `${await server.url}bench.html${quick ? '?quick' : ''}`;
    console.error(`[bench] Chromium: ${url}`);
    chromiumResults = await benchInChromium(url, { timeoutMs: TIMEOUT_MS });
    console.error('[bench] Firefox (geckodriver)');
    firefoxResults = await benchInFirefox(url, { timeoutMs: TIMEOUT_MS });
  } finally {
    server.stop();
  }
  const [nat, chr, ffx] = [native, chromiumResults, firefoxResults].map(index);
  const rows = [];
  for (const [key, c] of nat) {
    const [size, name] = key.split('|');
    const [cr, fx] = [chr.get(key), ffx.get(key)];
    rows.push([size, name, ms(c.min_ms), ms(cr?.min_ms), ms(fx?.min_ms),
      ratio(cr?.min_ms / c.min_ms), ratio(fx?.min_ms / c.min_ms),
      `${ratio(c.ratio_to_read)} / ${ratio(cr?.ratio_to_read)} / ${ratio(fx?.ratio_to_read)}`]);
  }
  console.log(`min over repeats, ms (kernels natively: ${native.kernels}; ${chromiumResults.userAgent.match(/Chrom\w*\/[\d.]+/)?.[0]}; `
    + `${firefoxResults.userAgent.match(/Firefox\/[\d.]+/)?.[0]})`);
  console.log(table(['n×d', 'case', 'native', 'Chromium', 'Firefox', 'Cr/native', 'Fx/native', '÷ read: native / Cr / Fx'], rows));

  if (!existsSync(peersFile)) {
    console.log(`\n(no peers: run benches/peers/run to write ${peersFile})`);
    return;
  }
  const peers = JSON.parse(readFileSync(peersFile, 'utf8'));
  const prow = peers.rows.map((r) => {
    const key = `${r.n}×${r.d}|${r.bench_case}`;
    const [cr, fx] = r.bench_case ? [chr.get(key), ffx.get(key)] : [];
    return [`${r.n}×${r.d}`, `${r.case} vs ${r.peer}`, ms(r.peer_ms), ms(r.ours_ms), ratio(r.speedup),
      ratio(r.peer_ms / cr?.min_ms), ratio(r.peer_ms / fx?.min_ms)];
  });
  const v = peers.versions;
  console.log(`\npeers (benches/peers/run, same data files; numpy ${v.numpy}, torch ${v.torch}, opacus ${v.opacus}, diffprivlib ${v.diffprivlib}):`);
  console.log(table(['n×d', 'case', 'peer', 'ours native', 'peer/native', 'peer/Chromium', 'peer/Firefox'], prow));
  const lr = peers.rows.find((r) => r.peer_test_log_loss !== undefined);
  if (lr) {
    console.log(`test log-loss on 10⁵ fresh records: ${lr.peer} ${lr.peer_test_log_loss.toFixed(4)}, `
      + `ours (objective perturbation) ${lr.ours_test_log_loss.toFixed(4)}, non-private ${lr.non_private_test_log_loss.toFixed(4)}`);
  }
  console.log('(peer/Chromium and peer/Firefox use the page\'s own data of that size: the same generator and seed as the peers\' file)');
}

main().catch((e) => {
  console.error(e.message ?? e);
  process.exit(1);
});
