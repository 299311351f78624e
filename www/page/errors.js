// Errors next to the control they are about, and why Play is off: a refused setting (Rust's
// message beside its field, Play off until it is fixed), a failed preparation, a missing file.

import { $, ui } from './ui.js';
import { fmt, sci } from './format.js';
import { cardsByKind, config, failed, invalid, phase, run, runId, setInvalid, setPending } from './state.js';
import { syncSettings, valueWords } from './controls.js';
import { setState } from './readout.js';
import { showTitle } from './guarantee.js';
import { post } from './conversation.js';
import { ToWorker } from '../workers/protocol.js';
import { reveal } from './layout.js';

/** The error lines the last refusal wrote: a new refusal clears them, so each is the current config's. */
const refusedLines = new Set();

export function clearErrors() {
  document.querySelectorAll('.error').forEach((el) => { el.textContent = ''; });
  refusedLines.clear();
  setInvalid(null);
  showBlocked();
  syncSettings();
}

/**
 * A setting Rust refused: the message goes next to its field, and until it is fixed Play is off,
 * saying why beside it with a link to the field, and nothing runs (not the last valid settings
 * under the new names).
 */
export function refuse(error) {
  for (const el of refusedLines) el.textContent = '';
  refusedLines.clear();
  refusedLines.add(showError(error));
  setInvalid({ field: error?.field ?? null, message: error?.message ?? String(error) });
  setPending(null);
  syncSettings();
  showBlocked();
  if (phase === 'running') {
    // Play (which pauses) is off now: the run on screen stops where it is.
    post({ type: ToWorker.PAUSE, runId });
    setState('paused', 'paused: a setting is invalid');
  } else {
    setState(phase, ui.status.textContent);
  }
}

/** The control a refused field names, and the words of its label (null without one). */
export function controlOf(field) {
  const errorEl = field && ($(`${field}-error`) ?? $(`${field.split('.')[0]}-error`));
  const box = errorEl?.closest('.field');
  // In a group of checks (the compared algorithms): the one ticked, else the first that can be.
  const control = box?.querySelector(':is(input, select, textarea):checked:enabled')
    ?? box?.querySelector(':is(input, select, textarea):enabled');
  if (!control) return null;
  const label = box.querySelector('label, .label');
  return { control, label: (label?.textContent ?? field).trim().replace(/\s+/g, ' ') };
}

/**
 * Why Play is off, whenever it is, in one line beside it: the refused setting (or the failed
 * preparation, or the missing CSV file) with a link to its control, or what to press after a
 * release. Null while Play is on.
 */
function playReason() {
  if (invalid) return { ...invalid, error: true };
  if (!ui.play.disabled) return null;
  if (failed) return { ...failed, error: true };
  if (phase === 'released') {
    return { field: null, message: 'this run is finished and its output released. Reset runs these settings again; New noise draw gives fresh noise on the same data.' };
  }
  if (phase === 'stopped') return { field: null, message: 'preparing the run was cancelled: press Reset to prepare it again.' };
  return { field: null, message: `the run is ${ui.status.textContent}.` };
}

/** Beside Play: why it is off, with a link to the setting to fix (a refusal or a failure is red). */
export function showBlocked() {
  const el = $('play-blocked');
  const reason = playReason();
  if (!reason) {
    el.replaceChildren();
    el.className = 'error';
    showShownSettings();
    return;
  }
  // Red for what must be fixed; a finished run's line is plain help (not an error line).
  el.className = reason.error ? 'error' : 'help';
  const target = controlOf(reason.field);
  const parts = [`Play is off: ${reason.message}`];
  if (target) {
    const link = Object.assign(document.createElement('a'), { href: `#${target.control.id || reason.field}`, textContent: `Fix “${target.label}”` });
    // A link in the page's own words; the hash itself holds the settings, so it is not followed.
    link.addEventListener('click', (event) => {
      event.preventDefault();
      reveal(target.control);
      target.control.scrollIntoView({ block: 'center' });
      target.control.focus();
    });
    el.replaceChildren(`${parts[0]} `, link);
  } else {
    el.replaceChildren(parts[0]);
  }
  showShownSettings();
}

/**
 * Which settings the plots and readouts show (the run's own), and, while a
 * setting is invalid, that these are the last valid ones and not the controls.
 */
export function showShownSettings() {
  const c = JSON.parse(run.info?.config ?? 'null') ?? config;
  if (!c) return;
  const name = (kind) => cardsByKind[kind]?.name ?? kind;
  const names = [c.algorithm, ...(c.compare ?? [])].map(name).join(' vs ');
  const words = [names, `ε = ${fmt(c.epsilon)}`, c.delta === 0 ? 'δ = 0' : `δ = ${sci(c.delta)}`, `n = ${c.n}`, `d = ${c.d}`];
  if (c.repeats > 1) words.push(`${c.repeats} repeats`);
  const key = invalid?.field?.split('.')[0];
  const was = key && key in c && typeof c[key] !== 'object' ? `; ${controlOf(invalid.field)?.label ?? key} = ${valueWords(key, c[key])}` : '';
  // Refused, or valid but unable to run (no CSV file yet, a failed preparation): the plots keep
  // the last good run, and say so in red.
  const blocked = Boolean(invalid || failed);
  const text = invalid
    ? `The plots and readouts show the last good run (the last valid settings, not the controls): ${words.join(', ')}${was}.`
    : blocked ? `The plots and readouts show the last good run, not these settings (see why beside Play): ${words.join(', ')}.`
      : `The plots and readouts show: ${words.join(', ')}.`;
  // Said twice: above the readout and above the plots.
  for (const el of document.querySelectorAll('.shown-settings')) {
    el.textContent = text;
    el.classList.toggle('stale', blocked);
  }
  // The "Settings changed — press Play" label floats over the plots' first line, which says more
  // (in red) while Play is off for a reason: it gives way then, and comes back with the next run.
  const label = $('stale-label');
  if (label) label.hidden = blocked || document.querySelector('section.plots')?.dataset.stale !== 'true';
  showTitle();
}


/** Shows an error beside its field (or on the run's error line); returns the line written. */
export function showError(error) {
  const field = error?.field;
  const el = (field && ($(`${field}-error`) ?? $(`${field.split('.')[0]}-error`))) || $('run-error');
  el.textContent = error?.message ?? String(error);
  // A message inside a closed panel, or beside a setting the algorithm does not read, would go
  // unseen.
  reveal(el);
  el.closest('[hidden]')?.removeAttribute('hidden');
  return el;
}

/** Why no link may be copied while a setting is refused (Copy link and the Share fold). */
export function linkRefusal() {
  const label = controlOf(invalid.field)?.label ?? 'a setting';
  return `Not copied: “${label}” is invalid, and a link now would hold the last valid settings instead. Fix it first.`;
}
