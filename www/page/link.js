// The settings and the URL hash: a link restores exactly what it says, a pick from a menu
// changes what the pick needs (with a note), and every valid change becomes the hash and a new run.

import { configFromLink, configFromUrl, normaliseConfig, pickAlgorithm, pickProblem, previews } from '../pkg/dp_playground.js';
import { $ } from './ui.js';
import { cardsByKind, config, run, setConfig } from './state.js';
import { fromControls, syncControls, valueWords } from './controls.js';
import { clearErrors, controlOf, refuse, showError } from './errors.js';
import { csvId } from './csv.js';
import { startRun } from './conversation.js';
import { markStale } from './steady.js';

/**
 * What the last pick from a menu changed, by key: { was, now, by } (values as JSON texts, `by`
 * the pick's name). The next pick restores `was` where the control still holds `now`, so a
 * setting an earlier pick forced (say the simplex) does not outlive the pick that needed it.
 */
let forced = {};

/** The config in the URL hash, read field by field: what cannot be used falls back alone. */
export function configFromHash() {
  // Decoded in Rust (RunConfig::from_link), the reader `dp-playground run <link>` uses too.
  const out = configFromUrl(location.hash);
  for (const e of out.errors) {
    // Rust's message names the control by its label and says what to do; the link's key is not the page's word.
    showError({ field: e.field, message: `${e.message} The link's value was not used: the default is shown.` });
  }
  const c = JSON.parse(out.config);
  if (c.data === 'csv' && csvId === null) {
    showError({ field: 'data', message: 'This link was made with a CSV file, which a link cannot carry: load the file again. Showing synthetic data meanwhile.' });
    c.data = 'synthetic';
  }
  return c;
}

/**
 * A person picked an algorithm from the menu: the controls' values with every need of the
 * algorithm met (Rust's pickAlgorithm: a ridge, a domain, a step count …), applied with a note
 * saying what changed and why. A link is never adjusted: it restores exactly what it says.
 */
export function pickFromMenu() {
  const kind = $('algorithm').value;
  pickWith((from) => pickAlgorithm(from, kind), cardsByKind[kind]?.name ?? kind);
}

/**
 * A person switched the problem menu (minimise, or a game): Rust's pickProblem poses it, an
 * algorithm that cannot solve it giving way to the first that can, each change with its note.
 */
export function pickProblemFromMenu() {
  const problem = $('problem').value;
  pickWith((from) => pickProblem(from, problem), problem === 'saddle' ? 'the game' : 'the minimisation');
}

/** The menus themselves: a pick sets them, and the next pick never puts them back. */
const PICKED = ['algorithm', 'problem', 'game', 'compare'];

/** Applies `picker`'s config (Rust's pick, from the controls as they stand) with its notes. */
export function pickWith(picker, name) {
  const controls = fromControls();
  // What the previous pick forced and this one may not need goes back first (Rust's pick then
  // forces it again if this algorithm needs it too); a control changed since keeps its value.
  const restored = [];
  for (const [key, { was, now, by }] of Object.entries(forced)) {
    if (JSON.stringify(controls[key]) !== now) continue;
    controls[key] = JSON.parse(was);
    restored.push({ key, by, now: JSON.parse(now) });
  }
  forced = {};
  // Picked from where the person stands: the controls as they were under the algorithm in use
  // (Rust reads them leniently, and a setting the new algorithm refuses, say the pitfall toggle,
  // must reach the pick to be turned off with a note rather than dropped unseen).
  const from = JSON.stringify({ ...controls, algorithm: config.algorithm, problem: config.problem });
  let picked;
  try {
    picked = picker(from);
  } catch (e) {
    if (restored.length) syncControls(controls);
    refuse(e);
    return;
  }
  // Only what the pick changed replaces the controls' values, so a value still being typed (not
  // yet a valid setting) stays where the person can see and fix it.
  const read = JSON.parse(configFromLink(from).config);
  const candidate = { ...controls };
  for (const [key, value] of Object.entries(JSON.parse(picked.config))) {
    // The menus a pick sets are always the pick's: the lenient read may already hold a fallback
    // equal to the pick's value while the menu still shows the previous choice.
    if (!PICKED.includes(key) && JSON.stringify(value) === JSON.stringify(read[key])) continue;
    candidate[key] = value;
    if (!PICKED.includes(key)) forced[key] = { was: JSON.stringify(read[key]), now: JSON.stringify(value), by: name };
  }
  // A restored setting this pick forces again is the pick's note, not a restoration.
  const back = restored.filter(({ key }) => !(key in forced)).map(({ key, by, now }) => `${controlOf(key)?.label ?? key} back to ${valueWords(key, candidate[key])} (${by} had set ${valueWords(key, now)}, which this one does not need)`);
  const notes = [...picked.notes, ...back];
  $('algorithm-note').textContent = notes.length ? `For ${name}: ${notes.join('; ')}.` : '';
  syncControls(candidate);
  applyConfig(candidate);
}

/**
 * Validates `candidate` in Rust; on success it becomes the config, the hash is updated and a new
 * run starts. On failure the message goes next to the field and the last good run stays.
 */
export function applyConfig(candidate) {
  let normalised;
  let list;
  try {
    normalised = JSON.parse(normaliseConfig(JSON.stringify(candidate)));
    list = previews(JSON.stringify(normalised));
  } catch (e) {
    refuse(e);
    return false;
  }
  clearErrors();
  setConfig(normalised);
  window.history.replaceState(null, '', `#${encodeURIComponent(JSON.stringify(config))}`);
  markStale(Boolean(run.info));
  startRun(list);
  return true;
}

/** A link was opened (or a lesson picked): the settings in the hash replace the page's. */
export function restoreFromHash() {
  clearErrors();
  forced = {};
  // A link restores exactly what it says: the note of an earlier pick no longer applies.
  $('algorithm-note').textContent = '';
  setConfig(configFromHash());
  syncControls();
  markStale(Boolean(run.info));
  startRun();
}
