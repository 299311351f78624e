// The page's modules import one way (docs/ARCHITECTURE.md, "Front end"): the composition roots
// (www/app.js, www/bench.js) → panels → page → drawing and workers → the wasm glue (www/pkg).
// A module may import from its own folder or from a folder below it, never from one beside or
// above it: a panel is mounted by app.js, never imported by the page; the drawing knows nothing
// of the page it is drawn on. No browser: this reads the files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const WWW = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'www');

/** Each folder's height: a module imports only from lower folders (or its own). */
const RANK = { '.': 4, panels: 3, page: 2, drawing: 1, workers: 1, pkg: 0 };

/** Every .js module of www/ (the generated pkg/ aside), as paths relative to www/. */
function modules(folder = '.') {
  return readdirSync(join(WWW, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'pkg' ? [] : modules(path);
    return entry.name.endsWith('.js') ? [path] : [];
  });
}

/** The relative module specifiers `source` imports, statically or with `import(…)`. */
function imports(source) {
  const code = source.replace(/^\s*\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
  const found = [];
  for (const re of [/\bfrom\s+'(\.[^']+)'/g, /\bimport\s+'(\.[^']+)'/g, /\bimport\(\s*'(\.[^']+)'\s*\)/g,
    /new\s+Worker\(\s*new\s+URL\(\s*'(\.[^']+)'/g]) {
    for (const m of code.matchAll(re)) found.push(m[1]);
  }
  return found;
}

/** The folder (a key of RANK) a path relative to www/ lies in. */
const folderOf = (path) => (path.includes('/') ? path.split('/')[0] : '.');

/** The imports of the tree that break the order, as "from → to" lines. */
function violations(files) {
  const bad = [];
  for (const [file, source] of files) {
    const from = folderOf(file);
    for (const spec of imports(source)) {
      const target = normalize(join(dirname(file), spec));
      const to = folderOf(relative('.', target));
      if (!(to in RANK)) bad.push(`${file} → ${spec}: a folder the order does not know`);
      else if (to !== from && RANK[to] >= RANK[from]) bad.push(`${file} → ${spec}`);
    }
  }
  return bad;
}

test('every module of www/ imports only from its own folder or a lower one', () => {
  const files = modules().map((file) => [file, readFileSync(join(WWW, file), 'utf8')]);
  assert.ok(files.length > 30, `the walk found ${files.length} modules; it should find the page's ~50`);
  for (const [file] of files) assert.ok(folderOf(file) in RANK, `${file} is in a folder the order does not know`);
  assert.deepEqual(violations(files), []);
});

test('the check catches an import upward, sideways and through a dynamic import', () => {
  const files = [
    ['drawing/plots.js', "import { x } from '../page/layout.js';"],
    ['drawing/fit.js', "const m = await import('../workers/protocol.js');"],
    ['page/readout.js', "import { y } from '../panels/pins.js';\n// import { z } from '../panels/audit.js';"],
    ['panels/audit.js', "import { z } from '../page/ui.js';\nimport { w } from './sweep.js';"],
  ];
  assert.deepEqual(violations(files), [
    'drawing/plots.js → ../page/layout.js',
    'drawing/fit.js → ../workers/protocol.js',
    'page/readout.js → ../panels/pins.js',
  ]);
});
