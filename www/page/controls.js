// The run's controls: which RunConfig field each control holds, and the moves between the
// controls and a config (read them, set them, show the ones the algorithm reads). Rust validates
// every value (normalizeConfig); this file only moves them.
//
// Which controls are plain numbers, optional numbers and menus comes from the wasm's table of
// controls (src/config/controls.rs: one row per setting, its key, label, kind and range); the page
// keeps only the controls it draws in its own way, in PAGE_OWN.

import { cards, controls } from '../pkg/dp_playground.js';
import { syncGameFields } from './game-facts.js';
import { summariseCompare } from './layout.js';
import { fmt } from './format.js';
import { $, ui } from './ui.js';
import { cardsByKind, config, settingKeys } from './state.js';

/**
 * The controls the page draws in its own way, as [RunConfig key, kind, more]: 'number' (the seed,
 * beside its dice button), 'check' (a box; `more` is its id when that is not the key) and 'tagged'
 * (a menu of kinds, the config's value `{ kind, …params }`; `more` lists each kind's parameters as
 * [key, label (null: the field keeps its own), default, id of its input]). ε (a slider and a typed
 * value together) and the compared algorithms (a group of boxes) are handled below.
 */
const PAGE_OWN = [
  ['seed', 'number'],
  ['unseeded_noise', 'check', 'unseeded'], ['leak', 'check'], ['clip_records', 'check'],
  // The loss parameter each loss takes (if any), and the declared label bound of each residual
  // loss (targets are clipped to it).
  ['loss', 'tagged', {
    smoothed_hinge: [['gamma', 'smoothing γ', 1, 'loss-param']],
    huber: [['delta', 'Huber δ', 1, 'loss-param'], ['label_bound', null, 10, 'label-bound']],
    squared: [['label_bound', null, 1, 'label-bound']],
    absolute: [['label_bound', null, 10, 'label-bound']],
  }],
  // The parameter of each aggregation (Lowy & Razaviyayn 2021, "Output Perturbation for
  // Differentially Private Convex Optimization", §7).
  ['wrap', 'tagged', {
    tilted: [['tau', 'tilt τ', 1, 'wrap-param']],
    adversarial: [['radius', 'perturbation radius ‖v‖ ≤', 0.1, 'wrap-param']],
  }],
  // The parameters of each feature tail (first, second).
  ['tail', 'tagged', {
    student_t: [['nu', 'degrees of freedom ν', 3, 'tail-a']],
    pareto_radial: [['alpha', 'tail index α', 3, 'tail-a']],
    log_normal: [['sigma', 'log-normal σ', 1, 'tail-a']],
    contaminated: [['p', 'outlier fraction p', 0.05, 'tail-a'], ['scale', 'outlier scale', 10, 'tail-b']],
    rare_outlier: [['p', 'outlier probability p', 0.01, 'tail-a'], ['a', 'outlier size a', 100, 'tail-b']],
  }],
  // The parameter of each regression-noise law.
  ['noise_tail', 'tagged', {
    student_t: [['nu', 'noise degrees of freedom ν', 3, 'noise_tail-a']],
    pareto_radial: [['alpha', 'noise tail index α', 3, 'noise_tail-a']],
  }],
];

/**
 * The controls by kind: the one object the page reads them from, filled by `readControls` once
 * the wasm module is loaded.
 */
export const CONTROLS = { numbers: [], optional: [], choices: [], checks: [], tagged: [], ids: [] };

/**
 * Fills CONTROLS from the wasm's table of controls and PAGE_OWN, and gives an empty
 * `<label for=key>` the table's words.
 */
export function readControls() {
  const rows = controls().filter((r) => r.page === 'plain');
  const keys = (test) => rows.filter(test).map((r) => r.key);
  const own = (kind) => PAGE_OWN.filter(([, k]) => k === kind);
  const tagged = own('tagged').map(([key, , kinds]) => ({
    key,
    kinds,
    // Every parameter input of the menu, in the order its kinds first use them.
    inputs: [...new Set(Object.values(kinds).flat().map(([, , , id]) => id))],
  }));
  Object.assign(CONTROLS, {
    numbers: [...keys((r) => (r.kind === 'integer' || r.kind === 'number') && !r.optional), ...own('number').map(([k]) => k)],
    optional: keys((r) => r.kind === 'number' && r.optional),
    choices: keys((r) => r.kind === 'choice'),
    checks: own('check').map(([key, , id]) => ({ key, id: id ?? key })),
    tagged,
  });
  /** The id of every control a change of which applies the controls (ε's are the page's own). */
  CONTROLS.ids = [
    ...CONTROLS.numbers, ...CONTROLS.optional, ...CONTROLS.choices, ...CONTROLS.checks.map((c) => c.id),
    ...tagged.flatMap((t) => [t.key, ...t.inputs]),
  ];
  for (const r of rows) {
    const label = document.querySelector(`label[for="${r.key}"]`);
    if (label && label.textContent.trim() === '') label.textContent = r.label;
  }
}

/** A control's number, or its raw text when it is not one (so that Rust can name the field). */
export function numberOrText(text) {
  const t = String(text).trim();
  return t !== '' && Number.isFinite(Number(t)) ? Number(t) : t;
}

export function epsilonFromSlider() {
  return Number((10 ** Number(ui.epsilon.value)).toPrecision(2));
}

/** A tagged menu's value as its controls stand: `{ kind, …params }`. */
function taggedFromControls({ key, kinds }) {
  const kind = $(key).value;
  const value = { kind };
  for (const [param, , , id] of kinds[kind] ?? []) value[param] = numberOrText($(id).value);
  return value;
}

/** The loss as its controls stand. */
export function lossFromControls() {
  return taggedFromControls(CONTROLS.tagged.find((t) => t.key === 'loss'));
}

/** The controls' values over the last valid config. */
export function fromControls() {
  const c = { ...config };
  for (const k of CONTROLS.numbers) c[k] = numberOrText($(k).value);
  for (const k of CONTROLS.optional) c[k] = $(k).value.trim() === '' ? null : numberOrText($(k).value);
  for (const k of CONTROLS.choices) c[k] = $(k).value;
  for (const { key, id } of CONTROLS.checks) c[key] = $(id).checked;
  // The typed value (the slider writes its value there): Rust validates it like every field.
  c.epsilon = numberOrText(ui.epsilonTyped.value);
  for (const t of CONTROLS.tagged) c[t.key] = taggedFromControls(t);
  c.compare = [...document.querySelectorAll('#compare input:checked')].map((el) => el.value);
  return c;
}

export function syncParamFields() {
  for (const { key, kinds, inputs } of CONTROLS.tagged) {
    const params = kinds[$(key).value] ?? [];
    for (const id of inputs) {
      const param = params.find(([, , , input]) => input === id);
      $(`${id}-field`).hidden = !param;
      if (param?.[1]) $(`${id}-label`).textContent = param[1];
    }
  }
  syncGameFields($, $('problem').value, $('game').value);
  // A CSV file brings its own n, d and values: the generator's settings go, the picker comes
  // (n stays: under add/remove it is declared).
  const csv = $('data').value === 'csv';
  $('csv-field').hidden = !csv;
  for (const el of document.querySelectorAll('.synthetic-only')) {
    // A parameter's field (a tail's ν) was just shown or hidden by its menu above.
    if (csv) el.hidden = true;
    else if (!el.classList.contains('param')) el.hidden = false;
  }
  for (const el of document.querySelectorAll('#compare input')) {
    // Compared algorithms run on the same problem: those that cannot solve it are off.
    const solves = cardsByKind[el.value]?.solves.includes($('problem').value) ?? true;
    el.disabled = el.value === $('algorithm').value || !solves;
    el.closest('label').hidden = !solves;
    if (el.disabled) el.checked = false;
  }
  syncSettings();
}

/**
 * Shows the settings the main algorithm or a compared one reads, in the main algorithm's words
 * (its card's label and help; a compared one's where the main one does not read it). The others
 * are hidden and keep their values.
 */
export function syncSettings() {
  const compared = [...document.querySelectorAll('#compare input:checked')].map((el) => el.value);
  const reading = [$('algorithm').value, ...compared].map((kind) => cardsByKind[kind]).filter(Boolean);
  for (const key of settingKeys) {
    const use = reading.map((c) => c.settings.find((s) => s.key === key)).find(Boolean);
    // A setting with an error shows, so the message beside it is seen.
    $(`${key}-field`).hidden = !use && $(`${key}-error`).textContent === '';
    if (!use) continue;
    $(`${key}-label`).textContent = use.label;
    $(`${key}-help`).textContent = use.help ?? ''; // until pkg/cards.json arrives
  }
}

/** Sets every control to `c` (the config, or a candidate that may still hold a refused value). */
export function syncControls(c = config) {
  document.body.dataset.problem = c.problem;
  ui.epsilon.value = String(Math.log10(c.epsilon));
  ui.epsilonOutput.textContent = fmt(c.epsilon, 2);
  ui.epsilonTyped.value = String(c.epsilon);
  for (const { key, id } of CONTROLS.checks) $(id).checked = c[key];
  for (const k of CONTROLS.numbers) $(k).value = String(c[k]);
  for (const k of CONTROLS.optional) $(k).value = c[k] === null ? '' : String(c[k]);
  for (const k of CONTROLS.choices) $(k).value = c[k];
  for (const { key, kinds } of CONTROLS.tagged) {
    $(key).value = c[key].kind;
    for (const [param, , , id] of kinds[c[key].kind] ?? []) $(id).value = String(c[key][param]);
  }
  for (const el of document.querySelectorAll('#compare input')) el.checked = c.compare.includes(el.value);
  summariseCompare();
  syncParamFields();
}

/** Fills the parameter fields of a newly chosen loss, aggregation or tail with their defaults. */
export function defaultParams(control) {
  const menu = CONTROLS.tagged.find(({ key }) => control === $(key));
  for (const [, , dflt, id] of menu?.kinds[control.value] ?? []) $(id).value = String(dflt);
}

/** A setting's value in the page's words: a menu's option text, a number as typed. */
export function valueWords(key, value) {
  const shown = value !== null && typeof value === 'object' ? value.kind : value;
  const option = [...($(key)?.options ?? [])].find((o) => o.value === String(shown));
  return option ? option.textContent.trim() : String(shown ?? 'blank');
}

/** The algorithm menu and the compared algorithms' boxes, from Rust's cards. */
export function buildAlgorithmControls() {
  const list = cards();
  Object.assign(cardsByKind, Object.fromEntries(list.map((c) => [c.kind, c])));
  settingKeys.push(...new Set(list.flatMap((c) => c.settings.map((s) => s.key))));
  // One group per problem kind: picking an algorithm of the other kind switches the problem
  // (Rust's pickAlgorithm says so in its note).
  const groups = [['minimisation', 'minimise F(w)'], ['saddle', 'saddle point (a game)']].map(([kind, label]) => {
    const group = Object.assign(document.createElement('optgroup'), { label });
    group.append(...list.filter((c) => c.solves.includes(kind))
      .map((c) => Object.assign(document.createElement('option'), { value: c.kind, textContent: c.name })));
    return group;
  }).filter((g) => g.children.length > 0);
  $('algorithm').replaceChildren(...groups);
  $('compare').replaceChildren(...list.map((c) => {
    const label = Object.assign(document.createElement('label'), { className: 'check' });
    label.append(Object.assign(document.createElement('input'), { type: 'checkbox', value: c.kind }), ` ${c.name}`);
    return label;
  }));
}
