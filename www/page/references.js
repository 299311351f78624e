// The references list at the bottom of the page (index.html, #references) is the one place a
// paper's full entry (authors, title, venue or arXiv id) is written; a card names its papers the
// short way ("Lowy & Razaviyayn 2021"), and `citedIn` finds their entries by the `data-cite`
// forms each entry lists, so the card can show them in full.

/** The full entries of the references list that `texts` cite, in the list's order. */
export function citedIn(...texts) {
  const text = texts.join(' ');
  return [...document.querySelectorAll('#references li[data-cite]')]
    .filter((li) => li.dataset.cite.split('|').some((form) => text.includes(form)))
    .map((li) => li.textContent.trim());
}
