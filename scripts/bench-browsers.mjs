// Opens the benchmark page (/bench.html) in headless Chromium and Firefox and returns its
// `window.benchResults` once the page reports done (or error). Shared by scripts/bench.mjs and
// tests/e2e/bench.test.mjs.
//
// Chromium: playwright-core with Debian's chromium. Firefox: geckodriver over plain
// WebDriver HTTP calls (fetch), because Playwright drives Firefox only through its own patched
// build (not downloadable here), and its WebDriver-BiDi path (channel "moz-firefox") fails on
// Debian's firefox-esr at the first new context ("emulation.setMediaFeaturesOverride: unknown
// command"). geckodriver is installed by scripts/setup.sh and already drives the wasm tests.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { chromium } from 'playwright-core';

const CHROMIUM_ARGS = [
  '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-quic', '--no-first-run',
];
const POLL_MS = 250;

const sleep = (ms) => new Promise((r) => { setTimeout(r, ms); });

function fail(browser, results) {
  return new Error(`${browser}: the benchmark page stopped: ${results?.error ?? 'no result'}`);
}

/** The page's results in Chromium, waiting up to `timeoutMs`. */
export async function benchInChromium(url, { timeoutMs }) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS,
  });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(url);
    await page.waitForFunction(() => window.benchResults && window.benchResults.status !== 'running',
      null, { timeout: timeoutMs, polling: POLL_MS });
    const results = await page.evaluate(() => window.benchResults);
    if (results.status !== 'done') throw fail('Chromium', results);
    if (errors.length) throw new Error(`Chromium: page errors: ${errors.join('; ')}`);
    return results;
  } finally {
    await browser.close();
  }
}

/** A free TCP port on 127.0.0.1 for geckodriver. */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** The page's results in Firefox through geckodriver, waiting up to `timeoutMs`. */
export async function benchInFirefox(url, { timeoutMs }) {
  const port = await freePort();
  const driver = spawn(process.env.GECKODRIVER ?? 'geckodriver', ['--host', '127.0.0.1', '--port', String(port)],
    { stdio: 'ignore', detached: true });
  const base = `http://127.0.0.1:${port}`;
  const call = async (method, path, body) => {
    const res = await fetch(`${base}${path}`, {
      method, headers: { 'content-type': 'application/json' }, body: body && JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`Firefox (geckodriver ${method} ${path}): ${json.value?.message ?? res.status}`);
    return json.value;
  };
  let session = null;
  try {
    for (let i = 0; ; i += 1) { // geckodriver takes a moment to listen
      try {
        await call('GET', '/status');
        break;
      } catch (e) {
        if (i > 100) throw e;
        await sleep(100);
      }
    }
    session = await call('POST', '/session', {
      capabilities: {
        alwaysMatch: {
          browserName: 'firefox',
          'moz:firefoxOptions': { binary: process.env.FIREFOX ?? '/usr/bin/firefox-esr', args: ['-headless'] },
        },
      },
    });
    const sid = session.sessionId;
    await call('POST', `/session/${sid}/url`, { url });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const results = await call('POST', `/session/${sid}/execute/sync`, { script: 'return window.benchResults ?? null;', args: [] });
      if (results && results.status === 'done') return results;
      if (results && results.status === 'error') throw fail('Firefox', results);
      if (Date.now() > deadline) throw new Error(`Firefox: the benchmark page did not finish in ${timeoutMs} ms`);
      await sleep(POLL_MS);
    }
  } finally {
    if (session) await call('DELETE', `/session/${session.sessionId}`).catch(() => {});
    try { process.kill(-driver.pid, 'SIGTERM'); } catch { /* already gone */ }
  }
}
