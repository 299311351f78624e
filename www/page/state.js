// The run state the page's modules share, in one place. Each value is read through its live
// binding (`import { config } from './state.js'`) and written only through its setter, by the
// module named beside it; everything else a module needs lives in that module.

import { RunHistory } from '../drawing/plots.js';
import { Pins } from './pins.js';

/** The last valid RunConfig (all fields, as normalised by Rust). Written by page/link.js. */
export let config = null;
export const setConfig = (c) => { config = c; };

/** The id of the current run; the worker's messages about other runs are stale. Written by page/conversation.js. */
export let runId = 0;
export const nextRunId = () => { runId += 1; return runId; };

/** The run on screen (its history, from the worker's batches). Written by page/conversation.js. */
export let run = new RunHistory();
export const setRun = (r) => { run = r; };

/** The run's phase ('loading', 'ready', 'running', 'paused', 'released', …). Written by page/readout.js setState. */
export let phase = 'loading';
export const setPhase = (p) => { phase = p; };

/**
 * The setting Rust refused while the controls still show it ({ field, message }), else null.
 * While it is set nothing runs: the plots show the last valid settings and Play says why it is off.
 * Written by page/errors.js (refuse, clearErrors).
 */
export let invalid = null;
export const setInvalid = (v) => { invalid = v; };

/**
 * 'play' or 'step' when clicked while a run is being prepared, done once it is ready. A field's
 * change (say a typed value, committed as the pointer goes down on Play) starts a new run; the
 * click that follows is kept rather than lost on a disabled button. Written by page/wiring.js
 * (the click), and cleared where the run it waits for goes (a refusal, a cancel, the run ready).
 */
export let pending = null;
export const setPending = (p) => { pending = p; };

/**
 * Why the run on screen cannot play although no setting is refused ({ field, message }), or
 * null: the worker could not prepare it, or the CSV data have no file yet. Said beside Play.
 * Written by page/conversation.js and page/csv.js.
 */
export let failed = null;
export const setFailed = (f) => { failed = f; };

/** Cards by algorithm kind, from Rust; filled once by page/controls.js, their prose by page/card.js. */
export const cardsByKind = {};

/**
 * Every setting some algorithm reads (a RunConfig key, the id of its control), from the cards: a
 * control shows only while the main or a compared algorithm reads it. Filled once by page/controls.js.
 */
export const settingKeys = [];

/** Finished runs kept on the plots to compare with the next (www/page/pins.js). */
export const pins = new Pins();

/** The plots of the run on screen (www/drawing/plots.js); set once by www/app.js. */
export let plotter = null;
export const setPlotter = (p) => { plotter = p; };
