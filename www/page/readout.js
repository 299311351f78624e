// The run's state on screen and its readout: the status and the buttons it allows, the counters,
// the released point, the ledger's caveats and the problem line.

import { $, ui } from './ui.js';
import { fmt, passes, sci } from './format.js';
import { cardsByKind, config, invalid, pins, plotter, run, setPhase } from './state.js';
import { showBlocked } from './errors.js';
import { statement } from './guarantee.js';
import { csvId } from './csv.js';
import { showGameReadout } from './game-facts.js';
import { showLocalisation, showSaddleViews } from './run-views.js';
import { showCompare } from './pins.js';
import { annotate } from './glossary.js';

/** Sets the run's phase and the status line's words (`next` when none); the buttons follow. */
export function setState(next, text) {
  // Play turned off under the keyboard (a run released after Enter on Play) must not drop the
  // focus to the page's body: it goes to the next thing to press, beside it.
  const hadFocus = document.activeElement === ui.play;
  setPhase(next);
  ui.status.dataset.state = next;
  ui.status.textContent = text ?? next;
  const ready = ['ready', 'paused', 'running', 'cancelled'].includes(next);
  // While a run is prepared, Play and Step take a click and act once it is ready (`pending`).
  ui.play.disabled = invalid !== null || !(ready || next === 'loading');
  ui.step.disabled = invalid !== null || !((ready && next !== 'running') || next === 'loading');
  ui.reset.disabled = next === 'loading';
  // A new noise draw is a new run: not while one is prepared, nor with noise from the OS (every
  // run draws afresh there).
  $('new-draw').disabled = next === 'loading' || next === 'nofile' || invalid !== null || Boolean(config?.unseeded_noise);
  ui.cancel.disabled = next !== 'running'; // while preparing: showPreparation
  ui.play.textContent = next === 'running' ? 'Pause' : 'Play';
  $('pin').disabled = next !== 'released';
  ui.play.setAttribute('aria-pressed', String(next === 'running'));
  showBlocked();
  if (hadFocus && ui.play.disabled) {
    (ui.reset.disabled ? $('play-blocked').querySelector('a') : ui.reset)?.focus();
  }
}

export function showReadout() {
  const main = run.main;
  ui.stepCount.textContent = passes(main.gradEvals.length ? main.gradEvals[main.gradEvals.length - 1] : 0);
  // A length measured on the data (a certified solver, a privacy filter, Poisson batches): the
  // counter and the ε-spent curve's extent are NOT PRIVATE (Rust's lengthDependsOnData, per lane).
  const measured = Boolean(run.info?.lengthDependsOnData?.some((m) => m));
  $('step-np').hidden = !measured;
  $('privacy-np').hidden = !measured;
  const e = run.latestExcess;
  const unavailable = run.info?.referenceUnavailable;
  const game = JSON.parse(run.info?.config ?? '{}').problem === 'saddle';
  $('excess-name').textContent = game ? 'duality gap' : 'excess risk';
  // Only what the run released: a game that releases x alone (the C-SC variant) names x alone.
  const xOnly = game && run.release && !run.release.y;
  $('release-name').textContent = game ? (xOnly ? 'released x' : 'released (x, y)') : 'released w';
  ui.excess.textContent = unavailable && !game ? 'reference unavailable (non-private diagnostic)' : sci(e);
  ui.excess.title = unavailable ?? '';
  ui.excess.dataset.value = e === null || Number.isNaN(e) ? '' : String(e);
  const r = run.release;
  const coords = (v) => `(${v.slice(0, 4).map((c) => fmt(c, 4)).join(', ')}${v.length > 4 ? ', …' : ''})`;
  if (!r) ui.release.textContent = 'not yet';
  else if (r.y) ui.release.textContent = `x = ${coords(r.w)}, y = ${coords(r.y)}; duality gap ${sci(r.excess)}`;
  // A game that releases x alone (Zhang et al. 2022's C-SC variant): y is not shown, and the gap
  // is scored at the data-independent start y₀ (the caveats say so).
  else if (game) ui.release.textContent = `x = ${coords(r.w)} (only x is released); duality gap at (x, y₀) ${sci(r.excess)}`;
  else ui.release.textContent = `${coords(r.w)}; excess ${r.excess === null ? 'unknown (reference unavailable)' : sci(r.excess)}`;
  // A failure at run time that depends on the data (a certificate that never held) voids the
  // guarantee the preview stated: the headline says so, with the ledger's own sentence.
  const failure = r?.ledger.leaks.find((l) => !ui.headline.dataset.leaks?.includes(l));
  if (failure) {
    ui.headline.textContent = `NOT PRIVATE (this run): ${failure}`;
    ui.headline.classList.add('not-private');
  }
  $('certificate').textContent = diagnosticsWords(main.diagnostics);
  showSaddleViews(run, $);
  showLocalisation(run, $);
  const pop = r?.population;
  $('population').textContent = pop
    ? `${sci(pop.value)} ± ${sci(pop.std_error)} (fresh-sample estimate)`
    : (r ? 'n/a (no generator to sample a population from here)' : '–');
  showGameReadout($, JSON.parse(run.info?.config ?? '{}'), r, fmt);
  ui.caveats.replaceChildren(
    ...(r ? r.ledger.leaks : []).map((c) => Object.assign(document.createElement('li'), { textContent: c, className: 'leak' })),
    ...(r ? r.ledger.caveats : []).map((c) => {
      const li = document.createElement('li');
      annotate(li, c);
      return li;
    }),
    // What happened on these data (a fallback, an abort): facts about the raw data, so labelled
    // non-private and kept out of the private export.
    ...(r ? r.ledger.events ?? [] : []).map((c) => Object.assign(document.createElement('li'), {
      textContent: `In this run (non-private: depends on the data): ${c}`, className: 'event',
    })),
  );
  showPins();
  const [done, total] = run.progress;
  ui.progress.max = total;
  ui.progress.value = done;
  ui.progress.hidden = total <= 1;
}

/** The compare readout: this run's and the pinned runs' rows, and what the screen shows together. */
export function showPins() {
  $('clear-pins').hidden = pins.size === 0;
  showCompare(run, config, pins, { fmt, sci, statement }, (i) => {
    pins.list.splice(i, 1);
    showPins();
    plotter.request(run);
  });
}

/**
 * The named diagnostics of a run (non-private): a certificate as the sentence the release waits
 * on, every other value as `name = value`.
 */
function diagnosticsWords(d) {
  const { certificate_bound: bound, certificate_threshold: threshold, certificate_met: met, ...rest } = d ?? {};
  const words = bound === undefined ? []
    : [`‖w − w*‖ ≤ ${sci(bound)} (the release needs ≤ ${sci(threshold)})${met ? ': met' : ''}`];
  words.push(...Object.entries(rest).map(([name, value]) => `${name} = ${fmt(value, 4)}`));
  return words.length ? words.join('; ') : 'none (this method releases without a certificate)';
}

const PATH_WORDS = {
  minimisation: 'Loss contours (darker is lower), the domain boundary, the non-private path, w* (×, non-private), '
    + 'the sensitivity ball (dashed, named in the legend where it is large enough to see) and the released points '
    + '(red dots, private).',
  saddle: 'The minimising player\'s first two weights (x₁, x₂): its non-private path, the base game\'s equilibrium '
    + '(×, declared by the generator, where known) and the released x (red dots, private).',
};

export function describeProblem(c, info) {
  $('path-words').textContent = PATH_WORDS[c.problem] ?? PATH_WORDS.minimisation;
  if (c.problem === 'saddle') {
    const game = { rock_paper_scissors: `rock–paper–scissors embedded in ${c.d} strategies`,
      random_matrix: `a random ${c.d} × ${c.d} matrix game`, ball_game: `a random bilinear game on ℓ2 balls of radius ${c.radius} in d = ${c.d}`,
      query_release: `query release: a histogram over the ${2 ** c.d} rows of ${c.d} binary attributes against the worst of ${4 * c.d * (c.d - 1)} signed 2-way marginals`,
      l1_system_fit: `the ℓ1 system fit min ‖Āx − b̄‖₁ over ‖x‖₂ ≤ ${c.radius}, d = ${c.d} equations, through its game yᵀ(Ax − b) with y in [−1, 1]^${c.d}`,
      group_dro_logistic: `worst-group logistic regression: x in the ℓ2 ball of radius ${c.radius} over d = ${c.d} features against the weights y of 3 groups (declared shares 0.5, 0.3, 0.2)`,
      group_dro_squares: `worst-group least squares: x in the ℓ2 ball of radius ${c.radius} over d = ${c.d} features against the weights y of 3 groups (declared shares 0.5, 0.3, 0.2)`,
      group_dro_logistic_simplex: `worst-group logistic regression: x on the simplex over d = ${c.d} features (a mixture) against the weights y of 3 groups (declared shares 0.5, 0.3, 0.2)`,
      group_dro_squares_simplex: `worst-group least squares: x on the simplex over d = ${c.d} features (a mixture) against the weights y of 3 groups (declared shares 0.5, 0.3, 0.2)`,
      auc_maximisation: `AUC maximisation (square-loss form): x = (w, s, t) with ‖w‖₂ ≤ ${c.radius} over d = ${c.d} features against α, declared class prior p = 0.3 (convex in x, strongly concave in α with μy = 0.42)` }[c.game];
    const dro = c.game.startsWith('group_dro');
    const records = c.game === 'auc_maximisation' ? (c.records === 'bounded' ? `‖a‖ ≤ ${c.entry_bound}, labels ±1`
      : `heavy-tailed ${c.tail.kind.replace('_', '-')} features ${c.clip_records ? `clipped to ‖a‖ ≤ ${c.entry_bound}` : `NOT clipped to ${c.entry_bound} (the demonstration)`}, labels ±1`)
      : dro ? (c.records === 'bounded' ? `‖a‖ ≤ ${c.entry_bound} and |b| ≤ ${c.entry_bound}`
      : `heavy-tailed ${c.tail.kind.replace('_', '-')} features and labels ${c.clip_records ? `clipped to ‖a‖, |b| ≤ ${c.entry_bound}` : `NOT clipped to ${c.entry_bound} (the demonstration)`}`)
      : c.records === 'bounded' ? `entries ±${c.entry_bound}`
      : `heavy-tailed ${c.tail.kind.replace('_', '-')} entries ${c.clip_records ? `clipped to ±${c.entry_bound}` : `NOT clipped to ±${c.entry_bound} (the demonstration)`}`;
    const reg = c.game !== 'auc_maximisation' && (c.mu_x > 0 || c.mu_y > 0) ? `, regularised with μx = ${c.mu_x}, μy = ${c.mu_y}` : '';
    $('problem-line').textContent = `Saddle point of ${game}${reg}: n = ${c.n} records with ${records}.`;
    return;
  }
  if (c.data === 'csv' && csvId === null) {
    // No numbers to describe yet (n and d come from the file): say what to do instead.
    $('problem-line').textContent = `${c.loss.kind.replace('_', ' ')} loss on your CSV file, once it is loaded: choose it at “CSV file”, under the data source.`;
    return;
  }
  const source = { csv: 'your CSV file', sparse: `sparse high-dimensional data (${c.sparsity} non-zeros in w₀)` }[c.data]
    ?? `synthetic ${c.tail.kind.replace('_', '-')} data`;
  const domain = { l2_ball: `‖w‖₂ ≤ ${c.radius}`, l1_ball: `‖w‖₁ ≤ ${c.radius}`, box: `|wⱼ| ≤ ${c.radius}`,
    simplex: 'the simplex', unconstrained: 'R^d' }[c.domain];
  // Counted once the data are made; until then the words keep their place (a line that came and
  // went moved every control under it).
  const clipped = `; clipping shortened ${info ? info.clipped : '…'} of them (non-private)`;
  // The no-clipping demonstrations leave the features as they are (their card says which).
  const unclipped = c.leak && Boolean(cardsByKind[c.algorithm]?.unclipped_features);
  const targets = c.loss.label_bound === undefined
    ? (c.data === 'csv' ? ', labels −1 and +1 (a 0 is read as −1)' : '')
    : `, targets to |y| ≤ ${c.loss.label_bound}`;
  annotate($('problem-line'), `${c.loss.kind.replace('_', ' ')} loss on ${source}, n = ${c.n}, d = ${c.d}, `
    + `${unclipped ? `features NOT clipped to ‖x‖ ≤ ${c.feature_bound} (the demonstration)` : `features clipped to ‖x‖ ≤ ${c.feature_bound}${clipped}`}${targets}; domain ${domain}.`);
}
