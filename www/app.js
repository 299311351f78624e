// The page's composition root: it starts the solver worker, loads the wasm module, builds the
// controls and the plots, mounts the panels and reads the link. All validation happens in Rust
// (normalizeConfig / configFromLink / previews; a CSV file is read and parsed in the worker); the
// modules in www/page/ only move values and messages:
//   state.js         the run state they share, each value with the module that writes it
//   controls.js      the table of controls and the moves between controls and a config
//   link.js          the URL hash, the menus' picks and applying a config
//   conversation.js  the solver worker: preparing, playing and exporting a run
//   readout.js, guarantee.js, card.js, errors.js, csv.js, wiring.js  what their names say
// Panels (www/panels/) join through one API, www/page/mount.js.

import * as wasm from './pkg/dp_playground.js';
import { $ } from './page/ui.js';
import { config, invalid, phase, pins, plotter, run, setConfig, setPlotter } from './page/state.js';
import { buildAlgorithmControls, readControls, syncControls } from './page/controls.js';
import { linkRefusal, showError } from './page/errors.js';
import { showCsvLimit } from './page/csv.js';
import { configFromHash, restoreFromHash } from './page/link.js';
import { listen, pageStarted, received, spawnWorker } from './page/conversation.js';
import { wireControls } from './page/wiring.js';
import { mountPanel } from './page/mount.js';
import { mountLayout } from './page/layout.js';
import { compiledModule } from './workers/wasm-module.js';
import { mountEmbedApi } from './page/embed-api.js';
import { explainPage } from './page/glossary.js';
import { Plotter } from './drawing/plots.js';
import * as lessons from './panels/lessons.js';
import * as neighbours from './panels/neighbours.js';
import * as attack from './panels/attack.js';
import * as audit from './panels/audit.js';
import * as heavy from './panels/heavy.js';
import * as sweep from './panels/sweep.js';
import * as plan from './panels/plan.js';
import * as share from './panels/share.js';

// The solver worker starts first, so its script loads while the one fetch and compile of the wasm
// runs; it receives the compiled module (www/workers/wasm-module.js). Its first message (LOADED)
// waits until the page listens.
spawnWorker();
await wasm.default({ module_or_path: await compiledModule() });
readControls();
buildAlgorithmControls();
setPlotter(new Plotter(
  {
    excess: $('excess-plot'), path: $('path-plot'), noise: $('noise-plot'), privacy: $('privacy-plot'), features: $('features-plot'),
    players: $('players-plot'), vertices: $('vertices-plot'), localisation: $('localisation-plot'),
  },
  // A plot's error is a { field, message } object from Rust (or a JS Error): its words, never
  // "[object Object]".
  (e) => showError({ field: null, message: `A plot could not be drawn: ${e?.message ?? String(e)}` }),
));
// Before the link is read: the folds a narrow screen closes must not hide its errors.
mountLayout({ canvases: Object.values(plotter.canvases), redraw: (canvas) => plotter.redraw(canvas) });
plotter.decorate = (kind, s) => pins.decorate(kind, s, config);

/** What a panel may read of the page (www/page/mount.js). */
const context = {
  wasm,
  settings: () => config,
  validSettings: () => (invalid ? null : config),
  // The data's feature norms are the run's on screen once it is ready (non-private diagnostics).
  featureNorms: () => (phase === 'loading' ? null : run.info?.featureNorms ?? null),
  refusal: () => (invalid ? linkRefusal() : null),
  // A lesson picked before the page has read its link waits: the link is read next anyway.
  restore: () => { if (pageStarted) restoreFromHash(); },
  report: (error) => showError(error),
  // The run on screen once every lane has released: its settings (JSON) and each lane's
  // released metric, algorithm by algorithm, repeat by repeat (NaN where none); else null.
  releasedRun: () => (phase === 'released' && run.info
    ? { config: run.info.config, released: Float64Array.from([...run.allLanes()].map(({ lane }) => lane.release?.excess ?? Number.NaN)) }
    : null),
};

// A lesson's link (`?lesson=…`) puts its preset in the hash before the page reads it.
await mountPanel(lessons, $('lessons'), context).ready;
setConfig(configFromHash());
syncControls();
wireControls();
mountPanel(neighbours, $('neighbours-panel'), context);
mountPanel(attack, $('attack-panel'), context);
mountPanel(audit, $('audit-panel'), context);
mountPanel(heavy, $('heavy-panel'), context);
showCsvLimit();
explainPage();
mountPanel(sweep, $('sweep-panel'), context);
mountPanel(plan, $('plan-panel'), context);
mountPanel(share, $('share'), context);
listen();
window.addEventListener('hashchange', restoreFromHash);
// In an iframe: the parent page may drive the run and hear its releases (www/page/embed-api.js).
mountEmbedApi();

// For the end-to-end tests: frames drawn, so a test can measure the page's frame rate.
window.__dp = {
  plotter: () => plotter, run: () => run, received: () => ({ ...received }),
  // The spec a plot is drawn from (with its pinned layers) and the axes Rust draws it with.
  spec: (kind) => plotter.spec(kind), axes: (kind) => wasm.plotAxes(kind, plotter.spec(kind)),
};
