// Getting things out of the page: a file to download, the link to the clipboard. Nothing is sent
// anywhere.

/** Offers `blob` as a download named `name`. */
export function download(name, blob) {
  const url = URL.createObjectURL(blob);
  const a = Object.assign(document.createElement('a'), { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * The file names say which part is which, so a file that travels alone still says it. The files
 * themselves are made in Rust (src/session/export.rs, through the worker's session), the one
 * implementation the terminal binary `dp-playground run` shares: the run JSON (a `private` part
 * and NOT private `diagnostics`) and the per-step diagnostics CSV (NOT private).
 */
export const DIAGNOSTICS_CSV = 'dp-playground-diagnostics-NOT-PRIVATE.csv';
export const RUN_JSON = 'dp-playground-run.json';

/** Copies `text` to the clipboard; resolves false where the browser refuses. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
