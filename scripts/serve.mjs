// A static file server for the playground, bound to 127.0.0.1 only. It serves index.html,
// bench.html (the benchmark page), www/, docs/ and lessons/ with the MIME types ES modules and wasm
// streaming need, and a Content-Security-Policy that forbids every origin but this one (workers take
// their CSP from these headers).
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};
// style-src-attr 'unsafe-inline': plotters measures label text with a temporary <span style=…>
// (plotters 0.3.7, style/font/web.rs); style elements and sheets stay limited to this origin.
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; "
  + "style-src 'self'; style-src-attr 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; font-src 'none'; "
  + "object-src 'none'; base-uri 'none'; form-action 'none'";

function portFromArgs(argv) {
  const i = argv.indexOf('--port');
  const raw = i >= 0 ? argv[i + 1] : process.env.PORT ?? '8000';
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port: expected an integer in [0, 65535], got ${raw}`);
    process.exit(2);
  }
  return port;
}

/** The file a URL path names, or null when it is outside what we serve. */
function resolve(urlPath) {
  let path;
  try {
    path = decodeURIComponent(urlPath.split('?')[0]);
  } catch {
    return null; // malformed percent-encoding
  }
  const rel = normalize(path === '/' ? '/index.html' : path).replace(/^[/\\]+/, '');
  const allowed = rel === 'index.html' || rel === 'bench.html' || rel.startsWith(`www${sep}`)
    || rel.startsWith(`docs${sep}`) || rel.startsWith(`lessons${sep}`);
  return allowed && !rel.includes('..') ? join(root, rel) : null;
}

const server = createServer(async (req, res) => {
  const file = resolve(req.url ?? '/');
  try {
    if (!file || (req.method !== 'GET' && req.method !== 'HEAD')) throw Object.assign(new Error(), { code: 'ENOENT' });
    const body = await readFile(file);
    res.writeHead(200, {
      'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
      'Content-Security-Policy': CSP,
      'Cache-Control': 'no-cache',
      'X-Content-Type-Options': 'nosniff',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  } catch (e) {
    const missing = e.code === 'ENOENT' || e.code === 'EISDIR';
    res.writeHead(missing ? 404 : 500, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end(missing ? 'not found\n' : 'server error\n');
  }
});

const wanted = portFromArgs(process.argv);
server.on('error', (e) => {
  if (e.code === 'EADDRINUSE') console.error(`port ${wanted} is in use: try scripts/serve --port 0`);
  else console.error(e.message);
  process.exit(1);
});
server.listen(wanted, '127.0.0.1', () => {
  const { port } = server.address();
  console.log(`dp-playground is served at http://127.0.0.1:${port}/  (Ctrl-C stops it)`);
});
