// Writes dist/: the playground as a static site that any static host serves, from any folder
// (a course site's /dp/), with no server configuration. Run by scripts/dist after build_pkg.
//
// - Every file the pages load (www/, www/pkg/, lessons/) is renamed by its content
//   (`app.js` → `app.1a2b3c4d5e.js`, the first 10 hex digits of the SHA-256 of the file as
//   written), so a host may cache it for a year; a file's name changes whenever its bytes or the
//   name of anything it references change. References are rewritten in place: ES module
//   specifiers (`from '…'`, `import '…'`, `import('…')`) and `new URL('…', import.meta.url)` in
//   every module and worker (import maps do not reach dedicated workers), `src`/`href` in the HTML,
//   and lessons/index.json, which gains `files` (lesson id → file name; www/panels/lessons.js
//   reads it).
// - The entry points keep their names: index.html, bench.html (what links and embeds name) and
//   service-worker.js (a service worker's URL must stay put). dist/index.html also loads
//   www/offline.js, which registers the service worker (the dev page never does), preloads its
//   module graph and the wasm, and service-worker.js gets the list of files to precache.
// - Beside each text or wasm file: `.br` (Brotli quality 11) and `.gz` (gzip level 9), for hosts
//   that serve precompressed files (scripts/serve.mjs --dist does).
// - Every URL is relative. A check at the end fails the build when a quoted path in a module
//   still names a file by its unhashed name.
//
// Idempotent and quick on a rerun: compressed copies are reused from the previous dist/ when the
// file's bytes are unchanged (Brotli 11 on the wasm is most of a cold build's time). The new tree
// is written beside dist/ and swapped in at the end.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'dist');

/** Pages, kept at their names (links and embeds name them). */
const PAGES = ['index.html', 'bench.html'];
/** The service worker: its source in www/, its place at the site's root (its scope is its folder). */
const SERVICE_WORKER = { from: 'www/service-worker.js', to: 'service-worker.js' };
/** The module index.html loads in dist/ only: it registers the service worker. */
const REGISTER = 'www/offline.js';
/** The files of www/ and lessons/ that dist/ takes (not, say, a half-written `cards.json.tmp`). */
const ASSET_TYPES = new Set(['.js', '.css', '.json', '.wasm', '.svg', '.png']);
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.svg', '.wasm']);
const HASH_DIGITS = 10;

/** Every file under `dir` (relative to ROOT, with `/`), recursively. */
function walk(dir) {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    return e.isDirectory() ? walk(path) : [path];
  });
}

/** The ranges of `//` line comments and block comments in JS source (what the layer test skips too). */
function commentRanges(code) {
  const ranges = [];
  for (const re of [/^\s*\/\/.*$/gm, /\/\*[\s\S]*?\*\//g]) {
    for (const m of code.matchAll(re)) ranges.push([m.index, m.index + m[0].length]);
  }
  return ranges;
}

/**
 * The places in a file that name another file, as { kind, start, end, spec } (the quoted text's
 * span). JS: 'import' (a static import or export … from), 'dynamic' (`import('…')`) and 'url'
 * (`new URL('…', import.meta.url)`), outside comments; HTML: 'html' (src and href).
 */
function references(path, text) {
  const ext = extname(path);
  const patterns = ext === '.js'
    ? [
      ['import', /\bfrom\s*(['"])([^'"\n]+)\1/g],
      ['import', /\bimport\s*(['"])([^'"\n]+)\1/g],
      ['dynamic', /\bimport\(\s*(['"])([^'"\n]+)\1/g],
      ['url', /\bnew\s+URL\(\s*(['"])([^'"\n]+)\1\s*,\s*import\.meta\.url\s*\)/g],
    ]
    : ext === '.html' ? [['html', /\b(?:src|href)=(["'])([^"'#?:]+)\1/g]] : [];
  const skip = ext === '.js' ? commentRanges(text) : [];
  const found = [];
  for (const [kind, re] of patterns) {
    for (const m of text.matchAll(re)) {
      const start = m.index + m[0].indexOf(m[1] + m[2] + m[1]) + 1;
      if (skip.some(([a, b]) => start >= a && start < b)) continue;
      found.push({ kind, start, end: start + m[2].length, spec: m[2] });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

/** The file (relative to ROOT) a relative reference from `from` names, or null. */
function resolveRef(from, spec) {
  if (/^[a-z]+:|^\/|^#/i.test(spec)) return null; // absolute, data:, fragment
  return posix.normalize(posix.join(posix.dirname(from), spec));
}

/**
 * The strongly connected components of the reference graph (Tarjan), each after every component
 * it references: an order in which each file's references are named before it is.
 */
function components(nodes, deps) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const out = [];
  let next = 0;
  const connect = (v) => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of deps.get(v)) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v) === index.get(v)) {
      const group = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      out.push(group.sort());
    }
  };
  for (const v of nodes) if (!index.has(v)) connect(v);
  return out;
}

/** `dir/name.ext` → `dir/name.<hash>.ext`. */
function hashedName(path, bytes) {
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, HASH_DIGITS);
  const ext = extname(path);
  return `${path.slice(0, -ext.length)}.${hash}${ext}`;
}

/** `spec` with its last segment replaced by the target's new file name. */
const respecified = (spec, newPath) => `${spec.slice(0, spec.lastIndexOf('/') + 1)}${basename(newPath)}`;

function build() {
  const sources = [...walk('www'), ...walk('lessons')]
    .filter((p) => p !== SERVICE_WORKER.from && ASSET_TYPES.has(extname(p)) && !basename(p).startsWith('.'));
  for (const need of ['www/pkg/dp_playground_bg.wasm', 'www/pkg/dp_playground.js', 'www/pkg/cards.json']) {
    if (!sources.includes(need)) throw new Error(`${need} is missing: run scripts/dist (it builds www/pkg first)`);
  }
  const known = new Set([...sources, ...PAGES]);
  const text = new Map([...known].filter((p) => ['.js', '.html'].includes(extname(p)))
    .map((p) => [p, readFileSync(join(ROOT, p), 'utf8')]));

  // Who references whom; lessons/index.json references every lesson it lists.
  const deps = new Map();
  for (const p of known) {
    const refs = text.has(p) ? references(p, text.get(p)) : [];
    deps.set(p, refs.map((r) => resolveRef(p, r.spec)).filter((t) => known.has(t) && t !== p));
  }
  const lessonIndex = JSON.parse(readFileSync(join(ROOT, 'lessons/index.json'), 'utf8'));
  const lessonFile = (id) => `lessons/${id}.json`;
  deps.set('lessons/index.json', lessonIndex.lessons.map(lessonFile));
  for (const f of deps.get('lessons/index.json')) if (!known.has(f)) throw new Error(`lessons/index.json lists ${f}, which does not exist`);

  // Each file after everything it references. Modules that import each other in a cycle (a
  // strongly connected component) are named together, after what they reference outside the cycle.
  const newName = new Map();
  const output = new Map(); // path in dist/ → bytes
  const rewritten = (p) => {
    if (p === 'lessons/index.json') {
      const files = Object.fromEntries(lessonIndex.lessons.map((id) => [id, basename(newName.get(lessonFile(id)))]));
      return Buffer.from(`${JSON.stringify({ ...lessonIndex, files }, null, 2)}\n`);
    }
    if (!text.has(p)) return readFileSync(join(ROOT, p));
    let src = text.get(p);
    for (const r of references(p, src).reverse()) {
      const target = resolveRef(p, r.spec);
      if (newName.has(target)) src = src.slice(0, r.start) + respecified(r.spec, newName.get(target)) + src.slice(r.end);
    }
    return Buffer.from(src);
  };
  for (const group of components([...known].sort(), deps)) {
    if (group.length === 1) {
      const [p] = group;
      const bytes = rewritten(p);
      const name = PAGES.includes(p) ? p : hashedName(p, bytes);
      newName.set(p, name);
      output.set(name, bytes);
      continue;
    }
    // A cycle: each member's name hashes the whole group as it reads before the group's own
    // names are filled in (so it changes with any member's bytes), and the member's path.
    const before = group.map((p) => `${p}\0${rewritten(p)}`).join('\0');
    for (const p of group) newName.set(p, hashedName(p, `${before}\0${p}`));
    for (const p of group) output.set(newName.get(p), rewritten(p));
  }

  // index.html in dist/: preload the page's static module graph (it then starts with the HTML
  // instead of one import level at a time; index.html preloads the wasm itself), and register the
  // service worker.
  const staticImports = (p, seen = new Set()) => {
    for (const r of references(p, text.get(p) ?? '')) {
      const t = resolveRef(p, r.spec);
      if (r.kind === 'import' && !seen.has(t) && known.has(t)) {
        seen.add(t);
        staticImports(t, seen);
      }
    }
    return seen;
  };
  const app = 'www/app.js';
  const head = [
    ...[...staticImports(app)].filter((p) => p !== REGISTER).map((p) => `  <link rel="modulepreload" href="${newName.get(p)}">`),
    `  <script type="module" src="${newName.get(REGISTER)}"></script>`,
  ].join('\n');
  const index = output.get('index.html').toString();
  if (!index.includes('</head>')) throw new Error('index.html has no </head>');
  output.set('index.html', Buffer.from(index.replace('</head>', `  <!-- Added by scripts/dist.mjs. -->\n${head}\n</head>`)));

  // The service worker, with the site's version and what to precache: every file but itself,
  // relative to its own URL (the site's root). The version hashes every file's name and bytes (the
  // pages' too), so a new deployment is a new service worker, which the browser installs on the
  // next visit.
  const precache = [...output.keys()].sort();
  const site = createHash('sha256');
  for (const name of precache) site.update(`${name}\0`).update(output.get(name)).update('\0');
  const version = site.digest('hex').slice(0, HASH_DIGITS);
  const marker = /const VERSION = 'dev';\nconst PRECACHE = \[\];/;
  const worker = readFileSync(join(ROOT, SERVICE_WORKER.from), 'utf8');
  if (!marker.test(worker)) throw new Error(`${SERVICE_WORKER.from}: the VERSION/PRECACHE lines scripts/dist.mjs fills were not found`);
  output.set(SERVICE_WORKER.to, Buffer.from(worker.replace(marker,
    `const VERSION = '${version}';\nconst PRECACHE = ${JSON.stringify(precache, null, 2)};`)));

  checkNoUnhashedNames(output, newName);
  return output;
}

/**
 * Fails when a quoted path in a module or page of dist/ still resolves to a file's unhashed name
 * (a reference written in a way `references` does not know, which would 404 in dist/).
 */
function checkNoUnhashedNames(output, newName) {
  const renamed = new Map([...newName].filter(([from, to]) => from !== to));
  const left = [];
  for (const [path, bytes] of output) {
    if (!['.js', '.html'].includes(extname(path))) continue;
    const src = bytes.toString();
    const skip = extname(path) === '.js' ? commentRanges(src) : [];
    for (const m of src.matchAll(/(['"`])([\w./-]+\.(?:js|css|json|wasm))\1/g)) {
      if (skip.some(([a, b]) => m.index >= a && m.index < b)) continue;
      // A path relative to the file or to its folders above (a base folder joined at run time).
      const base = posix.dirname(path);
      const candidates = [posix.normalize(posix.join(base, m[2])), m[2], `www/${m[2]}`];
      const hit = candidates.find((c) => renamed.has(c));
      if (hit) left.push(`${path}: '${m[2]}' names ${hit}, which dist/ holds as ${renamed.get(hit)}`);
    }
  }
  if (left.length) throw new Error(`unhashed names left in dist/ (teach scripts/dist.mjs this kind of reference):\n  ${left.join('\n  ')}`);
}

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

/** Writes `output` to a fresh tree beside dist/, reusing dist/'s compressed copies of unchanged files, then swaps it in. */
async function write(output) {
  const tmp = `${OUT}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  let reused = 0;
  let compressed = 0;
  const jobs = [];
  for (const [path, bytes] of output) {
    const to = join(tmp, path);
    mkdirSync(dirname(to), { recursive: true });
    writeFileSync(to, bytes);
    if (!COMPRESSIBLE.has(extname(path))) continue;
    const old = join(OUT, path);
    if (existsSync(`${old}.br`) && existsSync(`${old}.gz`) && existsSync(old) && readFileSync(old).equals(bytes)) {
      writeFileSync(`${to}.br`, readFileSync(`${old}.br`));
      writeFileSync(`${to}.gz`, readFileSync(`${old}.gz`));
      reused += 1;
      continue;
    }
    compressed += 1;
    jobs.push(brotli(bytes, { params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      [constants.BROTLI_PARAM_MODE]: extname(path) === '.wasm' ? constants.BROTLI_MODE_GENERIC : constants.BROTLI_MODE_TEXT,
    } }).then((b) => writeFileSync(`${to}.br`, b)));
    jobs.push(gz(bytes, { level: 9 }).then((b) => writeFileSync(`${to}.gz`, b)));
  }
  await Promise.all(jobs);
  rmSync(OUT, { recursive: true, force: true });
  renameSync(tmp, OUT);
  return { reused, compressed };
}

const started = Date.now();
const output = build();
const { reused, compressed } = await write(output);
const bytes = [...output.values()].reduce((s, b) => s + b.length, 0);
console.log(`dist/: ${output.size} files (${(bytes / 1e6).toFixed(2)} MB before compression; `
  + `${compressed} compressed, ${reused} reused) in ${((Date.now() - started) / 1000).toFixed(1)} s`
  + ` → ${relative(process.cwd(), OUT) || '.'}/`);
