// The static site (scripts/dist writes dist/): served from a subfolder, /dp/, as a course site
// would host it, (a) by a plain static server (no compression, no caching headers, and the wasm
// sent as application/octet-stream, as some hosts do) it passes the page's smoke tests: load and
// run to a release, a link round trip, a lesson from the menu, the embed; (b) after one visit it
// works with that server stopped: a reload opens the page and every lesson, and a lesson runs to
// its release; (c) served as a good host serves it (scripts/serve.mjs --dist), a cold visit
// fetches each file once, the service worker's precache included, and only content-hashed names
// besides the entry points. The file builds dist/ itself with the README command.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { hash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, ready, serve } from './harness.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DIST = join(ROOT, 'dist');
const BASE = '/dp/';
const ENTRY_POINTS = ['index.html', 'bench.html', 'service-worker.js'];
const HASHED = /\.([0-9a-f]{10})\.[a-z]+$/;
const lessonIds = JSON.parse(readFileSync(join(ROOT, 'lessons/index.json'), 'utf8')).lessons;
const lessonTitles = Object.fromEntries(lessonIds.map((id) => [id, JSON.parse(readFileSync(join(ROOT, `lessons/${id}.json`), 'utf8')).title]));

/** Every file of dist/ but the compressed copies, relative to it. */
function distFiles(dir = DIST, prefix = '') {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory()
    ? distFiles(join(dir, e.name), `${prefix}${e.name}/`)
    : /\.(br|gz)$/.test(e.name) ? [] : [`${prefix}${e.name}`]));
}

/** The list service-worker.js precaches (scripts/dist.mjs writes it as JSON). */
function precacheList() {
  const source = readFileSync(join(DIST, 'service-worker.js'), 'utf8');
  return JSON.parse(source.match(/const PRECACHE = (\[[\s\S]*?\]);/)[1]);
}

/**
 * A plain static server, as a course site's might be: `dir` (dist/) under /dp/, the files' bytes
 * with a Content-Type (module scripts need a JavaScript one; .wasm gets application/octet-stream)
 * and no other header. `log` records each request's path.
 */
function plainServer(dir = DIST) {
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json' };
  const log = [];
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://host').pathname);
    log.push(path);
    const file = path.startsWith(BASE) && !path.includes('..') ? join(dir, path.slice(BASE.length) || 'index.html') : null;
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  const url = new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}${BASE}`));
  });
  const stop = () => new Promise((resolve) => {
    server.close(resolve);
    server.closeAllConnections();
  });
  return { url, log, stop };
}

/** dist/ served as a good host serves it: scripts/serve.mjs --dist under /dp/ (built already). */
function goodServer(args = [], onLine = () => {}) {
  const server = serve(['--dist', '--base', BASE, ...args], onLine, ['node', 'scripts/serve.mjs']);
  return { url: server.url, stop: async () => server.stop() };
}

/** Resolves once nothing answers at `url` any more. */
async function gone(url) {
  for (let i = 0; i < 100; i++) {
    if (await fetch(url).then(() => false, () => true)) return;
    await new Promise((resolve) => { setTimeout(resolve, 50); });
  }
  assert.fail(`${url} still answers`);
}

let browser;

before(async () => {
  // The README command: builds www/pkg when stale (scripts/test has just built it), then dist/.
  const built = spawnSync('bash', ['scripts/dist'], { cwd: ROOT, encoding: 'utf8', timeout: 600_000 });
  assert.equal(built.status, 0, `scripts/dist failed:\n${built.stdout}\n${built.stderr}`);
  browser = await launch();
});

after(async () => {
  await browser?.close();
});

/** A fresh context and page recording console and page errors. */
async function open(url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  return { context, page, errors };
}

const controlled = (page) => page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30_000 });

test('dist/ names every file by its content but the entry points, and precaches all of them', () => {
  const files = distFiles();
  const unhashed = files.filter((f) => !ENTRY_POINTS.includes(f) && !HASHED.test(f));
  assert.deepEqual(unhashed, [], 'files of dist/ without a content hash');
  // A file that references no other is named by the SHA-256 of its bytes (modules are named after
  // their references are rewritten, so their names change with their imports' too).
  for (const f of files.filter((name) => /\.(wasm|json|css)$/.test(name))) {
    const sha256 = hash('sha256', readFileSync(join(DIST, f)), 'hex');
    assert.equal(f.match(HASHED)[1], sha256.slice(0, 10), `${f} is not named by its content`);
  }
  for (const f of files.filter((name) => /\.(js|css|json|wasm|html)$/.test(name))) {
    for (const suffix of ['.br', '.gz']) assert.ok(readFileSync(join(DIST, `${f}${suffix}`)).length > 0, `${f}${suffix}`);
  }
  assert.deepEqual(precacheList().sort(), files.filter((f) => f !== 'service-worker.js').sort());
});

test('dist/ in a subfolder of a plain static server passes the page\'s smoke tests', async () => {
  const server = plainServer();
  const base = await server.url;
  try {
    const smoke = [
      'the page loads, the worker starts, and play draws a falling excess-risk curve',
      'a copied link, opened in a fresh page, restores the settings and the same release',
      'a lesson picked from the menu loads its settings in one click, and Play runs them',
      'embed mode shows the plots',
    ];
    const env = { ...process.env, DP_E2E_BASE: base };
    delete env.NODE_TEST_CONTEXT; // a test run of its own, not a child of this one
    const args = ['--test', '--test-reporter=tap', ...smoke.flatMap((name) => ['--test-name-pattern', `^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`]),
      'tests/e2e/playground.test.mjs', 'tests/e2e/lessons.test.mjs'];
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    const code = await new Promise((resolve) => { child.on('exit', resolve); });
    const count = (what) => Number(out.match(new RegExp(`^# ${what} (\\d+)$`, 'm'))?.[1]);
    assert.equal(code, 0, out);
    assert.equal(count('pass'), smoke.length, `the smoke tests that ran and passed:\n${out}`);
    const missing = server.log.filter((p) => !p.startsWith(BASE));
    assert.deepEqual(missing, [], 'requests outside the subfolder');
  } finally {
    await server.stop();
  }
});

for (const [host, start] of [['a plain static server', plainServer], ['scripts/serve.mjs --dist', goodServer]]) {
  test(`after one visit to ${host}, with it stopped, a reload opens the page and every lesson, and a lesson runs to its release`, async () => {
    const server = start();
    const base = await server.url;
    const { context, page, errors } = await open(base);
    try {
      await ready(page);
      await controlled(page);
      await server.stop();
      await gone(base);

      await page.reload();
      await ready(page);
      assert.deepEqual(await page.$$eval('#lesson option', (os) => os.map((o) => o.value).filter(Boolean)), lessonIds);
      for (const id of lessonIds) {
        await page.selectOption('#lesson', id);
        await page.waitForFunction((title) => document.querySelector('#lesson-title')?.textContent === title, lessonTitles[id]);
      }
      // A lesson's own link, opened offline, runs to its release.
      const lesson = lessonIds.includes('noise-vs-epsilon') ? 'noise-vs-epsilon' : lessonIds[0];
      await page.goto(`${base}?lesson=${lesson}`);
      await ready(page);
      assert.equal(await page.textContent('#lesson-title'), lessonTitles[lesson]);
      await page.click('#play');
      await page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });
      assert.notEqual(await page.textContent('#release'), 'not yet');
      assert.equal(await page.textContent('#run-error'), '');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
      await server.stop();
    }
  });
}

test('a new deployment shows on the next visit, and its service worker replaces the old one and deletes its cache', async () => {
  // A copy of dist/ to deploy over, so that dist/ itself stays as built.
  const site = mkdtempSync(join(tmpdir(), 'dp-dist-'));
  cpSync(DIST, site, { recursive: true });
  const server = plainServer(site);
  const base = await server.url;
  const { context, page, errors } = await open(base);
  const cacheNames = () => page.evaluate(() => caches.keys());
  try {
    await ready(page);
    await controlled(page);
    const [first] = await cacheNames();
    assert.match(first, /^dp-playground-[0-9a-f]{10}$/);
    assert.deepEqual(await cacheNames(), [first]);

    // The new deployment: a changed page, and so a changed service worker.
    const index = readFileSync(join(site, 'index.html'), 'utf8');
    writeFileSync(join(site, 'index.html'), index.replace('<head>', '<head>\n  <meta name="deployment" content="2">'));
    const worker = readFileSync(join(site, 'service-worker.js'), 'utf8');
    writeFileSync(join(site, 'service-worker.js'), worker.replace(/const VERSION = '[0-9a-f]+';/, "const VERSION = 'deployment2';"));

    await page.reload();
    await ready(page);
    assert.equal(await page.getAttribute('meta[name="deployment"]', 'content'), '2', 'the next visit shows the new page');
    // The new worker installs in the background; once it is active, the old cache is gone.
    for (let waited = 0; waited < 30_000 && (await cacheNames()).join() !== 'dp-playground-deployment2'; waited += 100) {
      await page.waitForTimeout(100);
    }
    assert.deepEqual(await cacheNames(), ['dp-playground-deployment2']);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await server.stop();
    rmSync(site, { recursive: true, force: true });
  }
});

/**
 * What a first visit may cost on the wire: every file of dist/ once (the page's own requests and
 * the service worker's precache), Brotli-compressed, the wasm being about 83 % of it. A cold visit
 * to the development page measured 4.9 MB before the page handed its compiled module to its
 * workers and before the server compressed. Measured 778,798 B when dist/ was built, and
 * 830,089 B the same day once the lessons' predictions, planning backwards, the attacker's view
 * and two more families had landed (their wasm: +56 KB gzipped); set at that plus 2 % of room. A
 * change that passes it slows every first visit, so raise it by the measured amount with the
 * reason here, as tests/e2e/wasm_size.test.mjs does for the wasm.
 */
const COLD_VISIT_BUDGET = 847_000;

test('a cold visit to dist/ served as a good host serves it fetches every file once, the precache included', async () => {
  const requests = [];
  const server = goodServer(['--log'], (line) => {
    const m = line.match(/^GET (\S+) (\d+) (\d+) (\S+)$/);
    if (m) requests.push({ path: m[1], status: Number(m[2]), bytes: Number(m[3]), encoding: m[4] });
  });
  try {
    const base = await server.url;
    assert.equal(base, `http://127.0.0.1:${new URL(base).port}${BASE}`);
    // The headers of a good host: a year for a hashed name, revalidation for an entry point.
    const wasmName = distFiles().find((f) => f.endsWith('.wasm'));
    const hashed = await fetch(`${base}${wasmName}`, { headers: { 'accept-encoding': 'br' } });
    assert.equal(hashed.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(hashed.headers.get('content-encoding'), 'br');
    assert.match(hashed.headers.get('etag'), /-br"$/);
    const entry = await fetch(base);
    assert.equal(entry.headers.get('cache-control'), 'no-cache');
    assert.equal((await fetch(base, { headers: { 'if-none-match': entry.headers.get('etag') } })).status, 304);
    // Their log lines arrive through a pipe: wait for the three, then count the visit's only.
    while (requests.length < 3) await new Promise((resolve) => { setTimeout(resolve, 20); });
    requests.length = 0;

    const { context, page, errors } = await open(base);
    try {
      await ready(page);
      await controlled(page);
      await page.click('#play');
      await page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  } finally {
    await server.stop();
  }
  const paths = requests.map((r) => r.path.split('?')[0].slice(BASE.length) || 'index.html');
  const twice = paths.filter((p, i) => paths.indexOf(p) !== i);
  assert.deepEqual(twice, [], 'files fetched more than once');
  assert.deepEqual(requests.filter((r) => r.status !== 200), [], 'requests that were not answered 200');
  // The service worker precached the whole site, and nothing outside dist/ was asked for.
  assert.deepEqual([...paths].sort(), distFiles().sort());
  const wasm = requests.find((r) => r.path.endsWith('.wasm'));
  assert.equal(wasm.encoding, 'br');
  const total = requests.reduce((s, r) => s + r.bytes, 0);
  console.log(`a cold visit to dist/: ${requests.length} requests, ${total} bytes sent (br)`);
  assert.ok(total <= COLD_VISIT_BUDGET, `a cold visit to dist/ sent ${total} bytes (Brotli), over its budget of `
    + `${COLD_VISIT_BUDGET}: see COLD_VISIT_BUDGET before raising it`);
});
