// The static site's service worker (scripts/dist.mjs writes it to dist/service-worker.js, with
// VERSION and PRECACHE filled in; www/offline.js registers it, in dist/ only: the dev loop has none).
// After the first visit the site works with no network: the page opens, runs and opens every lesson.
//
// - install: caches every file of the site (PRECACHE, relative to this script: the hashed assets,
//   the lessons, the cards, and the pages). The page has just loaded most of them, so each is read
//   from the browser's HTTP cache when it is there (`force-cache`; a hashed name's bytes never
//   change), and nothing is downloaded twice.
// - fetch: a hashed name is answered from the cache, falling back to the network; a page
//   (index.html, bench.html, the folder itself) comes from the network when it answers within
//   NETWORK_WAIT_MS, so a new deployment shows on the next visit, else from the cache, so an
//   offline or stalled network never blocks a load. Anything else goes to the network untouched.
// - activate: deletes the caches of earlier versions and takes control of open pages.
// A new deployment changes this file (its PRECACHE names change), so the browser installs the new
// worker on the next visit, in the background; it replaces the old one as soon as it is installed.

const VERSION = 'dev';
const PRECACHE = [];

const CACHE = `dp-playground-${VERSION}`;
const PAGES = new Set(['index.html', 'bench.html']);
/** How long a page request waits for the network before the cached copy is used. */
const NETWORK_WAIT_MS = 3000;

const scope = new URL('./', self.location);
const urlOf = (path) => new URL(path, scope).href;
const HASHED = new Set(PRECACHE.filter((p) => !PAGES.has(p)).map(urlOf));

/** The page a request names ('index.html' for the folder itself), or null. */
function pageOf(url) {
  if (url.origin !== scope.origin || !url.pathname.startsWith(scope.pathname)) return null;
  const rest = url.pathname.slice(scope.pathname.length);
  if (rest === '') return 'index.html';
  return PAGES.has(rest) ? rest : null;
}

/**
 * A page's response for the cache: the one the browser just loaded when an open tab shows it
 * (the same URL, from the HTTP cache), else a fresh one.
 */
async function fetchPage(page) {
  const tabs = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const shown = tabs.map((t) => new URL(t.url)).find((u) => pageOf(u) === page);
  if (shown) {
    shown.hash = '';
    const response = await fetch(shown, { cache: 'force-cache' }).catch(() => null);
    if (response?.ok) return response;
  }
  return fetch(urlOf(page), { cache: 'no-cache' });
}

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await Promise.all(PRECACHE.map(async (path) => {
      const response = PAGES.has(path) ? await fetchPage(path) : await fetch(urlOf(path), { cache: 'force-cache' });
      if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
      await cache.put(urlOf(path), response);
    }));
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    const names = await caches.keys();
    await Promise.all(names.filter((n) => n.startsWith('dp-playground-') && n !== CACHE).map((n) => caches.delete(n)));
    await self.clients.claim();
  })());
});

/** Cache first: a hashed name's bytes never change. */
async function fromCache(request) {
  const cached = await caches.match(request, { cacheName: CACHE, ignoreSearch: true });
  return cached ?? fetch(request);
}

/** Network first, within NETWORK_WAIT_MS, keeping the answer; the cached page otherwise. */
async function fromNetwork(request, page) {
  const cache = await caches.open(CACHE);
  const network = fetch(request).then(async (response) => {
    if (response.ok && response.type === 'basic') await cache.put(urlOf(page), response.clone());
    return response;
  });
  network.catch(() => {}); // answered from the cache meanwhile: a late failure is no error
  const cached = () => cache.match(urlOf(page));
  const timeout = new Promise((resolve) => { setTimeout(resolve, NETWORK_WAIT_MS); });
  try {
    const first = await Promise.race([network, timeout.then(cached)]);
    if (first) return first;
  } catch {
    const copy = await cached();
    if (copy) return copy;
  }
  return network; // no cached copy: wait for the network, or fail as a page without a worker would
}

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  url.search = '';
  url.hash = '';
  if (HASHED.has(url.href)) {
    event.respondWith(fromCache(request));
    return;
  }
  const page = pageOf(url);
  if (page) event.respondWith(fromNetwork(request, page));
});
