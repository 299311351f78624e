// The page's layout, beside what style.css does: the folds (closed on a narrow screen, opened for
// an error inside), the plots as tabs on a narrow screen, the canvases kept fitted to the screen
// as it changes (www/drawing/fit.js sizes them), and the links to the page's parts.

import { NARROW, fitForScreen } from '../drawing/fit.js';

/** The short name of each plot's tab, by its canvas id. */
const TAB_NAMES = {
  'excess-plot': 'risk',
  'path-plot': 'parameters',
  'players-plot': 'players',
  'vertices-plot': 'vertices',
  'localisation-plot': 'localisation',
  'noise-plot': 'noise',
  'privacy-plot': 'privacy',
  'features-plot': 'data',
};

/** Opens every fold around `el`, so a field with an error (or one a link leads to) is seen. */
export function reveal(el) {
  for (let fold = el?.closest('details'); fold; fold = fold.parentElement?.closest('details')) fold.open = true;
}

/** Whether an element takes part in the layout (not display: none, nor inside one). */
const shown = (el) => el.getClientRects().length > 0;

/**
 * Tabs over the plots' figures (shown by style.css on a narrow screen only; on a wide one every
 * plot is on screen). `onShow(canvas)` runs when a tab brings its plot on screen: a canvas that
 * was not displayed was not drawn.
 */
function mountPlotTabs(section, onShow) {
  const figures = [...section.querySelectorAll(':scope > figure')];
  const list = Object.assign(document.createElement('div'), { className: 'plot-tabs' });
  list.setAttribute('role', 'tablist');
  list.setAttribute('aria-label', 'Plots');
  const tabs = figures.map((figure) => {
    const canvas = figure.querySelector('canvas');
    figure.id ||= `${canvas.id}-figure`;
    figure.setAttribute('role', 'tabpanel');
    const tab = Object.assign(document.createElement('button'), {
      type: 'button', id: `${canvas.id}-tab`, textContent: TAB_NAMES[canvas.id] ?? canvas.id,
    });
    // A plot of the other problem kind has no tab either (the same classes hide both).
    for (const c of ['min-only', 'game-only']) if (figure.classList.contains(c)) tab.classList.add(c);
    tab.setAttribute('role', 'tab');
    tab.setAttribute('aria-controls', figure.id);
    figure.setAttribute('aria-labelledby', tab.id);
    tab.addEventListener('click', () => select(tab));
    return tab;
  });
  const figureOf = (tab) => figures[tabs.indexOf(tab)];
  function select(tab, focus = false) {
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute('aria-selected', String(on));
      t.tabIndex = on ? 0 : -1;
      figureOf(t).classList.toggle('tab-shown', on);
    }
    if (focus) tab.focus();
    onShow(figureOf(tab).querySelector('canvas'));
  }
  // Arrow keys move between the tabs on offer (the WAI-ARIA tabs pattern).
  list.addEventListener('keydown', (event) => {
    const offered = tabs.filter(shown);
    const at = offered.indexOf(document.activeElement);
    const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: offered.length - 1 }[event.key];
    if (at < 0 || to === undefined) return;
    event.preventDefault();
    select(offered[(to + offered.length) % offered.length], true);
  });
  list.append(...tabs);
  section.insertBefore(list, figures[0]);
  select(tabs[0]);
  // A tab whose plot leaves the page (the problem kind changed) gives way to the first on offer.
  new MutationObserver(() => {
    const current = tabs.find((t) => t.getAttribute('aria-selected') === 'true');
    if (NARROW.matches && !shown(current)) select(tabs.find(shown) ?? tabs[0]);
  }).observe(document.body, { attributes: true, attributeFilter: ['data-problem'] });
}

/** Keeps the run's plots fitted (`fitForScreen`) as the screen changes; `onResized(canvas)` redraws one. */
function fitCanvases(canvases, onResized) {
  const fit = (canvas) => { if (fitForScreen(canvas)) onResized(canvas); };
  for (const canvas of canvases) fitForScreen(canvas);
  const observer = new ResizeObserver((entries) => entries.forEach((e) => fit(e.target)));
  for (const canvas of canvases) observer.observe(canvas);
  NARROW.addEventListener('change', () => canvases.forEach(fit));
  // A zoom changes the pixel scale, which no ResizeObserver reports.
  window.addEventListener('resize', () => canvases.forEach(fit));
}

/**
 * Sets the layout up: `canvases` are the run's plots, `redraw(canvas)` draws one again (after
 * it was shown by a tab or resized). On a narrow screen the panels start folded.
 */
export function mountLayout({ canvases, redraw }) {
  if (NARROW.matches) for (const panel of document.querySelectorAll('details.panel[open]')) panel.open = false;
  mountPlotTabs(document.querySelector('.plots'), redraw);
  fitCanvases(canvases, redraw);
  // "My CSV file" needs the file field, in the "more settings" fold.
  const data = document.getElementById('data');
  data.addEventListener('change', () => { if (data.value === 'csv') reveal(document.getElementById('csv-file')); });
  mountJumps();
  document.getElementById('compare').addEventListener('change', summariseCompare);
}

/**
 * The links to the page's parts (index.html `nav.jump`): each scrolls to its part, opens the
 * folds around it (and the part itself when it is a fold) and moves the focus there. The URL's
 * hash holds the run's settings, so a link never changes it.
 */
function mountJumps() {
  for (const link of document.querySelectorAll('nav.jump a[data-jump]')) {
    link.addEventListener('click', (event) => {
      event.preventDefault();
      const target = document.getElementById(link.dataset.jump);
      if (!target) return;
      reveal(target);
      if (target.tagName === 'DETAILS') target.open = true;
      // A fold is reached by its summary; any other part holds tabindex="-1" (index.html).
      const focus = target.tagName === 'DETAILS' ? target.querySelector(':scope > summary') : target;
      if (!focus.hasAttribute('tabindex') && focus.tagName !== 'SUMMARY') focus.tabIndex = -1;
      focus.focus({ preventScroll: true });
      target.scrollIntoView({ block: 'start' });
    });
  }
}

/**
 * The folded "Algorithm: card and comparison" panel says in its summary what the run is compared
 * with (the ticked boxes, by name), so nothing ticked hides behind the fold. Called when the
 * boxes change, by hand or from a link (www/page/controls.js syncControls).
 */
export function summariseCompare() {
  const ticked = [...document.querySelectorAll('#compare input:checked')]
    .map((box) => box.parentElement.textContent.trim());
  document.getElementById('compare-summary').textContent = ticked.length
    ? `· compared with ${ticked.join(', ')}` : '· compared with none';
}
