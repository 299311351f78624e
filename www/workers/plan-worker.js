// The worker of the planning panel (www/panels/plan.js): it solves "what ε for excess risk ≤ t?"
// from the plan's own bound (Rust: src/session/plan_back.rs). It poses the settings' problem (data
// and reference) to read the bound's ingredients, which may take a while, so it runs here, off the
// page's thread. The sweep that confirms the answer runs in the sweep's workers.

import init, { planBackwards } from '../pkg/dp_playground.js';
import { moduleFromPage } from './wasm-module.js';

const ready = moduleFromPage(init);

function asError(e) {
  if (e && typeof e === 'object' && 'message' in e) return { field: e.field ?? null, message: String(e.message) };
  return { field: null, message: String(e) };
}

self.onmessage = async ({ data }) => {
  await ready;
  const { solveId, config, target } = data;
  try {
    self.postMessage({ solveId, answer: planBackwards(config, target) });
  } catch (e) {
    self.postMessage({ solveId, error: asError(e) });
  }
};
