// Getting things out of the page: the run as JSON (its private part and its diagnostics, kept
// apart), the diagnostics as CSV, a plot as PNG, the link. Everything is built from what the page
// already holds; nothing is sent anywhere.

import { privatePart } from './pkg/dp_playground.js';

/** Offers `blob` as a download named `name`. */
export function download(name, blob) {
  const url = URL.createObjectURL(blob);
  const a = Object.assign(document.createElement('a'), { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** The file names say which part is which, so a file that travels alone still says it. */
export const DIAGNOSTICS_CSV = 'dp-playground-diagnostics-NOT-PRIVATE.csv';
export const RUN_JSON = 'dp-playground-run.json';

const DIAGNOSTICS_NOTE = 'NOT PRIVATE. Diagnostics computed from the raw data and the noise: '
  + 'losses, excess risks, the reference optimum, plane coordinates (the plane goes through w*), '
  + 'named diagnostics (a certificate …), clip counts and, in the diagnostics CSV, every iterate and every noise norm. '
  + 'With the path, the noise norms tell neighbouring datasets apart. No guarantee covers any of '
  + 'this; only the `private` part is covered by its guarantee.';

/**
 * The diagnostics as CSV, one row per iterate of every lane (algorithm × repeat). NOT PRIVATE:
 * every column is computed from the raw data and the noise (noise_norm with the path a, b names
 * the dataset). `release_row` flags each lane's release row (1); the released point itself, with
 * its guarantee, is in the run JSON's private part.
 */
export function runCsv(run) {
  const header = 'algorithm,repeat,step,grad_evals,loss,excess,a,b,noise_norm,eps_spent,release_row';
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

/**
 * The run as one JSON document in two parts that cannot be mistaken for each other: `private`
 * (made by Rust's `privatePart`, the one definition of what is private: the released points,
 * their ledgers, the settings and the guarantee of all releases together) and `diagnostics`
 * (everything else, NOT PRIVATE). `config` is the page's config, used until the run has reported
 * the config it ran.
 */
export function runJson(config, run) {
  const lanes = [...run.allLanes()].filter(({ lane }) => lane.release);
  // A game releases both players: y beside x (w).
  const released = lanes.map(({ a, r, lane }) => ({
    algorithm: a, repeat: r, w: lane.release.w, ...(lane.release.y ? { y: lane.release.y } : {}), ledger: lane.release.ledger,
  }));
  const ran = run.info?.config ?? JSON.stringify(config);
  const kind = (a) => run.info?.previews?.[a]?.kind ?? a;
  return JSON.stringify({
    private: privatePart(ran, released),
    diagnostics: {
      note: DIAGNOSTICS_NOTE,
      reference: run.info?.reference ?? null,
      clipped: run.info?.clipped ?? null,
      releases: lanes.map(({ a, r, lane }) => ({
        algorithm: kind(a),
        repeat: r,
        plane: lane.release.plane,
        loss: lane.release.loss,
        excess: lane.release.excess,
        population: lane.release.population,
        // The run's named diagnostics (a certificate's bound, threshold, met …).
        diagnostics: lane.diagnostics,
        // What happened on these data (a fallback, an abort); the private ledger leaves it out.
        events: lane.release.ledger.events ?? [],
      })),
      per_step: `every iterate and noise norm: the diagnostics CSV (${DIAGNOSTICS_CSV})`,
    },
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
