// What the page shows of the picked game beyond its problem line: the μx, μy fields
// hide for a game whose moduli are its own (AUC maximisation: μx = 0, μy = 2p(1 − p)), as the
// page hides every inapplicable control, and a game with its own readout (AUC) gets a row for it
// in the readout, labelled non-private. Rust says which game is which (gameFacts).
import { gameFacts } from '../pkg/dp_playground.js';

const cache = new Map();

/** `{ own_moduli, readout }` of `game` (from Rust, once per game); null for an unknown game. */
function facts(game) {
  if (!cache.has(game)) {
    try {
      cache.set(game, gameFacts(game));
    } catch {
      // An unknown game (Rust names it at the game field when the config is read).
      return null;
    }
  }
  return cache.get(game);
}

/**
 * Hides the μx, μy fields while the game (on a saddle problem) declares its own moduli; a field
 * whose error line holds a message stays, so the message is seen.
 */
export function syncGameFields($, problem, game) {
  const own = problem === 'saddle' && Boolean(facts(game)?.own_moduli);
  for (const key of ['mu_x', 'mu_y']) {
    $(key).closest('.field').hidden = own && $(`${key}-error`).textContent === '';
  }
}

/**
 * The game's own readout row: shown while the run poses a game that has one, with the released
 * point's value and the reference saddle point's once released (`fmt` formats a number).
 */
export function showGameReadout($, cfg, release, fmt) {
  const name = cfg.problem === 'saddle' ? facts(cfg.game)?.readout : null;
  const term = $('game-readout-term');
  const value = $('game-readout');
  term.hidden = !name;
  value.hidden = !name;
  if (!name) return;
  $('game-readout-name').textContent = name;
  const r = release?.readout;
  value.dataset.released = r ? String(r.released) : '';
  value.dataset.reference = r?.reference == null ? '' : String(r.reference);
  if (!r) {
    value.textContent = '–';
    return;
  }
  const reference = r.reference == null ? 'no reference saddle point found'
    : `${fmt(r.reference, 4)} at the reference saddle point (the records' game solved without noise)`;
  value.textContent = `${fmt(r.released, 4)} at the released x; ${reference}`;
}
