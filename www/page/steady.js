// The page between runs: a typed value beside a slider, the plots marked stale
// while the next run is prepared, and the words for a total that counts earlier noise draws.

/**
 * Binds a slider to a number input, both ways: sliding types `fromSlider()` into the input;
 * typing moves the slider as far as its range goes (`Math.log10` of the value, as the page's ε
 * slider is logarithmic). The typed text is what the page applies, so any value Rust accepts can
 * be typed, and a refused one gets its error beside the field. `show(value)` echoes a value.
 */
export function bindTyped(slider, input, fromSlider, show) {
  const slid = () => {
    const value = fromSlider();
    input.value = String(value);
    show(value);
  };
  slider.addEventListener('input', slid);
  slider.addEventListener('change', slid);
  input.addEventListener('input', () => {
    const value = Number(input.value);
    if (!(Number.isFinite(value) && value > 0)) return; // Rust says why, on change
    slider.value = String(Math.log10(value));
    show(value);
  });
}

/**
 * Keeps `el` at least as tall as it is now (`hold`), or lets it size to its text again: a line
 * rewritten while a run is prepared, then again when it is ready, must not shrink meanwhile and
 * move everything under it.
 */
export function holdHeight(el, hold = true) {
  el.style.minHeight = hold ? `${el.getBoundingClientRect().height}px` : '';
}

let label = null;

/**
 * Marks the plots as showing a run whose settings have changed (`on`), until the next run's first
 * batch: faded, with a label. The label floats over the plots, so it moves nothing.
 */
export function markStale(on) {
  const plots = document.querySelector('section.plots');
  if (!plots) return;
  if (!label) {
    label = Object.assign(document.createElement('p'), {
      className: 'stale-label', id: 'stale-label', textContent: 'Settings changed — press Play: these plots show the previous run.',
    });
    label.setAttribute('role', 'status');
    plots.prepend(label);
  }
  plots.classList.toggle('stale', on);
  plots.dataset.stale = String(on);
  label.hidden = !on;
}

/**
 * The composed guarantee's sentence. With noise draw k > 0, the total counts the k earlier draws
 * on the same data too (Rust's composeRun does): `c.releases` is all of them.
 */
export function composedWords(cfg, c, statement) {
  const draws = (cfg.noise_draw ?? 0) + 1;
  const own = c.releases / draws;
  const run = `This run publishes ${own} release${own === 1 ? '' : 's'}`;
  if (draws > 1) {
    const earlier = draws - 1;
    return `${run} (noise draw ${earlier}); with the ${earlier} earlier noise draw${earlier === 1 ? '' : 's'} `
      + `on the same data, counted at these settings, ${c.releases} releases together: ${statement} (${c.method}).`;
  }
  return c.releases === 1 ? `${run}: ${statement}.` : `${run}: together ${statement} (${c.method}).`;
}

/**
 * A composed total below the ε one of its parts states is valid, and says why in one line
 *; '' otherwise. Each part states the ε it was calibrated to keep (a zCDP plan
 * through the classic conversion ρ + 2√(ρ ln(1/δ)), invertible, so σ can be solved from it); the
 * total adds the parts' ρ (or Rényi curves) and converts once with the tighter conversion of
 * Canonne, Kamath & Steinke (2020, Prop. 12), at the summed δ, so it can come out below a part's.
 * `c` is Rust's composition (composeRun / composeRuns), `fmt` the page's number format.
 */
export function tighterWords(c, fmt) {
  const largest = Math.max(...(c.shares ?? []).map((s) => s.guarantee.epsilon));
  if (!(c.epsilon < largest)) return '';
  const sums = c.rho != null ? 'adds up their zCDP ρ' : 'adds up their Rényi curves';
  return ` Below the ε = ${fmt(largest)} one of them states, and valid: each states the ε it was set to keep`
    + `${c.rho != null ? ' (via the classic conversion ρ + 2√(ρ ln(1/δ)))' : ''}, while the total ${sums} `
    + 'and converts once, by the tighter Canonne–Kamath–Steinke bound, at the summed δ.';
}
