// Pinned runs: a finished run kept as a labelled, faded overlay on every plot, so that the next
// run is compared with it on one screen (fixed axes: the Rust drawing holds the union of every
// run's ranges, src/plot_spec/pinned.rs), and a compare readout with one row per algorithm of the
// current run and of every pinned run.
//
// Privacy (docs/PRIVACY.md rule 7): a pinned run is an earlier release, typically on the same data.
// Pinning publishes nothing new (the run already released, and a loaded CSV file was charged when
// it started), but the screen then shows several runs' releases together. The choice made here:
// the readout states the composed total of everything on screen — the pinned runs and the current
// one, composed by Rust's composeRuns as runs on the same data (an upper bound when the data
// differ) — beside the per-run guarantee the page already states. No privacy number is computed
// in JS: ε per algorithm is the run's own preview, totals are composeRuns', and the mean and
// spread over repeats are Rust's (spreadOf, the sweep table's statistics).

import { composeRuns, spreadOf } from '../pkg/dp_playground.js';
import { spec as specOf } from '../drawing/plots.js';
import { tighterWords } from './steady.js';

/** Most pinned runs kept at once (the specs accept no more: plot_spec::pinned::MAX_PINS). */
export const MAX_PINS = 3;

/**
 * The word a pin's label uses for each setting (the symbol its control shows, e.g. "C" for the
 * gradient clip): every setting that differs from the current run's is named, so two pins never
 * read alike. A setting missing here is named by its key.
 */
const WORDS = {
  n: 'n', d: 'd', seed: 'seed', noise_draw: 'noise draw', unseeded_noise: 'unseeded noise', delta: 'δ',
  data: 'data', repeats: 'R', steps: 'T', relation: 'neighbours', step_size: 'η', batch: 'b', clip: 'C',
  l2: 'λ', l1: 'λ₁', lambda1: 'base λ₁', radius: 'r', feature_bound: 'B', entry_bound: 'c', mu_x: 'μx',
  mu_y: 'μy', loss: 'loss', wrap: 'aggregation', domain: 'W', tail: 'tails', feature_scale: 'feature scale',
  signal: 'signal', label_noise: 'label noise', noise_tail: 'regression noise', sparsity: 'non-zeros',
  solver: 'solver', gaussian: 'calibration', grid_resolution: 'grid', moment_k: 'k', repetitions: 'J',
  budget_u: 'U', game: 'game', records: 'records', clip_records: 'clipped records', leak: 'pitfall',
  svrg_noise: 'SVRG noise', gd_output: 'iterate', minimax_solver: 'solver', heavy_solver: 'solver', problem: 'problem',
};
/** Named apart from the rest: ε first, the algorithm next (its name), the compared ones never. */
const NOT_LISTED = new Set(['epsilon', 'algorithm', 'compare']);

const short = (v) => String(Number(Number(v).toPrecision(3)));
/** A setting's value in a label: numbers short, a blank optional field "blank", a loss its kind. */
function valueWords(v) {
  if (v === null || v === undefined) return 'blank';
  if (typeof v === 'number') return short(v);
  if (typeof v === 'boolean') return v ? 'on' : 'off';
  if (typeof v === 'object') {
    const { kind, ...rest } = v;
    const params = Object.entries(rest).map(([k, x]) => `${k} ${valueWords(x)}`);
    return params.length ? `${kind ?? ''} (${params.join(', ')})`.trim() : String(kind ?? JSON.stringify(v));
  }
  return String(v).replaceAll('_', ' ');
}
const nameOf = (info, a) => info.cards?.[info.previews[a].kind]?.name ?? info.previews[a].kind;

/**
 * One readout row per algorithm of `history`: its name, the ε its preview states, the first
 * repeat's final metric, the spread over repeats (Rust) and the first repeat's release.
 */
export function readoutRows(history) {
  const { info } = history;
  if (!info) return [];
  return history.lanes.map((reps, a) => {
    const released = reps.filter((l) => l.release);
    const first = reps[0].release;
    // A repeat without a metric (no reference optimum) counts as missing, not as 0.
    const metric = (l) => (typeof l.release.excess === 'number' ? l.release.excess : NaN);
    return {
      algorithm: nameOf(info, a),
      epsilon: info.previews[a].guarantee.epsilon,
      final: first && typeof first.excess === 'number' ? first.excess : null,
      spread: released.length ? spreadOf(new Float64Array(released.map(metric))) : null,
      repeats: reps.length,
      released: released.length,
      release: first ? { w: Array.from(first.w), y: first.y ? Array.from(first.y) : null } : null,
    };
  });
}

/** A finished run, frozen: its config, its plot layers and its readout rows. */
class Pin {
  constructor(history, theories) {
    const { info } = history;
    this.config = JSON.parse(info.config);
    this.metric = info.previews[0].metric;
    this.names = history.lanes.map((_, a) => nameOf(info, a));
    this.rows = readoutRows(history);
    const excess = specOf(history, 'excess', theories);
    const path = info.view ? specOf(history, 'path', theories) : { paths: [] };
    const game = this.config.problem === 'saddle';
    this.layers = {
      // Curves without their theory: the current run draws the bound.
      excess: excess.series.map(({ color, x, mean, solverPath, release }) => ({ color, x, mean, solverPath, release })),
      path: path.paths.map((layer, a) => ({
        color: layer.color, path: layer.xy, releases: path.releases[a].xy, extent: path.extent, center: path.center,
      })),
      privacy: specOf(history, 'privacy', theories).series.map(({ color, x, eps }) => ({ color, x, eps })),
      noise: specOf(history, 'noise', theories).norms,
      players: game ? specOf(history, 'players', theories) : null,
    };
  }

  /** "pinned: ε = 0.1, DP-GD", naming every other setting that differs from `current`. */
  label(a, current) {
    const differs = (key) => current && !NOT_LISTED.has(key) && JSON.stringify(current[key]) !== JSON.stringify(this.config[key]);
    const others = Object.keys(this.config).filter(differs)
      .map((key) => `${WORDS[key] ?? key} = ${valueWords(this.config[key])}`);
    return [`pinned: ε = ${short(this.config.epsilon)}`, this.names[a], ...others].join(', ');
  }
}

/** The pinned runs, oldest first, and what they add to each plot's spec. */
export class Pins {
  constructor() {
    this.list = [];
  }

  get size() {
    return this.list.length;
  }

  /** Pins `history` (a run that has released); the oldest pin goes when there are MAX_PINS. */
  add(history, theories) {
    if (this.list.length >= MAX_PINS) this.list.shift();
    this.list.push(new Pin(history, theories));
  }

  clear() {
    this.list = [];
  }

  /** `spec` of plot `kind` with the pinned runs' layers, labelled against `current` (a config). */
  decorate(kind, spec, current) {
    if (this.list.length === 0) return spec;
    const perAlgorithm = (layers) => this.list.flatMap((pin) => pin.layers[layers].map((l, a) => ({ ...l, label: pin.label(a, current) })));
    switch (kind) {
      case 'excess': return { ...spec, pinned: perAlgorithm('excess').map((s) => ({ ...s, lo: [], hi: [] })) };
      case 'path': return { ...spec, pinned: perAlgorithm('path') };
      case 'privacy': return { ...spec, pinned: perAlgorithm('privacy') };
      case 'noise': return { ...spec, pinned: this.list.map((pin) => ({ label: pin.label(0, current), norms: pin.layers.noise })) };
      case 'players': {
        // Only a pinned game of the current game's size has bars to stand on.
        const fits = (p) => p.layers.players && p.layers.players.releaseX.length === spec.x.length
          && p.layers.players.releaseY.length === spec.y.length;
        return {
          ...spec,
          pinned: this.list.filter(fits).map((pin) => ({
            label: pin.label(0, current), x: pin.layers.players.releaseX, y: pin.layers.players.releaseY,
          })),
        };
      }
      default: return spec;
    }
  }

  /**
   * What everything on screen publishes together: the pinned runs' configs and `current`'s,
   * composed by Rust as runs on the same data. Throws Rust's `{ field, message }` when they
   * cannot be composed.
   */
  composed(current) {
    return composeRuns(JSON.stringify([...this.list.map((p) => p.config), current]));
  }
}

const $ = (id) => document.getElementById(id);
const cell = (text, className = '') => Object.assign(document.createElement('td'), { textContent: text, className });

/**
 * Fills the compare readout: the rows of `history` (the current run, `current` its config) and of
 * every pin, and the composed total of what is on screen. `words` are the page's formatters
 * ({ fmt, sci, statement }); `unpin(i)` removes pin i.
 */
export function showCompare(history, current, pins, words, unpin) {
  const { fmt, sci, statement } = words;
  const box = $('compare-readout');
  box.hidden = !history.info;
  if (!history.info) return;
  // The metric's short name in the header (a game's is a duality gap), its full name on hover.
  const metric = history.info.previews[0].metric;
  $('compare-metric').textContent = /gap/i.test(metric) ? 'final gap' : 'final excess';
  $('compare-metric').title = metric;
  const columns = ['run', 'algorithm', 'ε', $('compare-metric').textContent, 'mean ± sd over repeats', 'release (private)', ''];
  const coords = (v) => `(${v.slice(0, 3).map((c) => fmt(c, 3)).join(', ')}${v.length > 3 ? ', …' : ''})`;
  const row = (run, r, extra) => {
    const tr = document.createElement('tr');
    const s = r.spread;
    const spread = !s || s.scored === 0 ? '–'
      : s.scored === 1 ? `${sci(s.mean)} (1 repeat)`
        : `${sci(s.mean)} ± ${sci(s.sd)} (${sci(s.min)} – ${sci(s.max)}), ${s.scored} repeats`;
    const release = !r.release ? 'not yet'
      : r.release.y ? `x = ${coords(r.release.w)}, y = ${coords(r.release.y)}` : coords(r.release.w);
    tr.append(cell(run), cell(r.algorithm), cell(Number.isFinite(r.epsilon) ? fmt(r.epsilon) : '∞ (not private)'),
      cell(r.final === null ? '–' : sci(r.final)), cell(spread), cell(release), extra ?? cell(''));
    // Each cell names its column: a narrow screen stacks a row as labelled lines (style.css).
    tr.setAttribute('role', 'row');
    [...tr.children].forEach((td, i) => {
      td.setAttribute('role', 'cell');
      td.dataset.label = columns[i] ?? '';
    });
    tr.dataset.final = r.final === null ? '' : String(r.final);
    return tr;
  };
  const rows = readoutRows(history).map((r) => row('this run', r));
  pins.list.forEach((pin, i) => {
    pin.rows.forEach((r, a) => {
      let extra = null;
      if (a === 0) {
        extra = document.createElement('td');
        const b = Object.assign(document.createElement('button'), { type: 'button', textContent: 'Unpin', className: 'unpin' });
        b.addEventListener('click', () => unpin(i));
        extra.append(b);
      }
      const tr = row(pin.label(a, current), r, extra);
      tr.className = 'pinned';
      rows.push(tr);
    });
  });
  box.querySelector('tbody').replaceChildren(...rows);
  const el = $('pins-composed');
  if (pins.size === 0) {
    el.textContent = '';
    delete el.dataset.epsilon;
    return;
  }
  try {
    const c = pins.composed(current);
    el.dataset.epsilon = String(c.epsilon);
    const runs = `${pins.size} pinned run${pins.size === 1 ? '' : 's'} and this one`;
    const demo = c.not_private ? ' NOT PRIVATE: a demonstration is among them.' : '';
    // Rust's composition carries the seeded caveat whenever a run is seeded.
    const seeded = c.seeded ? ` ${c.seeded.charAt(0).toUpperCase()}${c.seeded.slice(1)}.` : '';
    el.textContent = `On screen together: ${runs}, ${c.releases} releases, together ${statement(c)} (${c.method}).${tighterWords(c, fmt)}${demo}${seeded} `
      + 'A pinned run is an earlier release, counted here as if on the same data; pinning publishes nothing new.';
  } catch (e) {
    delete el.dataset.epsilon;
    el.textContent = `The runs on screen could not be composed: ${e?.message ?? String(e)}`;
  }
}
