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
 * The run history as CSV, one row per iterate of every lane (algorithm × repeat). Every row but
 * the releases is a non-private diagnostic; the `private` column marks each lane's release row (1),
 * the only private outputs. `a`, `b` are the iterate in the parameter view's plane.
 */
export function runCsv(run) {
  const header = 'algorithm,repeat,step,grad_evals,loss,excess,a,b,noise_norm,eps_spent,private';
  const rows = [];
  for (const { a, r, lane } of run.allLanes()) {
    const kind = run.info?.previews?.[a]?.kind ?? a;
    lane.gradEvals.forEach((g, i) => {
      const isRelease = lane.release !== null && i === lane.gradEvals.length - 1;
      rows.push([kind, r, i, g, lane.loss[i], lane.excess[i], lane.path[2 * i], lane.path[2 * i + 1],
        lane.noiseNorm[i], lane.epsSpent[i], isRelease ? 1 : 0]
        .map((v) => (typeof v === 'number' && !Number.isFinite(v) ? '' : String(v)))
        .join(','));
    });
  }
  return [header, ...rows].join('\n') + '\n';
}

/** The config, the guarantees and the releases, as one JSON document. */
export function runJson(config, run) {
  const releases = [...run.allLanes()].filter(({ lane }) => lane.release).map(({ a, r, lane }) => ({
    algorithm: run.info.previews[a].kind, repeat: r, ...lane.release,
  }));
  return JSON.stringify({
    config,
    guarantees: run.info?.previews?.map((p) => ({ algorithm: p.kind, ...p.guarantee })) ?? [],
    releases,
    note: 'Only each release\'s w is private; everything else was computed from the raw data.',
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
