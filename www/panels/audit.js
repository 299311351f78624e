// The audit tab: the Clopper–Pearson audit (audit::scenarios in Rust) run in the teaching
// worker on a scenario, correct or with a planted bug, so a student sees which bugs an audit
// catches. The tab shows the lower bound ε̂ against the claimed ε.

import { auditScenarios } from '../pkg/dp_playground.js';
import { startJob } from '../page/teach-jobs.js';
import { COLORS, drawBars } from '../drawing/teach-draw.js';

const $ = (id) => document.getElementById(id);

let scenarios = [];
let job = null;
let last = null;

function current() {
  return scenarios.find((s) => s.key === $('audit_scenario').value);
}

function showBugs() {
  const s = current();
  $('audit-setting').textContent = `Setting: ${s.setting}; ${s.runs.toLocaleString('en')} runs on each side.`;
  const box = $('audit_bug');
  box.replaceChildren();
  for (const bug of [{ key: 'none', label: 'none: the correct mechanism', what: 'as the page runs it', caught: true }, ...s.bugs]) {
    const label = document.createElement('label');
    const input = document.createElement('input');
    input.type = 'radio';
    input.name = 'audit_bug';
    input.value = bug.key;
    input.checked = bug.key === 'none';
    label.append(input, ` ${bug.label}`);
    const help = document.createElement('span');
    help.className = 'help';
    help.textContent = ` — ${bug.what}${bug.caught ? '' : ' (this audit does not catch it)'}`;
    label.append(help);
    box.append(label);
  }
}

/** Preselects the scenario of the page's algorithm, if the tab has one. */
function follow(getConfig) {
  if (job) return;
  const kind = getConfig()?.algorithm;
  const s = scenarios.find((x) => x.algorithm === kind);
  if (s && $('audit_scenario').value !== s.key) {
    $('audit_scenario').value = s.key;
    showBugs();
  }
}

function show(report) {
  const claimed = report.claimed.epsilon;
  const bug = document.querySelector('input[name="audit_bug"]:checked')?.value ?? 'none';
  drawBars($('audit-plot'), {
    bars: [
      { label: 'claimed ε', value: claimed, color: '#8c959f' },
      { label: 'ε̂ (lower bound)', value: report.epsilon_lower, color: report.violation ? COLORS.dPrime : COLORS.theory },
    ],
    xlabel: 'ε',
  });
  const out = $('audit-result');
  out.dataset.verdict = report.violation ? 'violation' : 'pass';
  out.dataset.bug = bug;
  const at = report.claimed.delta > 0 ? ` at δ = ${report.claimed.delta.toExponential(0)}` : '';
  out.textContent = report.violation
    ? `CAUGHT: ε̂ = ${report.epsilon_lower.toFixed(2)} > claimed ε = ${claimed.toPrecision(3)}${at}. With confidence ${1 - report.alpha}, this mechanism does not meet its claim.`
    : `Passed: ε̂ = ${report.epsilon_lower.toFixed(2)} ≤ claimed ε = ${claimed.toPrecision(3)}${at}. No violation seen — which proves nothing: ε̂ is only a lower bound on one pair and one statistic.`;
  $('audit-counts').textContent = `Region ${report.tail === 'upper' ? 'x ≥' : 'x ≤'} ${report.threshold.toPrecision(4)}, chosen on the first half of the runs; `
    + `on the second half it held ${report.hits_numerator} of ${report.runs_per_side / 2} runs on ${report.numerator === 'd' ? 'D' : 'D′'} and ${report.hits_denominator} on the other side.`;
}

function setRunning(on) {
  $('audit-run').disabled = on;
  $('audit-cancel').disabled = !on;
}

async function run(getConfig) {
  const bug = document.querySelector('input[name="audit_bug"]:checked')?.value ?? 'none';
  $('audit-error').textContent = '';
  $('audit-result').textContent = '';
  delete $('audit-result').dataset.verdict;
  $('audit-progress').value = 0;
  // Said at once, before the worker's first chunk: a "done" left from the last audit would
  // otherwise stand beside a run that has only begun.
  $('audit-status').textContent = 'starting…';
  setRunning(true);
  job = startJob({ type: 'audit', scenario: $('audit_scenario').value, bug, seed: getConfig()?.seed ?? 1 }, (done, total) => {
    $('audit-progress').value = done / total;
    $('audit-status').textContent = `${done.toLocaleString('en')} of ${total.toLocaleString('en')} runs on each side`;
  });
  try {
    const report = await job.promise;
    if (report) {
      last = report;
      show(report);
      $('audit-status').textContent = 'done';
    } else {
      $('audit-status').textContent = 'cancelled';
    }
  } catch (e) {
    $('audit-error').textContent = e.message;
    $('audit-status').textContent = '';
  } finally {
    setRunning(false);
    job = null;
  }
}

/**
 * Mounts the audit tab (`root`, its fold): fills the scenario menu and wires it; the page's
 * current settings preselect its algorithm and seed (www/page/mount.js).
 */
export function mount(root, { settings: getConfig }) {
  scenarios = auditScenarios();
  $('audit_scenario').replaceChildren(...scenarios.map((s) => new Option(s.title, s.key)));
  showBugs();
  follow(getConfig);
  $('audit_scenario').addEventListener('change', showBugs);
  root.addEventListener('toggle', () => follow(getConfig));
  $('audit-run').addEventListener('click', () => run(getConfig));
  $('audit-cancel').addEventListener('click', () => job?.cancel());
  window.__teach ??= {};
  window.__teach.audit = () => last;
  return {};
}
