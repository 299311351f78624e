// The page and the terminal release the same bits for every algorithm picked from the menu. A
// newcomer opens the page (no link), picks an algorithm and presses Play; the terminal binary,
// given the link the page then shows, releases the same x (and y) bit for bit. The picked
// settings are the first run of every family, so a path that differs between wasm and native
// (a 32-bit usize, a platform's libm, a clock) shows up here. Zhang et al. 2022's C-SC variant
// released near the uniform start on the page and elsewhere in the terminal: its phases'
// safeguard bound (≈ 10¹⁰ iterations) wrapped to 0 in a 32-bit usize
// (crates/core/src/minimax/solvers/mod.rs, `safeguard_bound`).
// The binary is the dev build tests/e2e/terminal.test.mjs also uses.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ready, session } from './harness.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'target', 'debug', 'dp-playground');

let lab;

before(async () => {
  execFileSync('cargo', ['build', '--bin', 'dp-playground'], { cwd: root, stdio: 'inherit' });
  lab = await session();
});

after(async () => {
  await lab?.close();
});

/** A number's IEEE-754 bits as 16 hex digits. */
const hex = (v) => {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, v);
  return view.getBigUint64(0).toString(16).padStart(16, '0');
};

/** The terminal's releases of `link`: `{ w, y }` per line. */
function terminal(link) {
  const out = mkdtempSync(join(tmpdir(), 'dp-playground-picked-'));
  try {
    const stdout = execFileSync(bin, ['run', link, '--out', out], { encoding: 'utf8' });
    return [...stdout.matchAll(/^release (\S+) repeat (\d+): w = \[([^\]]*)\](?:, y = \[([^\]]*)\])?/gm)]
      .map((m) => ({ w: m[3].split(', ').map(Number), y: m[4] ? m[4].split(', ').map(Number) : null }));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

test('every algorithm picked on a fresh page releases the bits the terminal gives for its link', async () => {
  const { page: probe, context: probeContext } = await lab.open();
  await ready(probe);
  const menu = await probe.$$eval('#algorithm option', (os) => os.map((o) => o.value));
  await probeContext.close();
  assert.ok(menu.length >= 11, `the menu offers every algorithm: ${menu}`);
  const differ = [];
  for (const algorithm of menu) {
    const { context, page, seen } = await lab.open();
    await ready(page);
    await page.selectOption('#algorithm', algorithm);
    await ready(page);
    await page.click('#play');
    await page.waitForSelector('#status[data-state="released"], #status[data-state="error"]', { timeout: 120_000 });
    assert.equal(await page.getAttribute('#status', 'data-state'), 'released', algorithm);
    const { hash, releases } = await page.evaluate(() => ({
      hash: location.hash,
      releases: window.__dp.run().lanes.flat().map((l) => l.release).filter(Boolean)
        .map((r) => ({ w: Array.from(r.w), y: r.y ? Array.from(r.y) : null })),
    }));
    assert.deepEqual(seen.errors, [], algorithm);
    await context.close();
    const cli = terminal(`${lab.base}${hash}`);
    assert.equal(cli.length, releases.length, `${algorithm}: one release per lane`);
    const bits = (list) => JSON.stringify(list.map((r) => ({ w: r.w.map(hex), y: r.y?.map(hex) ?? null })));
    if (bits(releases) !== bits(cli)) {
      differ.push(`${algorithm}: page ${JSON.stringify(releases)} vs terminal ${JSON.stringify(cli)}`);
    }
  }
  assert.deepEqual(differ, [], 'the page and the terminal release the same bits');
});
