// The sweep panel: the released risk against ε or n, for up to four algorithms, R repeats per
// point, run across a pool of Web Workers (www/workers/sweep-worker.js). Everything that decides a number
// is Rust's (src/session/sweep_lanes.rs over src/session/sweep.rs, the terminal's `sweep`): the
// grid, every lane, the summary, the slopes, the CSV and what the sweep publishes. This file only
// shares the tasks out, shows progress and draws the summary with the excess plot's drawing.

import { SweepPlan, cards, drawPlotScaled, plotSvg, sweepFigureContext } from '../pkg/dp_playground.js';
import { download } from '../drawing/export.js';
import { figureSize } from '../drawing/figures.js';
import { drawFitted } from '../drawing/fit.js';
import { startWorker } from '../workers/wasm-module.js';

const $ = (id) => document.getElementById(id);

/** The terminal's file names (`dp-playground sweep` writes the same bytes). */
export const SWEEP_CSV = 'dp-playground-sweep.csv';
export const SWEEP_LANES_CSV = 'dp-playground-sweep-lanes.csv';

/** The default values: the current setting times these factors (log-spaced, 5 values). */
const FACTORS = [0.25, 0.5, 1, 2, 4];

/** The panel's control for each field an error from Rust names. */
const FIELD_ERRORS = {
  'sweep values': 'sweep-values-error',
  'sweep repeats': 'sweep-repeats-error',
  'sweep algorithms': 'sweep-algorithms-error',
};

const fmt = (v, digits = 3) => (v === null || v === undefined || Number.isNaN(v) ? '–' : String(Number(Number(v).toPrecision(digits))));

/** As many workers as the browser reports cores, less one (for the page), at least one. */
export function defaultWorkers() {
  return Math.max(1, (navigator.hardwareConcurrency || 1) - 1);
}

function asError(e) {
  if (e && typeof e === 'object' && 'message' in e) return { field: e.field ?? null, message: String(e.message) };
  return { field: null, message: String(e) };
}

function duration(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

function statement(c) {
  const relation = c.relation === 'replace_one' ? 'replace-one' : 'add/remove';
  return c.delta === 0
    ? `pure ε = ${fmt(c.epsilon)}-DP, ${relation} neighbours`
    : `(ε = ${fmt(c.epsilon)}, δ = ${Number(c.delta).toExponential(2)})-DP, ${relation} neighbours`;
}

/**
 * The panel. `current()` gives the page's last valid settings (a RunConfig object), or null
 * while a setting is invalid.
 */
class SweepPanel {
  constructor(current) {
    this.current = current;
    this.cards = cards();
    /** The pool of the sweep in progress (null when none runs). */
    this.pool = null;
    this.sweepId = 0;
    /** The last finished sweep: { summary, points, axis, problem, workers, elapsedMs }. */
    this.result = null;
    /** Whether the user typed the values (then a change of settings keeps them). */
    this.edited = false;
    const fromUrl = Number(new URLSearchParams(window.location.search).get('workers'));
    $('sweep-workers').value = String(Number.isInteger(fromUrl) && fromUrl >= 1 ? fromUrl : defaultWorkers());
    $('sweep-workers-help').textContent = `This browser reports ${navigator.hardwareConcurrency ?? 'no'} logical cores; `
      + `the default leaves one to the page (${defaultWorkers()}).`;
    this.wire();
    this.settingsChanged();
  }

  wire() {
    $('sweep-panel').addEventListener('toggle', () => {
      if ($('sweep-panel').open) this.showPlan();
    });
    $('open-sweep').addEventListener('click', () => {
      $('sweep-panel').open = true;
      $('sweep-panel').scrollIntoView({ block: 'start' });
      $('sweep-values').focus();
    });
    $('sweep-values').addEventListener('input', () => { this.edited = true; this.showPlan(); });
    $('sweep-axis').addEventListener('change', () => { this.edited = false; this.settingsChanged(); });
    $('sweep-repeats').addEventListener('input', () => this.showPlan());
    $('sweep-algorithms').addEventListener('change', () => this.showPlan());
    $('sweep-run').addEventListener('click', () => this.run());
    $('sweep-cancel').addEventListener('click', () => this.cancel());
    $('sweep-csv').addEventListener('click', () => this.save(SWEEP_CSV, this.result?.summary.csv, 'text/csv'));
    $('sweep-lanes-csv').addEventListener('click', () => this.save(SWEEP_LANES_CSV, this.result?.summary.lanesCsv, 'text/csv'));
    // Figures for slides: the sweep's settings inside the figure and in its file name.
    $('sweep-svg').addEventListener('click', () => this.exportFigure((spec, stem, canvas) => {
      this.save(`${stem}.svg`, plotSvg('excess', spec, ...figureSize(canvas)), 'image/svg+xml');
    }));
    $('sweep-png').addEventListener('click', () => this.exportFigure((spec, stem, canvas) => {
      const scale = Number($('sweep-png-scale').value);
      const offscreen = document.createElement('canvas');
      drawPlotScaled('excess', offscreen, spec, ...figureSize(canvas), scale);
      offscreen.toBlob((blob) => download(scale === 1 ? `${stem}.png` : `${stem}_${scale}x.png`, blob), 'image/png');
    }));
  }

  /** Hands the last sweep's spec with its context line, its file name stem and the canvas to `save`. */
  exportFigure(save) {
    if (!this.result) return;
    try {
      const { caption, stem } = sweepFigureContext(JSON.stringify(this.result.cfg), JSON.stringify(this.result.request));
      save({ ...this.spec(this.result), context: caption }, stem, $('sweep-plot'));
    } catch (e) {
      this.showError(e);
    }
  }

  save(name, text, type) {
    if (text) download(name, new Blob([text], { type }));
  }

  /** The page's settings changed: new defaults (unless typed), the algorithms it can solve. */
  settingsChanged() {
    const cfg = this.current();
    if (!cfg) {
      $('sweep-privacy').textContent = 'A setting of the run is invalid: correct it above, then sweep.';
      $('sweep-run').disabled = true;
      return;
    }
    if (!this.edited) {
      const axis = $('sweep-axis').value;
      const values = axis === 'epsilon'
        ? FACTORS.map((f) => fmt(cfg.epsilon * f))
        : FACTORS.map((f) => String(Math.max(10, Math.round(cfg.n * f))));
      $('sweep-values').value = values.join(', ');
    }
    // The algorithms that solve this kind of problem; the run's own (and compared) ticked.
    const ticked = new Set(this.pool || this.algorithmsTouched ? this.checked() : [cfg.algorithm, ...(cfg.compare ?? [])].slice(0, 4));
    const list = this.cards.filter((c) => c.solves.includes(cfg.problem));
    $('sweep-algorithms').replaceChildren(...list.map((c) => {
      const label = Object.assign(document.createElement('label'), { className: 'check' });
      const box = Object.assign(document.createElement('input'), { type: 'checkbox', value: c.kind, checked: ticked.has(c.kind) });
      box.addEventListener('change', () => { this.algorithmsTouched = true; });
      label.append(box, ` ${c.name}`);
      return label;
    }));
    this.showPlan();
  }

  checked() {
    return [...$('sweep-algorithms').querySelectorAll('input:checked')].map((b) => b.value);
  }

  request() {
    const values = $('sweep-values').value.split(/[\s,;]+/).filter((v) => v !== '').map(Number);
    return {
      axis: $('sweep-axis').value,
      values,
      algorithms: this.checked(),
      repeats: Number($('sweep-repeats').value),
    };
  }

  clearErrors() {
    for (const id of [...Object.values(FIELD_ERRORS), 'sweep-error']) $(id).textContent = '';
  }

  showError(e) {
    const { field, message } = asError(e);
    $(FIELD_ERRORS[field] ?? 'sweep-error').textContent = message;
  }

  /**
   * A refusal of the planned sweep, shown when the panel is open (its toggle plans again): a
   * folded panel's default sweep (the run's ε × ¼ … 4) may ask for points the run never will, and
   * that is no news to a person who has not opened it.
   */
  showPlanError(e) {
    if ($('sweep-panel').open) this.showError(e);
  }

  /** Plans the sweep from the controls (Rust validates it); null, with the error shown, if refused. */
  plan() {
    const cfg = this.current();
    this.clearErrors();
    if (!cfg) {
      $('sweep-error').textContent = 'A setting of the run is invalid: correct it above, then sweep.';
      return null;
    }
    try {
      return { plan: new SweepPlan(JSON.stringify(cfg), JSON.stringify(this.request())), cfg };
    } catch (e) {
      this.showPlanError(e);
      return null;
    }
  }

  /** What the sweep would publish, stated before it runs (Rust's composition of every release). */
  showPlan() {
    const planned = this.plan();
    $('sweep-run').disabled = !planned || this.pool !== null;
    if (!planned) {
      $('sweep-privacy').textContent = '';
      return;
    }
    const { plan } = planned;
    try {
      const points = plan.points();
      const c = plan.composition();
      const el = $('sweep-privacy');
      el.dataset.epsilon = String(c.epsilon);
      el.dataset.releases = String(c.releases);
      const overN = $('sweep-axis').value === 'n'
        ? ' Points at different n have different data; composing them all can only overstate the total.'
        : '';
      const demo = c.not_private ? ' NOT PRIVATE: a demonstration is among them; this states what the correct mechanisms would promise.' : '';
      const seeded = c.seeded ? ` ${c.seeded.charAt(0).toUpperCase()}${c.seeded.slice(1)}.` : '';
      el.textContent = `This sweep publishes ${c.releases} releases (${points.length} points × ${plan.repeats()} repeats). `
        + `Every point draws its data from the same seed, so all of them are releases on the same data and compose: together ${statement(c)} (${c.method}).`
        + `${overN}${demo}${seeded}`;
      const notes = [...new Set(points.flatMap((p) => p.notes.map((n) => `${p.name}: ${n}`)))];
      $('sweep-status').textContent = notes.length ? `Picking the algorithms changes: ${notes.join('; ')}.` : '';
    } catch (e) {
      this.showPlanError(e);
      $('sweep-run').disabled = true;
    } finally {
      plan.free();
    }
  }

  /** Runs the planned sweep across the pool. */
  run() {
    if (this.pool) return;
    const planned = this.plan();
    if (!planned) return;
    const { plan, cfg } = planned;
    const workers = Math.max(1, Math.min(64, Math.floor(Number($('sweep-workers').value)) || defaultWorkers()));
    const points = plan.points();
    const repeats = plan.repeats();
    const total = plan.lanes();
    const queue = plan.tasks(workers);
    const message = { config: JSON.stringify(cfg), request: JSON.stringify(this.request()) };
    this.sweepId += 1;
    const sweepId = this.sweepId;
    const pool = {
      plan, points, repeats, total, workers, cfg, axis: $('sweep-axis').value, request: JSON.parse(message.request),
      lanes: new Array(total).fill(null), bounds: new Array(points.length).fill(null),
      done: 0, started: performance.now(), busy: 0, list: [],
    };
    this.pool = pool;
    $('sweep-progress').value = 0;
    $('sweep-run').disabled = true;
    $('sweep-cancel').disabled = false;
    $('sweep-status').textContent = `Starting ${total} runs on ${workers} worker${workers > 1 ? 's' : ''}…`;
    // Each worker stays on the point it has built while that point has tasks left; then it
    // takes a point no worker has started, else helps with the point with the most left.
    const started = new Set();
    const give = (w) => {
      if (queue.length === 0) return;
      let at = queue.findIndex((t) => t.point === w.point);
      if (at < 0) at = queue.findIndex((t) => !started.has(t.point));
      if (at < 0) {
        const left = new Map();
        for (const t of queue) left.set(t.point, (left.get(t.point) ?? 0) + 1);
        const most = [...left].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
        at = queue.findIndex((t) => t.point === most);
      }
      const [task] = queue.splice(at, 1);
      started.add(task.point);
      w.point = task.point;
      pool.busy += 1;
      w.postMessage({ sweepId, ...message, task });
    };
    for (let i = 0; i < Math.min(workers, queue.length); i += 1) {
      const w = startWorker(new URL('../workers/sweep-worker.js', import.meta.url));
      w.onmessage = ({ data }) => {
        if (this.pool !== pool || data.sweepId !== sweepId) return;
        if (data.type === 'lane') {
          pool.lanes[data.point * repeats + data.repeat] = data.metric;
          pool.bounds[data.point] = data.bound;
          pool.done += 1;
          this.progress(pool);
        } else if (data.type === 'task-done') {
          pool.busy -= 1;
          give(w);
          if (pool.busy === 0) this.finish(pool);
        } else {
          this.stop(pool);
          this.showError(data.error);
          $('sweep-status').textContent = `Stopped after ${pool.done} of ${total} runs: a run failed.`;
        }
      };
      w.onerror = (event) => {
        if (this.pool !== pool) return;
        event.preventDefault();
        this.stop(pool);
        this.showError({ field: null, message: `A sweep worker failed: ${event.message || 'see the console'}` });
      };
      pool.list.push(w);
      give(w);
    }
  }

  progress(pool) {
    const { done, total } = pool;
    $('sweep-progress').value = done / total;
    const elapsed = performance.now() - pool.started;
    const left = done < total ? `, about ${duration((elapsed / done) * (total - done))} left` : '';
    $('sweep-status').textContent = `${done} of ${total} runs on ${pool.workers} worker${pool.workers > 1 ? 's' : ''}${left}.`;
  }

  /** Ends the pool: its workers are stopped (a run in progress is abandoned, not awaited). */
  stop(pool) {
    for (const w of pool.list) w.terminate();
    pool.plan.free();
    if (this.pool === pool) this.pool = null;
    $('sweep-cancel').disabled = true;
    this.showPlan();
  }

  cancel() {
    const pool = this.pool;
    if (!pool) return;
    this.stop(pool);
    $('sweep-status').textContent = `Cancelled after ${pool.done} of ${pool.total} runs`
      + `${this.result ? '; the plot keeps the last finished sweep' : ''}.`;
  }

  finish(pool) {
    const elapsedMs = performance.now() - pool.started;
    let summary;
    try {
      summary = pool.plan.summary(pool.lanes, pool.bounds);
    } catch (e) {
      this.stop(pool);
      this.showError(e);
      return;
    }
    this.stop(pool);
    this.result = {
      summary, points: pool.points, axis: pool.axis, problem: pool.cfg.problem, workers: pool.workers, elapsedMs,
      cfg: pool.cfg, request: pool.request,
    };
    $('sweep-progress').value = 1;
    // The measured time, exact, for the speed-up measurement (tests/e2e/sweep_speedup.mjs).
    $('sweep-status').dataset.elapsedMs = String(elapsedMs);
    $('sweep-status').textContent = `Done: ${pool.total} runs on ${pool.workers} worker${pool.workers > 1 ? 's' : ''} in ${(elapsedMs / 1000).toFixed(1)} s.`;
    for (const id of ['sweep-csv', 'sweep-lanes-csv', 'sweep-svg', 'sweep-png']) $(id).disabled = false;
    this.draw();
  }

  /** The excess plot's spec for a sweep: one series per algorithm against the swept axis. */
  spec(result) {
    const { summary, axis, problem } = result;
    const metric = problem === 'saddle' ? 'duality gap' : 'excess risk F(w) − F*';
    const names = Object.fromEntries(result.points.map((p) => [p.algorithm, p.name]));
    const kinds = [...new Set(summary.rows.map((r) => r.algorithm))];
    const num = (v) => (v === null || v === undefined ? Number.NaN : v);
    const series = kinds.map((kind, color) => {
      const idx = summary.rows.map((r, i) => i).filter((i) => summary.rows[i].algorithm === kind);
      const x = idx.map((i) => (axis === 'epsilon' ? summary.rows[i].epsilon : summary.rows[i].n));
      const withBound = idx.filter((i) => summary.bounds[i] !== null);
      const slope = summary.slopes.find((s) => s.algorithm === kind);
      const theory = summary.theorySlopes.find((s) => s.algorithm === kind);
      return {
        label: `${names[kind]}: fitted slope ${fmt(slope?.slope)}`,
        theoryLabel: theory ? `${names[kind]}, theorem's bound: slope ${fmt(theory.slope)}` : '',
        color,
        x,
        mean: idx.map((i) => num(summary.rows[i].mean)),
        lo: idx.map((i) => num(summary.rows[i].min)),
        hi: idx.map((i) => num(summary.rows[i].max)),
        theoryX: withBound.map((i) => (axis === 'epsilon' ? summary.rows[i].epsilon : summary.rows[i].n)),
        theoryY: withBound.map((i) => summary.bounds[i]),
      };
    });
    return {
      series,
      // Bounds no swept algorithm attains (a heavy-tail family's pure-DP lower bound and the
      // (ε, δ)-DP rate), computed in Rust from the declared constants; drawn dotted.
      references: summary.references ?? [],
      title: `released ${metric} against ${axis === 'epsilon' ? 'ε' : 'n'} (non-private)`,
      xLabel: axis === 'epsilon' ? 'privacy ε' : 'records n',
      yLabel: problem === 'saddle' ? 'duality gap' : 'F(w) − F*',
      // Every swept value labelled, the two ends included.
      xTicks: [...new Set(series.flatMap((s) => s.x))].filter((v) => v > 0).sort((a, b) => a - b),
      bandLabel: `min–max over the ${result.request.repeats} repeats at each point`,
    };
  }

  draw() {
    const result = this.result;
    try {
      // At its displayed size × the screen's pixel scale, so its text keeps its size (www/drawing/fit.js).
      drawFitted('excess', $('sweep-plot'), this.spec(result));
    } catch (e) {
      this.showError(e);
    }
    const names = Object.fromEntries(result.points.map((p) => [p.algorithm, p.name]));
    const rows = result.summary.slopes.map((s) => {
      const theory = result.summary.theorySlopes.find((t) => t.algorithm === s.algorithm);
      const tr = document.createElement('tr');
      tr.dataset.algorithm = s.algorithm;
      tr.dataset.slope = String(s.slope);
      tr.dataset.theory = theory ? String(theory.slope) : '';
      for (const text of [names[s.algorithm], fmt(s.slope), theory ? fmt(theory.slope) : 'no bound stated']) {
        tr.append(Object.assign(document.createElement('td'), { textContent: text }));
      }
      return tr;
    });
    $('sweep-slopes').querySelector('tbody').replaceChildren(...rows);
    $('sweep-slopes').hidden = rows.length === 0;
  }
}

/**
 * Mounts the sweep panel (`root`, its fold; www/page/mount.js). It plans from the page's valid
 * settings (null while a setting is refused) and follows them on `update('settings')`.
 */
export function mount(root, { validSettings }) {
  const panel = new SweepPanel(validSettings);
  return {
    update(change) {
      if (change === 'settings') panel.settingsChanged();
    },
  };
}
