// Getting things out of the page: the run as CSV, the config as JSON, a plot as PNG, the link.
// Everything is built from what the page already holds; nothing is sent anywhere.

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
 * The run history as CSV, one row per iterate. Every row but the last is a non-private
 * diagnostic; the `private` column marks the release row (1), which is the only private output.
 */
export function runCsv(run) {
  const header = 'step,grad_evals,loss,excess,w1,w2,noise_norm,eps_spent,private';
  const rows = run.gradEvals.map((g, i) => {
    const isRelease = run.release !== null && i === run.gradEvals.length - 1;
    return [i, g, run.loss[i], run.excess[i], run.path[2 * i], run.path[2 * i + 1],
      run.noiseNorm[i], run.epsSpent[i], isRelease ? 1 : 0]
      .map((v) => (typeof v === 'number' && !Number.isFinite(v) ? '' : String(v)))
      .join(',');
  });
  return [header, ...rows].join('\n') + '\n';
}

/** The config, the guarantee and (when released) the release, as one JSON document. */
export function runJson(config, run) {
  return JSON.stringify({
    config,
    guarantee: run.info?.guarantee ?? null,
    release: run.release ?? null,
    note: 'Only release.w is private; everything else was computed from the raw data.',
  }, null, 2);
}

/** Copies `text` to the clipboard; resolves false where the browser refuses. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
