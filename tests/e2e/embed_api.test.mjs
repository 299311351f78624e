// The embed API (www/page/embed-api.js), as a course page uses it: a parent page on another
// origin frames the playground with `?embed&parent=<its origin>`, sets a lesson's settings,
// presses Play, and receives `released` with the release bits the terminal binary gives for the
// same link; a frame whose link names no parent, or another one, hears and answers nothing.
//
// The parent page is served by a second small server on another port of the loopback (another
// origin; Chromium's local-network checks refuse a public origin framing a loopback page, so the
// parent cannot be a made-up public host here); the playground is served by the README command
// (harness.mjs). The binary is the dev
// build tests/e2e/terminal.test.mjs also uses (already built by the native tests).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, serve } from './harness.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'target', 'debug', 'dp-playground');

let server;
let base;
let browser;
/** The parent's server and origin; it serves `parentHtml` at every path. */
let parent;
let PARENT;
let parentHtml = '';

before(async () => {
  execFileSync('cargo', ['build', '--bin', 'dp-playground'], { cwd: root, stdio: 'inherit' });
  server = serve();
  base = await server.url;
  parent = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(parentHtml);
  });
  await new Promise((resolve) => parent.listen(0, '127.0.0.1', resolve));
  PARENT = `http://127.0.0.1:${parent.address().port}`;
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.stop();
  parent?.close();
});

/** A parent page at PARENT framing `src`; it keeps every message it receives in `window.heard`. */
const parentPage = (src) => `<!doctype html><title>course</title>
<iframe id="dp" src="${src}" width="900" height="700"></iframe>
<script>
  window.heard = [];
  window.addEventListener('message', (e) => window.heard.push({ origin: e.origin, data: e.data }));
  window.send = (message) => document.getElementById('dp').contentWindow.postMessage(message, '*');
</script>`;

/** A fresh browser context with PARENT framing the playground at `query`. */
async function course(query) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  parentHtml = parentPage(`${base}${query}`);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${PARENT}/notes.html`);
  return { context, page, errors };
}

const heard = (page, type) => page.evaluate((t) => window.heard.filter((m) => m.data?.type === t), type);
const waitHeard = (page, type, timeout = 60_000) => page.waitForFunction(
  (t) => window.heard.some((m) => m.data?.type === t), type, { timeout });

/** A number's IEEE-754 bits as 16 hex digits. */
const hex = (v) => {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, v);
  return view.getBigUint64(0).toString(16).padStart(16, '0');
};

test('a parent on another origin sets a lesson, plays, and hears the release the terminal gives', async () => {
  const { context, page, errors } = await course(`?embed&parent=${encodeURIComponent(PARENT)}`);
  await waitHeard(page, 'ready', 30_000);
  // The lesson's settings, as its link carries them (lessons/<id>.json's preset in the hash).
  const lesson = JSON.parse(readFileSync(join(root, 'lessons', 'noise-vs-epsilon.json'), 'utf8'));
  const link = `${base}#${encodeURIComponent(JSON.stringify(lesson.preset))}`;
  await page.evaluate((l) => window.send({ type: 'set', link: l }), link);
  await page.evaluate(() => window.send({ type: 'play' }));
  await waitHeard(page, 'released');

  const [started] = await heard(page, 'run-started');
  assert.ok(started, 'run-started was posted');
  const [released] = await heard(page, 'released');
  assert.equal(released.origin, new URL(base).origin);
  const { config, guarantee, releases } = released.data;
  assert.equal(JSON.parse(config).algorithm, 'output_perturbation', 'the lesson\'s settings were applied');
  assert.equal(JSON.parse(config).epsilon, 0.2);
  assert.equal(releases.length, lesson.preset.repeats, 'one release per repeat');
  assert.equal(guarantee.releases, lesson.preset.repeats);
  assert.ok(guarantee.epsilon >= 0.2 * lesson.preset.repeats - 1e-9, `twenty pure-ε releases compose: ${guarantee.epsilon}`);
  assert.deepEqual(await heard(page, 'error'), []);
  assert.deepEqual(errors, []);
  await context.close();

  // The terminal, given the same link, releases the same bits, repeat by repeat.
  // (Its files go to a temporary folder: `run` writes the run JSON and the CSV beside it.)
  const out = mkdtempSync(join(tmpdir(), 'dp-playground-embed-'));
  const stdout = execFileSync(bin, ['run', link, '--out', out], { encoding: 'utf8' });
  rmSync(out, { recursive: true, force: true });
  const cli = [...stdout.matchAll(/^release (\S+) repeat (\d+): w = \[([^\]]*)\]/gm)]
    .map((m) => ({ algorithm: m[1], repeat: Number(m[2]), w: m[3].split(', ').map(Number) }));
  assert.equal(cli.length, releases.length, stdout);
  assert.deepEqual(releases.map((r) => r.w.map(hex)), cli.map((r) => r.w.map(hex)), 'the released coordinates, bit for bit');
});

test('a refused link value reaches the parent as an error naming its control', async () => {
  const { context, page } = await course(`?embed&parent=${encodeURIComponent(PARENT)}`);
  await waitHeard(page, 'ready', 30_000);
  await page.evaluate((b) => window.send({ type: 'set', link: `${b}#${encodeURIComponent('{"epsilon":-1}')}` }), base);
  await waitHeard(page, 'error', 10_000);
  const [{ data }] = await heard(page, 'error');
  assert.equal(data.error.field, 'epsilon');
  assert.match(data.error.message, /ε/);
  await context.close();
});

test('a frame whose link names no parent, or another origin, neither answers nor obeys this parent', async () => {
  for (const query of ['?embed', `?embed&parent=${encodeURIComponent('https://elsewhere.test')}`]) {
    const { context, page } = await course(query);
    const frame = page.frameLocator('#dp');
    await frame.locator('#status[data-state="ready"]').waitFor({ state: 'attached', timeout: 30_000 });
    await page.evaluate(() => window.send({ type: 'play' }));
    await page.waitForTimeout(1500);
    assert.equal(await frame.locator('#status').getAttribute('data-state'), 'ready', `${query}: Play was not pressed`);
    assert.deepEqual(await page.evaluate(() => window.heard), [], `${query}: nothing was posted to this parent`);
    await context.close();
  }
});
