// Times the prototype's logistic value+gradient pass (n = 2·10⁴, d = 100) in Node's V8 for each
// build named on the command line, alternating them, and prints the minimum over 300 calls and
// its ratio to the first build's. Usage: node time.mjs PROFILE... (after `run` has built them).
import { readFileSync } from 'node:fs';
const variants = process.argv.slice(2);
const inst = {};
for (const v of variants) {
  const { instance } = await WebAssembly.instantiate(readFileSync(`target/wasm32-unknown-unknown/${v}/app.wasm`), {});
  instance.exports.setup(20000, 100);
  inst[v] = instance.exports;
}
const best = Object.fromEntries(variants.map((v) => [v, Infinity]));
let check = {};
for (let r = 0; r < 300; r += 1) for (const v of variants) {
  const t = performance.now(); const out = inst[v].run(1); const dt = performance.now() - t;
  best[v] = Math.min(best[v], dt); check[v] = out;
}
for (const v of variants) console.log(v, best[v].toFixed(2), 'ms', `×${(best[v] / best[variants[0]]).toFixed(2)}`, check[v]);
