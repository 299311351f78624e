// Planning backwards, beside the guarantee: "I need excess risk ≤ t: what ε does the theory
// say?" Every number is Rust's (src/session/plan_back.rs): the typed target is read by
// `planTarget` (its error names the control), the smallest ε whose bound meets it is solved in a
// worker (www/workers/plan-worker.js: it poses the problem the bound reads), and the answer is
// confirmed by a small sweep at ε/2, ε and 2ε, 20 repeats each, in the sweep's workers
// (www/workers/sweep-worker.js, src/session/sweep_lanes.rs), read by `planConfirm` (the ratio
// of the bound to the measured mean, and whether the bound is loose). "Set ε" types the answer
// into the ε field, as a person would.

import { SweepPlan, planConfirm, planTarget } from '../pkg/dp_playground.js';
import { startWorker } from '../workers/wasm-module.js';

const $ = (id) => document.getElementById(id);

/** Repeats per point of the confirming sweep (the acceptance test's 20). */
export const CONFIRM_REPEATS = 20;
/** The points of the confirming sweep: the answer's ε times these. */
const FACTORS = [0.5, 1, 2];
/** The ε range the page accepts (crates/core/src/controls.rs). */
const EPS_MIN = 1e-4;
const EPS_MAX = 100;

/** Two digits, short: 0.038, 2.2e-3 (the table's cells stay one line in the narrow column). */
const cell = (v) => {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  const a = Math.abs(v);
  return a === 0 || (a >= 0.01 && a < 1000) ? String(Number(v.toPrecision(2))) : v.toExponential(1).replace('e+', 'e');
};
const fmt = (v, digits = 3) => (v === null || v === undefined || !Number.isFinite(v) ? '–' : String(Number(Number(v).toPrecision(digits))));

function asError(e) {
  if (e && typeof e === 'object' && 'message' in e) return { field: e.field ?? null, message: String(e.message) };
  return { field: null, message: String(e) };
}

/** The settings without ε: an answer stays good while only ε moves (it is what the panel sets). */
const withoutEpsilon = (cfg) => JSON.stringify({ ...cfg, epsilon: null });

class PlanPanel {
  constructor(current) {
    this.current = current;
    this.worker = null;
    this.solveId = 0;
    /** The confirming sweep in progress: { plan, list, … } or null. */
    this.pool = null;
    /** The last answer, with the settings it was solved for. */
    this.answer = null;
    $('plan-solve').addEventListener('click', () => this.solve());
    $('plan-apply').addEventListener('click', () => this.apply());
    $('plan-target').addEventListener('input', () => this.checkTarget());
    $('plan-target').addEventListener('keydown', (event) => { if (event.key === 'Enter') this.solve(); });
  }

  /** The typed target, read by Rust; null (with the error beside the field) when refused. */
  checkTarget() {
    $('plan-target-error').textContent = '';
    try {
      return planTarget($('plan-target').value);
    } catch (e) {
      $('plan-target-error').textContent = asError(e).message;
      return null;
    }
  }

  say(id, text) {
    $(id).textContent = text;
  }

  clear() {
    this.stopPool();
    for (const id of ['plan-answer', 'plan-reading', 'plan-error', 'plan-status', 'plan-stale']) this.say(id, '');
    $('plan-table').hidden = true;
    $('plan-table').querySelector('tbody').replaceChildren();
    $('plan-apply').disabled = true;
    $('plan-apply').textContent = 'Set this ε on the page';
    $('plan-answer').dataset.kind = '';
  }

  solve() {
    const target = this.checkTarget();
    if (target === null) return;
    const cfg = this.current();
    this.clear();
    if (!cfg) {
      this.say('plan-error', 'A setting of the run is invalid: correct it above, then solve.');
      return;
    }
    this.worker ??= startWorker(new URL('../workers/plan-worker.js', import.meta.url));
    this.solveId += 1;
    const solveId = this.solveId;
    this.say('plan-status', 'Solving the bound for ε…');
    $('plan-solve').disabled = true;
    this.worker.onmessage = ({ data }) => {
      if (data.solveId !== this.solveId) return;
      $('plan-solve').disabled = false;
      this.say('plan-status', '');
      if (data.error) {
        const { field, message } = data.error;
        this.say(field === 'target excess risk t' ? 'plan-target-error' : 'plan-error', message);
        return;
      }
      this.answered(data.answer, cfg);
    };
    this.worker.onerror = (event) => {
      event.preventDefault();
      $('plan-solve').disabled = false;
      this.say('plan-error', `The planning worker failed: ${event.message || 'see the console'}`);
    };
    this.worker.postMessage({ solveId, config: JSON.stringify(cfg), target: $('plan-target').value });
  }

  answered(answer, cfg) {
    this.answer = { ...answer, cfg };
    const { outcome } = answer;
    $('plan-answer').dataset.kind = outcome.kind;
    $('plan-answer').dataset.epsilon = outcome.epsilon === undefined ? '' : String(outcome.epsilon);
    this.say('plan-answer', answer.text);
    if (outcome.kind === 'found' || outcome.kind === 'any_epsilon') {
      $('plan-apply').disabled = false;
      $('plan-apply').textContent = `Set ε = ${fmt(outcome.epsilon)} on the page`;
      this.confirm(cfg, outcome.epsilon);
    }
  }

  /** Types the answer's ε into the page's ε field, as a person would. */
  apply() {
    const eps = this.answer?.outcome?.epsilon;
    if (eps === undefined) return;
    const typed = $('epsilon-typed');
    typed.value = String(eps);
    typed.dispatchEvent(new Event('input', { bubbles: true }));
    typed.dispatchEvent(new Event('change', { bubbles: true }));
    this.say('plan-status', `ε is set to ${fmt(eps)} on the page: press Play to run it.`);
  }

  /** The sweep at ε/2, ε and 2ε, CONFIRM_REPEATS repeats each, across the sweep's workers. */
  confirm(cfg, epsilon) {
    const values = [...new Set(FACTORS.map((f) => Number((epsilon * f).toPrecision(3))))]
      .filter((v) => v >= EPS_MIN && v <= EPS_MAX);
    const request = { axis: 'epsilon', values, algorithms: [cfg.algorithm], repeats: CONFIRM_REPEATS };
    let plan;
    try {
      plan = new SweepPlan(JSON.stringify(cfg), JSON.stringify(request));
    } catch (e) {
      this.say('plan-error', `The confirming sweep was refused: ${asError(e).message}`);
      return;
    }
    const workers = Math.max(1, Math.min(values.length, (navigator.hardwareConcurrency || 2) - 1));
    const queue = plan.tasks(workers);
    const total = plan.lanes();
    const message = { config: JSON.stringify(cfg), request: JSON.stringify(request) };
    const sweepId = (this.sweepId = (this.sweepId ?? 0) + 1);
    const pool = {
      plan, values, total, done: 0, busy: 0, list: [],
      lanes: new Array(total).fill(null), bounds: new Array(values.length).fill(null),
    };
    this.pool = pool;
    $('plan-progress').hidden = false;
    $('plan-progress').value = 0;
    this.say('plan-status', `Confirming: ${total} runs (ε = ${values.map((v) => fmt(v)).join(', ')}; ${CONFIRM_REPEATS} repeats each)…`);
    const give = (w) => {
      const task = queue.shift();
      if (!task) return;
      pool.busy += 1;
      w.postMessage({ sweepId, ...message, task });
    };
    for (let i = 0; i < Math.min(workers, queue.length); i += 1) {
      const w = startWorker(new URL('../workers/sweep-worker.js', import.meta.url));
      w.onmessage = ({ data }) => {
        if (this.pool !== pool || data.sweepId !== sweepId) return;
        if (data.type === 'lane') {
          pool.lanes[data.point * CONFIRM_REPEATS + data.repeat] = data.metric;
          pool.bounds[data.point] = data.bound;
          pool.done += 1;
          $('plan-progress').value = pool.done / total;
        } else if (data.type === 'task-done') {
          pool.busy -= 1;
          give(w);
          if (pool.busy === 0) this.finish(pool, epsilon);
        } else {
          this.stopPool();
          this.say('plan-error', `The confirming sweep stopped: ${data.error?.message ?? 'a run failed'}`);
        }
      };
      w.onerror = (event) => {
        if (this.pool !== pool) return;
        event.preventDefault();
        this.stopPool();
        this.say('plan-error', `A sweep worker failed: ${event.message || 'see the console'}`);
      };
      pool.list.push(w);
      give(w);
    }
  }

  stopPool() {
    const pool = this.pool;
    if (!pool) return;
    for (const w of pool.list) w.terminate();
    pool.plan.free();
    this.pool = null;
    $('plan-progress').hidden = true;
  }

  finish(pool, epsilon) {
    let summary;
    try {
      summary = pool.plan.summary(pool.lanes, pool.bounds);
    } catch (e) {
      this.stopPool();
      this.say('plan-error', asError(e).message);
      return;
    }
    this.stopPool();
    const target = this.answer.target;
    const rows = summary.rows.map((r, i) => {
      const tr = document.createElement('tr');
      const at = Math.abs(r.epsilon - epsilon) <= 1e-12 * epsilon;
      if (at) tr.className = 'plan-answer-row';
      tr.dataset.epsilon = String(r.epsilon);
      tr.dataset.mean = String(r.mean);
      const bound = summary.bounds[i];
      for (const text of [fmt(r.epsilon), cell(bound), cell(r.mean), cell(r.sd), cell(r.min), cell(r.max), r.mean <= target ? 'yes' : 'no']) {
        tr.append(Object.assign(document.createElement('td'), { textContent: text }));
      }
      return tr;
    });
    $('plan-table').querySelector('tbody').replaceChildren(...rows);
    $('plan-table').hidden = false;
    this.say('plan-status', '');
    const row = summary.rows.find((r) => Math.abs(r.epsilon - epsilon) <= 1e-12 * epsilon);
    if (!row) return;
    const reading = planConfirm(target, this.answer.outcome.bound, row.mean, row.sd, row.min, row.max, CONFIRM_REPEATS);
    $('plan-reading').dataset.ratio = String(reading.ratio);
    $('plan-reading').dataset.loose = String(reading.loose);
    this.say('plan-reading', reading.text);
  }

  /** The page's settings changed: an answer for other settings (but ε) is said to be stale. */
  settingsChanged() {
    const cfg = this.current();
    if (!this.answer) return;
    const same = cfg && withoutEpsilon(cfg) === withoutEpsilon(this.answer.cfg);
    this.say('plan-stale', same ? '' : 'The settings have changed since this answer (other than ε): solve again for them.');
  }
}

/**
 * Mounts the planning panel (`root`, its fold; www/page/mount.js). It solves for the page's valid
 * settings (null while a setting is refused) and hears when they change.
 */
export function mount(root, { validSettings }) {
  const panel = new PlanPanel(validSettings);
  return {
    update(change) {
      if (change === 'settings') panel.settingsChanged();
    },
  };
}
