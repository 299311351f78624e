// Numbers in the page's words: the readouts, the errors and the CSV preview share these.

export const fmt = (v, digits = 3) => (v === null || v === undefined ? '–' : String(Number(Number(v).toPrecision(digits))));
export const sci = (v) => (v === null || v === undefined ? '–' : Number(v).toExponential(2));
/**
 * Gradient evaluations in full passes: a whole number when it is one up to rounding (a phased
 * run's passes over chunks of n̄ records add up to 3.000000000000001), else four digits.
 */
export const passes = (v) => {
  const whole = Math.round(v);
  return Math.abs(v - whole) <= 1e-9 * Math.max(1, Math.abs(v)) ? String(whole) : fmt(v, 4);
};

/** `text` with its first letter capitalised (Rust's caveats start lower-case). */
export const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);
