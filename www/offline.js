// Registers the static site's service worker (www/service-worker.js, at the site's root in dist/),
// which makes the site work offline after the first visit. Only dist/index.html loads this module
// (scripts/dist.mjs adds it): the dev loop (scripts/serve) never registers a worker, so it is
// never served stale files. Registered after the page's load, so the worker's precache reads what
// the page has just downloaded from the HTTP cache instead of competing with it.
if ('serviceWorker' in navigator) {
  const register = () => navigator.serviceWorker
    .register(new URL('../service-worker.js', import.meta.url))
    // No worker (a private window that refuses one, a host on plain http://): the page works as before.
    .catch((e) => console.info(`offline use is not available: ${e.message}`));
  if (document.readyState === 'complete') register();
  else addEventListener('load', register, { once: true });
}
