// A static file server for the playground, bound to 127.0.0.1 only. It serves index.html,
// bench.html (the benchmark page), www/, docs/ and lessons/ with the MIME types ES modules and wasm
// streaming need, and a Content-Security-Policy that forbids every origin but this one (workers take
// their CSP from these headers). As a good static host does: text and wasm compressed (Brotli, or
// gzip, as the browser accepts), and validators (ETag, Last-Modified) so a revisit costs a 304 per
// unchanged file instead of its bytes; `Cache-Control: no-cache` keeps every visit revalidating,
// since these names carry no content hash.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
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

/** The types worth compressing (images are compressed already). */
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.wasm', '.css', '.json', '.svg']);
/**
 * Brotli quality 6: the wasm (2.4 MB) compresses in ~0.2 s to 31 % of its size, once per version
 * of the file (quality 11 saves another 13 % but takes ~8 s).
 */
const BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 6 } };

/** Each file's bytes, validators and compressed copies, kept while its size and mtime stay. */
const cache = new Map();

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
  if (COMPRESSIBLE.has(extname(file)) && body.length > 1024) {
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
    const entry = await load(file);
    const headers = {
      'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
      'Content-Security-Policy': CSP,
      'Cache-Control': 'no-cache',
      'X-Content-Type-Options': 'nosniff',
      ETag: entry.etag,
      'Last-Modified': entry.modified,
      Vary: 'Accept-Encoding',
    };
    if (req.headers['if-none-match'] === entry.etag) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    const encoding = encodingFor(req, entry);
    const body = encoding ? entry[encoding] : entry.body;
    if (encoding) headers['Content-Encoding'] = encoding;
    headers['Content-Length'] = body.length;
    res.writeHead(200, headers);
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
