// The heavy-tail panel (Lowy 2026): the tail-index and k sliders with G₁, G₂,
// G_k and L live, the threshold explorer (bias and noise against C, C* marked), one record's f
// against f_C, the knobs that set the noise apart from the utility-only ones, and the ledger per
// stage. Every number and curve comes from Rust (src/session/heavy_explorer.rs via
// heavyPanel/heavyRecord); this file moves values and draws the curves it is given.

import { heavyLargestRecord, heavyPanel, heavyRecord } from '../pkg/dp_playground.js';
import { COLORS, drawCurves, drawLogXCurves } from '../drawing/teach-draw.js';

const $ = (id) => document.getElementById(id);
const EMPTY = new Float64Array(0);

/** The first parameter field of the tail menu holds α, ν or p (the tail's row in www/page/controls.js). */
const INDEX_FIELD = 'tail-a';

/**
 * Mounts the panel (`root`, its fold; www/page/mount.js). `settings()` is the page's last valid
 * settings, `featureNorms()` the raw feature norms of the data on screen (non-private; null before
 * they exist). It follows the settings on `update('settings')` (a run is being prepared: C back to
 * the run's) and shows the measured fraction on `update('data')` (the run's data exist).
 */
export function mount(root, { settings, featureNorms }) {
  const page = { config: settings, norms: featureNorms };
  const panel = root;
  let c = null; // the explorer's C while the person moves it; null: the run's C
  let last = null; // the last panel answer, for the record plot and the "run with this C" button

  /** The settings with the sliders' values (a candidate while a slider moves). */
  function candidate() {
    const config = page.config();
    if (!config || !last?.tail || last.tail.error) return config;
    const index = last.tail.index;
    const tail = { ...config.tail };
    if (index) {
      const v = Number($('heavy-index').value);
      tail[index.key] = index.log ? Number((10 ** v).toPrecision(3)) : v;
    }
    return { ...config, tail, moment_k: Number($('heavy-k').value) };
  }

  function setRange(input, { min, max, step }, value) {
    Object.assign(input, { min: String(min), max: String(max), step: String(step) });
    input.value = String(value);
  }

  /** Marks each shown setting of the algorithm: sets the noise, or utility only. */
  function markKnobs(knobs) {
    for (const el of document.querySelectorAll('.knob-noise, .knob-utility')) el.classList.remove('knob-noise', 'knob-utility');
    if (!knobs) return;
    for (const key of knobs.noise) $(`${key}-field`)?.classList.add('knob-noise');
    for (const key of knobs.utility) $(`${key}-field`)?.classList.add('knob-utility');
    const label = (key) => $(`${key}-label`)?.textContent ?? key;
    $('heavy-knobs-noise').textContent = ['privacy ε', 'the feature tails (they declare G_k)', ...knobs.noise.map(label)].join(', ');
    $('heavy-knobs-utility').textContent = knobs.utility.length ? knobs.utility.map(label).join(', ') : 'none for this algorithm';
  }

  function showTail(tail, moving) {
    $('heavy-tail-error').textContent = tail.error?.message ?? '';
    if (tail.error) return;
    const index = tail.index;
    $('heavy-index-field').hidden = !index;
    if (index) {
      $('heavy-index-label').textContent = index.label;
      if (!moving) setRange($('heavy-index'), index, index.value);
      const v = Number($('heavy-index').value);
      $('heavy-index-output').textContent = index.log ? `p = ${(10 ** v).toPrecision(3)}` : String(v);
    }
    // The k slider stays below α (or ν): Rust gives its range and the k in it.
    setRange($('heavy-k'), { min: tail.k_min, max: tail.k_max, step: tail.k_step }, tail.k);
    $('heavy-k-output').textContent = String(tail.k);
    $('heavy-g1').textContent = tail.g1;
    $('heavy-g2').textContent = tail.g2;
    $('heavy-gk').textContent = tail.gk;
    $('heavy-l').textContent = tail.lipschitz;
    $('heavy-tail-note').textContent = tail.note;
  }

  function showThreshold(t) {
    $('heavy-threshold-error').textContent = t.error?.message ?? '';
    $('heavy-explorer').hidden = Boolean(t.error);
    if (t.error) return;
    const slider = $('heavy-c');
    setRange(slider, { min: t.slider_min, max: t.slider_max, step: 0.01 }, Math.log10(t.c));
    const at = (t.log_c_star - t.slider_min) / (t.slider_max - t.slider_min);
    const mark = $('heavy-cstar-mark');
    mark.style.left = `${(100 * Math.min(Math.max(at, 0), 1)).toFixed(2)}%`;
    mark.dataset.cstar = String(t.c_star);
    $('heavy-c-output').textContent = `C = ${Number(t.c.toPrecision(4))}`;
    $('heavy-cstar').textContent = `C* = ${Number(t.c_star.toPrecision(4))}; the run uses C = ${Number(t.c_used.toPrecision(4))}`;
    $('heavy-call').textContent = `The threshold of ${t.call}.`;
    $('heavy-terms').textContent = t.terms;
    $('heavy-declared-above').textContent = t.declared_above;
    $('heavy-measured-above').textContent = t.measured_above;
    drawLogXCurves($('heavy-threshold-plot'), {
      curves: [
        { points: t.bias, color: COLORS.dPrime, label: 'bias bound' },
        { points: t.noise, color: COLORS.d, label: 'noise term' },
        { points: t.sum, color: COLORS.text, label: 'sum' },
      ],
      markers: [
        { x: t.c_star, y: t.sum_at_c_star, color: COLORS.theory, label: 'C*' },
        { x: t.c, y: t.sum_at_c, color: COLORS.marker, label: 'C' },
      ],
      xlabel: 'threshold C (log scale)',
      ylabel: 'excess-risk term',
    });
  }

  function showRecord() {
    const config = candidate();
    const t = last?.threshold;
    if (!config || !t || t.error) return;
    $('heavy-record-error').textContent = '';
    let view;
    try {
      view = heavyRecord(JSON.stringify(config), Number($('heavy-record').value), t.c);
    } catch (e) {
      $('heavy-record-error').textContent = e?.message ?? String(e);
      return;
    }
    $('heavy-record-words').textContent = view.words;
    drawCurves($('heavy-record-plot'), {
      curves: [
        { points: view.loss, color: COLORS.d, label: 'f (the loss)' },
        { points: view.extension, color: COLORS.dPrime, label: 'f_C (its Lipschitz extension)', dashed: true },
      ],
      xlabel: 's, along w = s·x/‖x‖',
      ylabel: 'loss of this record',
    });
  }

  function showLedger(ledger) {
    const box = $('heavy-ledger-box');
    box.hidden = Boolean(!ledger || ledger.error);
    if (box.hidden) return;
    const n = (v) => String(Number(v.toPrecision(3)));
    $('heavy-ledger').querySelector('tbody').replaceChildren(...ledger.rows.map((r) => {
      const tr = document.createElement('tr');
      for (const v of [r.stage, String(r.records), String(r.draws), n(r.epsilon_each), n(r.epsilon_stage), n(r.clip), n(r.sensitivity), n(r.scale)]) {
        tr.append(Object.assign(document.createElement('td'), { textContent: v }));
      }
      return tr;
    }));
    $('heavy-composition').textContent = ledger.composition;
  }

  /** Recomputes the panel; `moving`: a slider is being dragged (its own range stays put). */
  function render(moving = false) {
    const config = moving ? candidate() : page.config();
    if (!config) return;
    let answer;
    try {
      answer = heavyPanel(JSON.stringify(config), c ?? NaN, page.norms() ?? EMPTY);
    } catch (e) {
      $('heavy-tail-error').textContent = e?.message ?? String(e);
      return;
    }
    panel.hidden = !answer.heavy;
    $('heavy-ledger-box').hidden = !answer.heavy;
    if (!answer.heavy) {
      markKnobs(null);
      last = null;
      return;
    }
    last = answer;
    markKnobs(answer.knobs);
    showTail(answer.tail, moving);
    showThreshold(answer.threshold);
    if (!moving) showLedger(answer.ledger);
    showRecord();
  }

  // Live while the sliders move (input events); the page's settings change on release.
  for (const id of ['heavy-index', 'heavy-k']) {
    $(id).addEventListener('input', () => render(true));
    $(id).addEventListener('change', () => {
      const index = last?.tail?.index;
      const field = $(INDEX_FIELD);
      if (index) {
        const v = Number($('heavy-index').value);
        field.value = String(index.log ? Number((10 ** v).toPrecision(3)) : v);
      }
      $('moment_k').value = $('heavy-k').value;
      c = null;
      // www/page/wiring.js applies every control on a change of any.
      field.dispatchEvent(new Event('change'));
    });
  }
  $('heavy-c').addEventListener('input', () => {
    c = 10 ** Number($('heavy-c').value);
    render(true);
  });
  $('heavy-use-c').addEventListener('click', () => {
    const t = last?.threshold;
    if (!t || t.error) return;
    $('clip').value = String(Number(t.c.toPrecision(4)));
    c = null;
    $('clip').dispatchEvent(new Event('change'));
  });
  $('heavy-record').addEventListener('input', showRecord);
  $('heavy-largest').addEventListener('click', () => {
    const i = heavyLargestRecord(page.norms() ?? EMPTY);
    if (i < 0) {
      $('heavy-record-error').textContent = 'The data are not made yet: press Play or wait for “ready”.';
      return;
    }
    $('heavy-record').value = String(i);
    showRecord();
  });

  return {
    update(change) {
      if (change === 'settings') c = null;
      render();
    },
  };
}
