// The run's buttons and the controls' events: every control applies the values of all of them
// (www/page/link.js), Play and Step act once the run is ready, the exports ask the worker.

import { pickGame, previews } from '../pkg/dp_playground.js';
import { $, ui } from './ui.js';
import { fmt } from './format.js';
import { config, invalid, phase, pins, plotter, run, runId, setPending } from './state.js';
import { CONTROLS, defaultParams, epsilonFromSlider, fromControls, syncParamFields, syncSettings } from './controls.js';
import { linkRefusal, showError } from './errors.js';
import { setState, showPins } from './readout.js';
import { showComposed, showGuarantees } from './guarantee.js';
import { cancelCsvLoad, chargeFile, onCsvChosen } from './csv.js';
import { applyConfig, pickFromMenu, pickProblemFromMenu, pickWith } from './link.js';
import { post, restartBusyWorker } from './conversation.js';
import { ToWorker } from '../workers/protocol.js';
import { spec as plotSpec } from '../drawing/plots.js';
import { exportPng, exportSvg, mountScaleMenus, pngScale } from '../drawing/figures.js';
import { copyText } from '../drawing/export.js';
import { bindTyped } from './steady.js';

/** Plays the prepared run (once charged to a loaded file). */
export function play() {
  if (!chargeFile()) return;
  post({ type: ToWorker.PLAY, runId, speed: ui.speed.value });
  setState('running', 'running…');
}

/** Advances the prepared run by one step. */
export function step() {
  if (!chargeFile()) return;
  post({ type: ToWorker.STEP, runId });
  setState('paused', 'paused');
}

/** A click on Play or Step while the run is prepared: done once it is ready. */
function wait(action) {
  setPending(action);
  ui.status.textContent = `preparing the run with these settings; it will ${action === 'play' ? 'play' : 'step'} when ready…`;
}

export function wireControls() {
  // The typed ε and the slider move together; registered first, so the slider's value is typed
  // before a change applies the controls.
  bindTyped(ui.epsilon, ui.epsilonTyped, epsilonFromSlider, (eps) => {
    ui.epsilonOutput.textContent = fmt(eps, 2);
  });
  ui.epsilon.addEventListener('input', () => {
    const eps = epsilonFromSlider();
    ui.epsilonOutput.textContent = fmt(eps, 2);
    try {
      showGuarantees(previews(JSON.stringify({ ...config, epsilon: eps })));
    } catch (e) {
      showError(e);
    }
    showComposed({ ...config, epsilon: eps });
  });
  // Every control applies the values of all controls, so a choice Rust refused (say output
  // perturbation without a ridge) is applied once the field it named is fixed.
  const controls = [ui.epsilon, ui.epsilonTyped, ...CONTROLS.ids.map($)];
  for (const control of controls) {
    control.addEventListener('change', () => {
      // New data (another seed): its noise draws start again from the seed's own.
      if (control === ui.seed) $('noise_draw').value = '0';
      defaultParams(control);
      syncParamFields();
      if (control === $('algorithm')) pickFromMenu();
      else if (control === $('problem')) pickProblemFromMenu();
      else if (control === $('game')) pickWith((from) => pickGame(from, $('game').value), 'the game');
      else applyConfig(fromControls());
    });
  }
  $('compare').addEventListener('change', () => {
    syncSettings();
    applyConfig(fromControls());
  });
  $('pin').addEventListener('click', () => {
    if (phase !== 'released' || !run.release) return;
    pins.add(run, plotter.theories);
    showPins();
    plotter.request(run);
  });
  $('clear-pins').addEventListener('click', () => {
    pins.clear();
    showPins();
    plotter.request(run);
  });
  $('csv-file').addEventListener('change', onCsvChosen);
  $('csv-label').addEventListener('change', onCsvChosen);
  $('csv-cancel').addEventListener('click', cancelCsvLoad);
  ui.play.addEventListener('click', () => {
    if (invalid) return;
    if (phase === 'loading') wait('play');
    else if (phase === 'running') {
      post({ type: ToWorker.PAUSE, runId });
      setState('paused', 'paused');
    } else play();
  });
  ui.step.addEventListener('click', () => {
    if (invalid) return;
    if (phase === 'loading') wait('step');
    else step();
  });
  ui.cancel.addEventListener('click', () => {
    if (phase === 'loading') {
      if (restartBusyWorker()) {
        setPending(null);
        ui.progress.hidden = true;
        setState('stopped', 'cancelled while preparing: Reset prepares it again');
      }
      return;
    }
    post({ type: ToWorker.PAUSE, runId });
    setState('cancelled', 'cancelled: Play continues, Reset starts again');
  });
  // From the controls, not the last valid config: with a setting refused, Reset must not run the
  // old settings either.
  ui.reset.addEventListener('click', () => applyConfig(fromControls()));
  // The next noise of the same seed (the data stay), in the link and counted in the total.
  $('new-draw').addEventListener('click', () => {
    $('noise_draw').value = String((config?.noise_draw ?? 0) + 1);
    applyConfig(fromControls());
  });
  const say = (text) => { $('export-status').textContent = text; };
  $('copy-link').addEventListener('click', async () => {
    if (invalid) {
      say(linkRefusal());
      return;
    }
    const ok = await copyText(location.href);
    say(ok ? 'Link copied: it restores these settings and, seeded, this exact run.' : `Copy this link: ${location.href}`);
  });
  // The worker's session makes the files (Rust, session::export); EXPORTED brings them back.
  $('export-csv').addEventListener('click', () => post({ type: ToWorker.EXPORT, runId, what: 'csv' }));
  $('export-json').addEventListener('click', () => post({ type: ToWorker.EXPORT, runId, what: 'json' }));
  // Figures for slides (www/drawing/figures.js): the run's settings inside the figure and in its name.
  mountScaleMenus();
  const exportFigure = (kind, save) => {
    if (!run.info) return;
    try {
      // The pinned runs go into the exported figure too, as on the page.
      save(kind, plotter.decorate(kind, plotSpec(run, kind, plotter.theories)), run.info.config, $(`${kind}-plot`));
    } catch (e) {
      showError({ field: null, message: String(e) });
    }
  };
  document.querySelectorAll('button.png').forEach((b) => b.addEventListener('click', () => {
    exportFigure(b.dataset.canvas.replace(/-plot$/, ''), (...args) => exportPng(...args, pngScale(b)));
  }));
  document.querySelectorAll('button.svg').forEach((b) => b.addEventListener('click', () => {
    exportFigure(b.dataset.plot, exportSvg);
  }));
}
