// The cards' prose is not in the wasm module (docs/benchmarks.md, "Keeping the wasm small"): the page fetches
// pkg/cards.json, which build_pkg writes with the native binary (`dp-playground cards`; the native
// test catalog::tests::the_pages_card_json_holds_every_cards_prose_and_every_settings_help checks
// it holds the Rust text). Here: a fresh page shows that text in the card and beside each
// setting, and the first plot does not wait for the file.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openAlgorithmPanel, plotsDrawn, ready, session } from './harness.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
let lab;
let prose;

before(async () => {
  lab = await session();
  // The Rust text, from the binary itself (not from the served file the page reads).
  const out = execFileSync('cargo', ['run', '-q', '--bin', 'dp-playground', '--', 'cards'], { cwd: root, encoding: 'utf8' });
  prose = Object.fromEntries(JSON.parse(out).cards.map((c) => [c.kind, c]));
});
after(() => lab?.close());

/** The card's rows as the page shows them, `{ heading: text }`, once `kind`'s card is filled. */
async function cardShown(page, kind) {
  // The card is in the "Algorithm: card and comparison" fold, closed on a fresh page.
  await openAlgorithmPanel(page);
  await page.waitForSelector(`#card[data-kind="${kind}"]`, { timeout: 30_000 });
  return page.$$eval('#card-body dt', (dts) => Object.fromEntries(dts
    .filter((dt) => dt.textContent !== 'meaning')
    .map((dt) => [dt.textContent, dt.nextElementSibling.textContent])));
}

/** What the card shows of `p` (one card of `dp-playground cards`). */
const expected = (p) => ({
  source: p.source,
  assumptions: p.assumptions,
  privacy: p.privacy,
  utility: p.utility,
  'what to watch': p.watch,
  'in full': p.summary,
});

/** Checks that the page shows `kind`'s card and its settings' help as `dp-playground cards` has them. */
async function checkCard(page, kind) {
  const p = prose[kind];
  assert.ok(p, `${kind} is in dp-playground cards`);
  const shown = await cardShown(page, kind);
  for (const [heading, text] of Object.entries(expected(p))) {
    assert.ok(text.length > 20, `${kind}: ${heading} is prose`);
    assert.equal(shown[heading], text, `${kind}: the card's ${heading}`);
  }
  const module = await page.evaluate((k) => window.__dp.run().info.cards[k].module, kind);
  assert.equal(shown.code, `src/${module.replace('::', '/')}.rs`);
  // Every setting the algorithm reads shows its help line from the file.
  for (const { key, help } of p.settings) {
    assert.ok(help.length > 5, `${kind}: ${key}'s help`);
    assert.equal((await page.textContent(`#${key}-help`)).trim(), help, `${kind}: ${key}'s help`);
  }
}

test('a fresh page shows the card and its settings\' help as Rust wrote them', async () => {
  const { context, page, seen } = await lab.open('');
  await ready(page);
  await checkCard(page, 'noisy_gd');
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('picking other algorithms (a game\'s too) shows their cards from the same file, fetched once', async () => {
  const { context, page, seen } = await lab.open('');
  await ready(page);
  await cardShown(page, 'noisy_gd');
  for (const kind of ['localized_output_perturbation', 'byoa_minimax']) {
    await page.selectOption('#algorithm', kind);
    await checkCard(page, kind);
  }
  assert.equal(seen.requests.filter((u) => u.endsWith('/pkg/cards.json')).length, 1);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('without pkg/cards.json the first plot is still drawn, and the card says what is missing', async () => {
  const { context, page, seen } = await lab.open('');
  await context.route('**/pkg/cards.json', (route) => route.fulfill({ status: 404, body: '' }));
  await page.reload();
  await ready(page);
  await plotsDrawn(page);
  assert.ok(await page.$eval('#excess-plot', (c) => c.width > 0));
  // The settings panel is built from the module alone: labels present, help empty.
  assert.equal((await page.textContent('#steps-label')).trim(), 'steps T');
  assert.equal((await page.textContent('#steps-help')).trim(), '');
  await page.waitForFunction(() => /could not be loaded/.test(document.querySelector('#card-body').textContent));
  assert.match(await page.textContent('#card-body'), /pkg\/cards\.json: HTTP 404.*reload the page/);
  // The 404 itself is the only console error.
  assert.ok(seen.errors.every((e) => /404/.test(e)), seen.errors.join(' | '));
  await context.close();
});
