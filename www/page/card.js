// The algorithm's card: its source, assumptions, privacy and utility, with the glossary's words it
// uses. The prose is not in the wasm module: it comes with pkg/cards.json (www/page/card-text.js).

import { $ } from './ui.js';
import { cardsByKind } from './state.js';
import { syncSettings } from './controls.js';
import { citedIn } from './references.js';
import { cardProse, hasProse, mergeProse } from './card-text.js';
import { wordsUsed } from './glossary.js';

/** The kind whose card is shown (or waits for its prose). */
let cardKind = null;

export function showCard(kind) {
  const c = cardsByKind[kind];
  if (!c) return;
  cardKind = kind;
  // The prose is not in the wasm module: it comes with pkg/cards.json (www/page/card-text.js).
  if (!hasProse(c)) {
    delete $('card').dataset.kind;
    loadCardProse();
    return;
  }
  $('card').dataset.kind = kind;
  const rows = [['source', c.source], ['assumptions', c.assumptions], ['privacy', c.privacy],
    ['utility', c.utility], ['what to watch', c.watch], ...(c.summary ? [['in full', c.summary]] : []),
    ['references', citedIn(c.source, c.privacy, c.utility, c.summary).join(' ')],
    ['code', `src/${c.module.replace('::', '/')}.rs`]];
  // The glossary's words the card uses, explained after it (www/page/glossary.js).
  const words = wordsUsed(c.name, c.assumptions, c.privacy, c.utility, c.watch, c.summary ?? '')
    .map((line) => ['meaning', line]);
  $('card-body').replaceChildren(...[...rows, ...words].flatMap(([k, v]) => [
    Object.assign(document.createElement('dt'), { textContent: k }),
    Object.assign(document.createElement('dd'), { textContent: v }),
  ]));
}

/**
 * Fetches the cards' prose once, then shows the waiting card and the settings' help lines; on a
 * failure the card says so, and the next card shown tries again.
 */
function loadCardProse() {
  if (loadCardProse.pending) return;
  loadCardProse.pending = true;
  cardProse().then((prose) => {
    mergeProse(cardsByKind, prose);
    if (cardKind !== null) showCard(cardKind);
    syncSettings();
  }, (e) => {
    $('card-body').replaceChildren(Object.assign(document.createElement('dd'), {
      textContent: `The card's text could not be loaded (${e?.message ?? e}): reload the page.`,
    }));
  }).finally(() => { loadCardProse.pending = false; });
}
