// The algorithm cards' prose: the paper, assumptions, privacy, utility, what to watch, the
// module's own paragraph and each setting's help line. It is authored in Rust beside each
// algorithm (crates/algorithms/src/algo/*, read by the native tests) but left out of the wasm module, which every
// visitor downloads (docs/benchmarks.md, "Keeping the wasm small"): the native binary writes it at build
// time as pkg/cards.json (`dp-playground cards`, build_pkg in scripts/setup.sh). The module's
// cards() keeps what the menu and the settings panel are built from (names, labels, needs), so
// the first plot never waits for this file: it is fetched when a card is first shown.

/** The fields of a card that come from pkg/cards.json rather than the module. */
const PROSE = ['source', 'assumptions', 'privacy', 'utility', 'watch', 'summary'];

let loading = null;

/**
 * pkg/cards.json's list of cards, fetched on the first call; later calls share the answer (a
 * failed fetch is tried again on the next call).
 */
export function cardProse() {
  loading ??= fetch(new URL('../pkg/cards.json', import.meta.url))
    .then((r) => {
      if (!r.ok) throw new Error(`pkg/cards.json: HTTP ${r.status}`);
      return r.json();
    })
    .then((json) => json.cards)
    .catch((e) => {
      loading = null;
      throw e;
    });
  return loading;
}

/** Whether `card` (one of the module's cards) has its prose merged in. */
export const hasProse = (card) => card.source !== undefined;

/**
 * Merges `prose` (pkg/cards.json's list) into `cardsByKind` (the module's cards by kind), in
 * place: the card's text by kind, each setting's help by its key.
 */
export function mergeProse(cardsByKind, prose) {
  for (const p of prose) {
    const card = cardsByKind[p.kind];
    if (!card) continue;
    for (const field of PROSE) card[field] = p[field];
    for (const { key, help } of p.settings) {
      const use = card.settings.find((s) => s.key === key);
      if (use) use.help = help;
    }
  }
}
