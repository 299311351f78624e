// Shared pieces of the end-to-end tests: the README serve command on a free port, and Debian's
// Chromium driven by playwright-core (no browser download: the tests use the Chromium the system has).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('../..', import.meta.url));

export const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];

/**
 * Starts `scripts/serve --port 0` (the README command) and resolves with its URL. `args` adds to
 * the command, `onLine` sees each line it prints, and `command` may name another server script
 * that prints its URL the same way (e.g. ['node', 'scripts/serve.mjs'], which builds nothing).
 */
export function serve(args = [], onLine = () => {}, command = ['bash', 'scripts/serve']) {
  const child = spawn(command[0], [...command.slice(1), '--port', '0', ...args], { cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const url = new Promise((resolve, reject) => {
    let out = '';
    let rest = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+\/\S*/);
      if (m) resolve(m[0]);
      const lines = (rest + d).split('\n');
      rest = lines.pop();
      lines.forEach(onLine);
    });
    child.on('exit', (code) => reject(new Error(`${command.join(' ')} exited with ${code}: ${stderr}`)));
  });
  const stop = () => { try { process.kill(-child.pid, 'SIGTERM'); } catch { /* already gone */ } };
  return { url, stop };
}

export function launch() {
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

/** Remembers the pixels of a canvas inside the page (shipping them out would cost seconds). */
export function snapshotCanvas(page, selector) {
  return page.$eval(selector, (c) => {
    window.__snapshots ??= {};
    window.__snapshots[c.id] = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  });
}

/** How many pixels of a canvas differ from its snapshot. */
export function changedPixels(page, selector) {
  return page.$eval(selector, (c) => {
    const before = window.__snapshots[c.id];
    const now = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < now.length; i += 4) {
      if (now[i] !== before[i] || now[i + 1] !== before[i + 1] || now[i + 2] !== before[i + 2]) n += 1;
    }
    return n;
  });
}

/** Waits until the page's plotter has drawn everything it was asked to (it draws one plot per frame). */
export function plotsDrawn(page) {
  return page.waitForFunction(() => window.__dp?.plotter().idle, null, { timeout: 10_000 });
}

/**
 * A served page with its browser: `open(hash)` gives a fresh page with every console error, page
 * error and request recorded. Call `close()` when done.
 */
export async function session() {
  // DP_E2E_BASE: test the site already served at that URL instead (tests/e2e/dist.test.mjs runs
  // the smoke tests against dist/ in a subfolder of a plain static server that way).
  const given = process.env.DP_E2E_BASE;
  const server = given ? { url: Promise.resolve(given), stop() {} } : serve();
  const base = await server.url;
  const browser = await launch();
  // `options`: more of playwright's context options (e.g. { deviceScaleFactor: 2 }).
  const open = async (hash = '', viewport = { width: 1280, height: 900 }, options = {}) => {
    const context = await browser.newContext({ viewport, ...options });
    const seen = { errors: [], requests: [] };
    context.on('request', (r) => seen.requests.push(r.url()));
    const page = await context.newPage();
    // Distinct messages only, so one repeated failure does not bury the report.
    const record = (text) => { if (!seen.errors.includes(text)) seen.errors.push(text); };
    page.on('console', (m) => { if (m.type() === 'error') record(m.text()); });
    page.on('pageerror', (e) => record(String(e)));
    await page.goto(`${base}${hash}`);
    return { context, page, seen };
  };
  const close = async () => {
    await browser.close();
    server.stop();
  };
  return { base, open, close };
}

/**
 * Opens the page's "more settings" fold (closed on a fresh page) as a person
 * does, by its summary; a fold an error already opened stays open.
 */
export async function openMoreSettings(page) {
  if (!(await page.$eval('#more-settings', (d) => d.open))) await page.click('#more-settings > summary');
}

/**
 * Opens the "Algorithm: card and comparison" fold (closed on a fresh page) as a
 * person does, by its summary, so the compare boxes can be ticked.
 */
export async function openAlgorithmPanel(page) {
  if (!(await page.$eval('#algorithm-panel', (d) => d.open))) await page.click('#algorithm-panel > summary');
}

/** The page's error lines that hold a message, as `id: message`. */
export const errorsShown = (page) => page.$$eval('.error', (els) => els
  .filter((el) => el.textContent.trim() !== '')
  .map((el) => `${el.id}: ${el.textContent}`));

/** The config of the run the page shows. */
export const configInUse = (page) => page.evaluate(() => JSON.parse(window.__dp.run().info.config));

/** Waits until the page's run is prepared (ready to Play). */
export const ready = (page) => page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });

/**
 * A fresh page switched to a game as a newcomer does it: the page ready, the "more settings"
 * fold opened, `saddle` picked from the problem menu and the run ready again.
 */
export async function openGame(lab) {
  const opened = await lab.open();
  await ready(opened.page);
  await openMoreSettings(opened.page);
  await opened.page.selectOption('#problem', 'saddle');
  await ready(opened.page);
  return opened;
}

/**
 * Snapshots `canvases`, presses Play and waits for the release: no error line shows, the status
 * says released, and the release line reads `x = (…), y = (…); duality gap …` (`x = (…) (only x is
 * released); duality gap at (x, y₀) …` for a run that releases x alone); then each canvas
 * changed by more than `pixels` pixels.
 */
export async function playGameToRelease(page, canvases = ['#excess-plot', '#players-plot'], pixels = 500) {
  await plotsDrawn(page);
  for (const c of canvases) await snapshotCanvas(page, c);
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"], #status[data-state="error"]', { timeout: 60_000 });
  assert.deepEqual(await errorsShown(page), []);
  assert.equal(await page.getAttribute('#status', 'data-state'), 'released');
  assert.match(await page.textContent('#release'), /^x = \(.*\)(, y = \(.*\); duality gap| \(only x is released\); duality gap at \(x, y₀\)) \d/);
  await plotsDrawn(page);
  for (const c of canvases) {
    const changed = await changedPixels(page, c);
    assert.ok(changed > pixels, `${c}: ${changed} pixels changed`);
  }
}
