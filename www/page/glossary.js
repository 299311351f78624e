// What the page's words mean: one glossary, shown where each word appears as a
// tooltip (on hover and on keyboard focus, a real role="tooltip" element the word's
// aria-describedby names) and, for the words an algorithm's card uses, in the card itself.
//
// The glossary lives here, not in Rust beside the cards: it explains the page's own readouts,
// labels and badges (the G of the preview, the clipping count, the two clip controls), which this
// module's page draws; the cards (Rust, catalog.rs) are matched against it, not copied into it.

/**
 * Every explained word: `words` is the explanation; `match` finds the word in a text the page
 * writes (its first match is the one marked), absent for words explained only at a control.
 */
export const GLOSSARY = {
  G: {
    term: 'G',
    words: 'G is the declared Lipschitz bound: no single record can move the loss\'s gradient by more '
      + 'than G. It follows from the declared ‖x‖ bound (and label bound) and the loss, never from '
      + 'the data, and the noise is scaled to it: a larger G means more noise.',
    match: /\bG = [0-9][0-9.e+−-]*/,
  },
  certificate: {
    term: 'certificate',
    words: 'A certificate is a bound the solver proves as it runs: its point is within the distance '
      + 'of the exact optimum that the noise was calibrated for. A release that needs one waits '
      + 'until it holds, checked, not assumed from "ran T steps".',
    match: /\bcertificate\b|\bcertified\b/,
  },
  zCDP: {
    term: 'zCDP',
    words: 'zero-concentrated differential privacy (Bun & Steinke, "Concentrated Differential '
      + 'Privacy", 2016): a way of counting privacy in which the costs ρ of Gaussian noise steps '
      + 'simply add up; the total is turned into (ε, δ) at the end, much tighter than adding the ε\'s.',
    match: /\bzCDP\b/,
  },
  PL: {
    term: 'PL',
    words: 'Polyak–Łojasiewicz: the loss grows at least quadratically in how far its value is above '
      + 'the optimum, ‖∇F(w)‖² ≥ 2μ(F(w) − F*). Weaker than strong convexity, and still enough for '
      + 'gradient descent to converge fast.',
    match: /\bPL\b/,
  },
  population: {
    term: 'population excess',
    words: 'How much worse the release does than the best point on new data from the same generator, '
      + 'not on the n training records. "±" is the standard error of the estimate, from a fresh '
      + 'sample drawn for it. Measured on the raw data (not private).',
    match: /\bpopulation excess\b/,
  },
  floatingPoint: {
    term: 'floating point',
    words: 'The privacy proofs assume noise drawn from exact real numbers. A computer draws it in '
      + 'floating point, whose rounding can leak the noiseless value (Mironov, "On Significance of '
      + 'the Least Significant Bits for Differential Privacy", 2012). This page does not defend '
      + 'against that: its guarantees are those of the idealised mechanism.',
    match: /\bfloating[ -]point\b/,
  },
  clipped: {
    term: 'clipping shortened',
    words: 'Every record whose features are longer than the declared ‖x‖ bound is shortened to that '
      + 'length before the run: that is what makes the bound, and so G and the noise, true. How '
      + 'many were shortened is counted on the raw data (not private).',
    match: /\bclipping shortened \d+ of them\b/,
  },
  featureBound: {
    term: 'declared ‖x‖ bound',
    words: 'Data side: every record\'s features are shortened to this length before anything runs, '
      + 'for every algorithm. With the loss it fixes G, and so the noise. Declared, not measured: '
      + 'set it from what you know of the data.',
  },
  gradientClip: {
    term: 'gradient clip C',
    words: 'Algorithm side: during the run, each record\'s gradient is shortened to length C, and the '
      + 'noise is scaled to C instead of G. The features are still clipped to the declared ‖x‖ '
      + 'bound first. Blank: C = G, so it never bites; smaller C means less noise but biased steps.',
  },
  noiseDraw: {
    term: 'noise draw',
    words: 'A seeded run draws its noise from the seed, so Reset → Play repeats it exactly. "New noise '
      + 'draw" takes the next noise (the data stay): another release on the same data, and the '
      + 'stated total counts every draw so far.',
  },
  neighbours: {
    term: 'neighbouring datasets',
    words: 'The two data sets a guarantee cannot tell apart. Replace one record: both have the same '
      + 'size n (it is public) and one record\'s values differ. Add or remove one record: one has a '
      + 'record more, so the guarantee also hides whether a person is in the data at all. A '
      + 'replacement is a removal and an addition, so an add/remove guarantee gives a replace-one '
      + 'guarantee at about twice the ε.',
  },
  replaceOne: {
    term: 'replace-one',
    words: 'Neighbouring data sets of the same size n (public), one record\'s values changed: the '
      + 'guarantee hides any one person\'s values, given that n people are in the data.',
    match: /\breplace-one\b/,
  },
  addRemove: {
    term: 'add/remove',
    words: 'Neighbouring data sets that differ by one record more or less: the guarantee also hides '
      + 'whether a person is in the data at all (n is not public).',
    match: /\badd\/remove\b/,
  },
};

/** The container every tooltip lives in (outside the text it explains, so it adds no words there). */
function layer() {
  let el = document.getElementById('tooltips');
  if (!el) {
    el = Object.assign(document.createElement('div'), { id: 'tooltips' });
    document.body.append(el);
  }
  return el;
}

let made = 0;
/** The tooltip shown, and its anchor. */
let shown = null;
let shownAnchor = null;
/** Each tooltip's anchor: a tooltip whose anchor has left the page goes too. */
const anchors = new Map();

let pruning = false;

/**
 * Drops the tooltips of words no longer on the page, after the current task: a word is often
 * explained before its element is put in the page.
 */
function prune() {
  if (pruning) return;
  pruning = true;
  setTimeout(() => {
    pruning = false;
    dropGone();
  }, 0);
}

function dropGone() {
  for (const [tip, anchor] of anchors) {
    if (!anchor.isConnected) {
      if (shown === tip) shown = null;
      tip.remove();
      anchors.delete(tip);
    }
  }
}

function hide() {
  if (shown) shown.hidden = true;
  shown = null;
}

/** Shows `tip` under `anchor`, fixed to the viewport (it takes no room in the page's flow). */
function show(tip, anchor) {
  hide();
  tip.hidden = false;
  shownAnchor = anchor;
  place(tip, anchor);
  shown = tip;
}

function place(tip, anchor) {
  const box = anchor.getBoundingClientRect();
  const width = Math.min(320, window.innerWidth - 16);
  tip.style.maxWidth = `${width}px`;
  tip.style.left = `${Math.max(8, Math.min(box.left, window.innerWidth - width - 8))}px`;
  tip.style.top = `${box.bottom + 4}px`;
}

document.addEventListener('keydown', (event) => { if (event.key === 'Escape') hide(); });
// A scrolled page carries the word away: its tooltip follows it.
window.addEventListener('scroll', () => { if (shown) place(shown, shownAnchor); }, { passive: true });

/**
 * Gives `anchor` the explanation of glossary `key`: shown while the pointer is over `hover`
 * (default: the anchor) or the anchor has keyboard focus, named by its aria-describedby. A
 * non-control anchor is made focusable, so a keyboard reaches it.
 */
export function explain(anchor, key, hover = anchor) {
  const entry = GLOSSARY[key];
  prune();
  made += 1;
  const tip = Object.assign(document.createElement('span'), {
    id: `tip-${key}-${made}`, className: 'tooltip', textContent: `${entry.term}: ${entry.words}`, hidden: true,
  });
  tip.setAttribute('role', 'tooltip');
  layer().append(tip);
  anchors.set(tip, anchor);
  anchor.dataset.term = key;
  if (!anchor.matches('input, select, textarea, button, a[href]')) {
    anchor.tabIndex = 0;
    anchor.classList.add('term');
  }
  const described = (anchor.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => id && !id.startsWith('tip-'));
  anchor.setAttribute('aria-describedby', [...described, tip.id].join(' '));
  hover.addEventListener('mouseenter', () => show(tip, anchor));
  hover.addEventListener('mouseleave', () => { if (document.activeElement !== anchor) hide(); });
  anchor.addEventListener('focus', () => show(tip, anchor));
  anchor.addEventListener('blur', hide);
  return tip;
}

/** Every glossary word `text` uses, in glossary order, with where its first use is. */
function uses(text) {
  return Object.entries(GLOSSARY)
    .filter(([, e]) => e.match)
    .map(([key, e]) => ({ key, found: e.match.exec(text) }))
    .filter(({ found }) => found);
}

/**
 * Sets `el`'s text to `text` with the first use of each glossary word marked and explained. The
 * text content is exactly `text`: only its words are wrapped.
 */
export function annotate(el, text) {
  const marks = uses(text).sort((a, b) => a.found.index - b.found.index);
  const parts = [];
  let at = 0;
  for (const { key, found } of marks) {
    if (found.index < at) continue; // inside an earlier mark
    parts.push(text.slice(at, found.index));
    const term = Object.assign(document.createElement('span'), { textContent: found[0] });
    parts.push(term);
    explain(term, key);
    at = found.index + found[0].length;
  }
  parts.push(text.slice(at));
  el.replaceChildren(...parts.filter((p) => p !== ''));
  prune();
}

/** The glossary words `texts` use, as "term: explanation" lines (for an algorithm's card). */
export function wordsUsed(...texts) {
  return uses(texts.join(' ')).map(({ key }) => `${GLOSSARY[key].term}: ${GLOSSARY[key].words}`);
}

/**
 * The explanations of the page's fixed words: the readout's population excess, and the two clip
 * controls (hovering the field or focusing its input explains it).
 */
export function explainPage() {
  const population = document.getElementById('population-term');
  if (population) explain(population, 'population');
  for (const [id, key] of [['feature_bound', 'featureBound'], ['clip', 'gradientClip'], ['noise_draw', 'noiseDraw'], ['relation', 'neighbours']]) {
    const input = document.getElementById(id);
    if (input) explain(input, key, input.closest('.field') ?? input);
  }
  const button = document.getElementById('new-draw');
  if (button) explain(button, 'noiseDraw');
}
