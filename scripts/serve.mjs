// A static file server for the playground, bound to 127.0.0.1 only. It serves index.html,
// bench.html (the benchmark page), www/, docs/ and lessons/ with the MIME types ES modules and wasm
// streaming need, and a Content-Security-Policy that forbids every origin but this one (workers take
// their CSP from these headers). As a good static host does: text and wasm compressed (Brotli, or
// gzip, as the browser accepts), and validators (ETag, Last-Modified) so a revisit costs a 304 per
// unchanged file instead of its bytes; `Cache-Control: no-cache` keeps every visit revalidating,
// since these names carry no content hash.
//
// With `--dist` it serves dist/ (the static site scripts/dist writes) as a good static host does:
// the precompressed `.br` or `.gz` copy beside a file, picked by Accept-Encoding; validators;
// `Cache-Control: public, max-age=31536000, immutable` for content-hashed names and `no-cache` for
// the entry points (index.html, bench.html, service-worker.js); under `--base /dp/` the site sits
// in that folder, as on a course site. Its default port is 8001, not the dev loop's 8000: a
// service worker belongs to its origin, and the dev loop must never meet one.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { access, readFile, stat } from 'node:fs/promises';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const DIST = process.argv.includes('--dist');
const root = DIST ? join(repo, 'dist') : repo;
/** dist/'s content-hashed names (scripts/dist.mjs): `name.<10 hex digits>.ext`. */
const HASHED = /\.[0-9a-f]{10}\.[a-z]+$/;
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

/** The types worth compressing (images are compressed already). */
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.wasm', '.css', '.json', '.svg']);
/**
 * Brotli quality 6: the wasm (2.4 MB) compresses in ~0.2 s to 31 % of its size, once per version
 * of the file (quality 11 saves another 13 % but takes ~8 s).
 */
const BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 6 } };

/** Each file's bytes, validators and compressed copies, kept while its size and mtime stay. */
const cache = new Map();

/** `file.br` / `file.gz` as written by scripts/dist, or undefined when absent. */
const precompressed = (file, suffix) => access(`${file}${suffix}`).then(() => readFile(`${file}${suffix}`), () => undefined);

/** The served form of `file`: { body, etag, modified, br?, gzip? } for its current version. */
async function load(file) {
  const info = await stat(file);
  const version = `${info.size}-${info.mtimeMs}`;
  const kept = cache.get(file);
  if (kept?.version === version) return kept;
  const body = await readFile(file);
  const entry = {
    version,
    body,
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
    modified: info.mtime.toUTCString(),
  };
  if (DIST) {
    // The copies scripts/dist wrote; each encoding is its own representation, with its own tag.
    entry.br = await precompressed(file, '.br');
    entry.gzip = await precompressed(file, '.gz');
  } else if (COMPRESSIBLE.has(extname(file)) && body.length > 1024) {
    entry.br = brotliCompressSync(body, BROTLI);
    entry.gzip = gzipSync(body, { level: 9 });
  }
  cache.set(file, entry);
  return entry;
}

/** The encoding to send: Brotli if accepted, else gzip if accepted, else none. */
function encodingFor(req, entry) {
  const accepted = String(req.headers['accept-encoding'] ?? '');
  if (entry.br && /\bbr\b/.test(accepted)) return 'br';
  if (entry.gzip && /\bgzip\b/.test(accepted)) return 'gzip';
  return null;
}

function portFromArgs(argv) {
  const i = argv.indexOf('--port');
  const raw = i >= 0 ? argv[i + 1] : process.env.PORT ?? (DIST ? '8001' : '8000');
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port: expected an integer in [0, 65535], got ${raw}`);
    process.exit(2);
  }
  return port;
}

/** `--base /dp/` (dist only): the folder the site is served from, with slashes at both ends. */
function baseFromArgs(argv) {
  const i = argv.indexOf('--base');
  if (i < 0) return '/';
  const raw = argv[i + 1] ?? '';
  if (!DIST || !/^\/?[\w.~-]+(\/[\w.~-]+)*\/?$/.test(raw) || raw.split('/').includes('..')) {
    console.error(`--base: expected a folder such as /dp/ (with --dist), got ${raw || 'nothing'}`);
    process.exit(2);
  }
  return `/${raw.replace(/^\/|\/$/g, '')}/`;
}
const base = baseFromArgs(process.argv);

/** The file of dist/ a URL path names, or null (outside the base folder, or not a file of it). */
function resolveDist(urlPath) {
  let path;
  try {
    path = decodeURIComponent(urlPath.split('?')[0]);
  } catch {
    return null;
  }
  if (!path.startsWith(base)) return null;
  const rel = normalize(path.slice(base.length) || 'index.html').replace(/^[/\\]+/, '');
  return rel.includes('..') ? null : join(root, rel);
}

/** The file a URL path names, or null when it is outside what we serve. */
function resolve(urlPath) {
  if (DIST) return resolveDist(urlPath);
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
  if (DIST && base !== '/' && (req.url ?? '/').split('?')[0] === base.slice(0, -1)) {
    res.writeHead(301, { Location: base });
    res.end();
    return;
  }
  const file = resolve(req.url ?? '/');
  try {
    if (!file || (req.method !== 'GET' && req.method !== 'HEAD')) throw Object.assign(new Error(), { code: 'ENOENT' });
    const entry = await load(file);
    const headers = {
      'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
      'Content-Security-Policy': CSP,
      'Cache-Control': DIST && HASHED.test(file) ? 'public, max-age=31536000, immutable' : 'no-cache',
      'X-Content-Type-Options': 'nosniff',
      ETag: entry.etag,
      'Last-Modified': entry.modified,
      Vary: 'Accept-Encoding',
    };
    const encoding = encodingFor(req, entry);
    if (DIST && encoding) headers.ETag = `${entry.etag.slice(0, -1)}-${encoding}"`;
    if (req.headers['if-none-match'] === headers.ETag) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    const body = encoding ? entry[encoding] : entry.body;
    if (encoding) headers['Content-Encoding'] = encoding;
    headers['Content-Length'] = body.length;
    res.writeHead(200, headers);
    res.sent = { bytes: req.method === 'HEAD' ? 0 : body.length, encoding: encoding ?? 'identity' };
    res.end(req.method === 'HEAD' ? undefined : body);
  } catch (e) {
    const missing = e.code === 'ENOENT' || e.code === 'EISDIR';
    res.writeHead(missing ? 404 : 500, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end(missing ? 'not found\n' : 'server error\n');
  }
});

const wanted = portFromArgs(process.argv);
// `--log`: one line per request on stdout, `GET <path> <status> <bytes sent> <encoding>` (tests count them).
if (process.argv.includes('--log')) {
  server.on('request', (req, res) => res.on('finish', () => {
    const { bytes, encoding } = res.sent ?? { bytes: 0, encoding: 'identity' };
    console.log(`${req.method} ${req.url} ${res.statusCode} ${bytes} ${encoding}`);
  }));
}
server.on('error', (e) => {
  if (e.code === 'EADDRINUSE') console.error(`port ${wanted} is in use: try scripts/serve --port 0`);
  else console.error(e.message);
  process.exit(1);
});
server.listen(wanted, '127.0.0.1', () => {
  const { port } = server.address();
  const what = DIST ? 'dist/ (the static site) is' : 'dp-playground is';
  console.log(`${what} served at http://127.0.0.1:${port}${base}  (Ctrl-C stops it)`);
});
