//! Labelled ticks of a log axis.
//!
//! plotters' own log axis starts its ticks at the first power of ten in range, so a range such as
//! [3·10⁻³, 5·10⁻²] is labelled only from 10⁻² up and the part of the curve below the first
//! decade has no number beside it. [`log_ticks`] labels every decade in range
//! and, where decades are few, the 2× and 5× multiples (then every integer multiple) around them,
//! below the first decade as above it.

/// At least this many labelled ticks where the range allows them: two decades alone leave a
/// reader guessing the scale between them.
const MIN_TICKS: usize = 3;

/// Mantissas added, in turn, while the ticks are fewer than [`MIN_TICKS`].
const MANTISSAS: [&[u32]; 2] = [&[2, 5], &[2, 3, 4, 5, 6, 7, 8, 9]];

/// The labelled ticks of a log axis over [lo, hi] (0 < lo < hi), increasing: every power of ten
/// in range; where those are fewer than three, also the multiples 2 × 10ᵏ and 5 × 10ᵏ in range,
/// and where still fewer, every integer multiple m × 10ᵏ (m = 2…9). A range narrower than that
/// allows (inside one step of those) gets evenly spaced ticks with a 1–2–5 step, so every range
/// gets at least two. Empty when the range is not a positive, finite, increasing interval.
///
/// Values are the nearest doubles to their decimal form (`"5e-3"` parsed), so a label formatted
/// from one reads back as the number meant.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite() && lo > 0.0 && hi > lo) {
        return Vec::new();
    }
    // Tolerant ends: a range computed as 10⁻² · 10 must still hold 10⁻¹.
    let within = |v: f64| v >= lo * (1.0 - 1e-12) && v <= hi * (1.0 + 1e-12);
    let (first, last) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let multiples = |mantissas: &[u32]| -> Vec<f64> {
        (first..=last)
            .flat_map(|k| mantissas.iter().map(move |m| decimal(*m, k)))
            .filter(|v| within(*v))
            .collect()
    };
    let mut ticks = multiples(&[1]);
    for mantissas in MANTISSAS {
        if ticks.len() >= MIN_TICKS {
            break;
        }
        ticks.extend(multiples(mantissas));
        ticks.sort_by(f64::total_cmp);
        ticks.dedup();
    }
    if ticks.len() >= 2 {
        return ticks;
    }
    linear_ticks(lo, hi)
}

/// m × 10ᵏ as the double nearest to its decimal form.
fn decimal(m: u32, k: i32) -> f64 {
    format!("{m}e{k}").parse().unwrap_or(f64::NAN)
}

/// Evenly spaced ticks in [lo, hi] with the largest step of 1, 2 or 5 × 10ᵏ that gives at least
/// two of them (a step ≤ (hi − lo)/2 always does); the ends themselves for a span too small to
/// write as such a step.
fn linear_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let top = ((hi - lo) / 2.0).log10().floor() as i32;
    for k in (top - 2..=top).rev() {
        for m in [5, 2, 1] {
            let step = decimal(m, k);
            let start = (lo / step).ceil() as i64;
            let end = (hi / step).floor() as i64;
            if end - start >= 1 {
                // Each tick rounded to its decimal form, as the decades are.
                return (start..=end)
                    .map(|i| {
                        format!("{:.12e}", i as f64 * step)
                            .parse()
                            .unwrap_or(f64::NAN)
                    })
                    .collect();
            }
        }
    }
    vec![lo, hi]
}

/// A tick of a log axis as text: the mantissa with at most three significant digits and no
/// trailing zeros, then the exponent (`1e-2`, `5e-3`, `2.5e-3`).
pub fn log_tick_label(v: f64) -> String {
    let s = format!("{v:.2e}");
    match s.split_once('e') {
        Some((mantissa, exponent)) if mantissa.contains('.') => {
            let mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
            format!("{mantissa}e{exponent}")
        }
        _ => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(lo: f64, hi: f64) -> Vec<String> {
        log_ticks(lo, hi).into_iter().map(log_tick_label).collect()
    }

    #[test]
    fn a_curve_below_the_first_decade_gets_a_labelled_tick_there() {
        // The excess plot at n = 10⁵: the curve goes from about 3e-2 down to
        // 3e-3; plotters labelled only 1e-2 and 2e-2.
        let ticks = log_ticks(2.5e-3, 4e-2);
        assert!(ticks.iter().any(|&t| t < 1e-2), "{ticks:?}");
        assert_eq!(labels(2.5e-3, 4e-2), ["5e-3", "1e-2", "2e-2"]);
    }

    #[test]
    fn every_decade_in_range_is_labelled() {
        let ticks = log_ticks(3e-7, 4e2);
        let decades: Vec<f64> = (-6..=2).map(|k| decimal(1, k)).collect();
        assert_eq!(ticks, decades);
        // Exact ends count: a range built as 10⁻² · 10 holds 10⁻¹.
        assert_eq!(labels(1e-2, 1e-2 * 10.0), ["1e-2", "2e-2", "5e-2", "1e-1"]);
    }

    #[test]
    fn a_range_of_about_one_decade_gets_at_least_three_ticks() {
        for (lo, hi) in [
            (1.5, 15.0),
            (2e-3, 9e-3),
            (0.11, 0.99),
            (7.0, 70.0),
            (3e4, 3e5),
        ] {
            let ticks = log_ticks(lo, hi);
            assert!(ticks.len() >= 3, "[{lo}, {hi}]: {ticks:?}");
            assert!(ticks.iter().all(|&t| (lo..=hi).contains(&t)), "{ticks:?}");
            assert!(ticks.windows(2).all(|w| w[0] < w[1]), "{ticks:?}");
        }
        assert_eq!(
            labels(2e-3, 9e-3),
            [
                "2e-3", "3e-3", "4e-3", "5e-3", "6e-3", "7e-3", "8e-3", "9e-3"
            ]
        );
    }

    #[test]
    fn a_range_inside_one_step_gets_evenly_spaced_ticks() {
        let ticks = log_ticks(1.21e-2, 1.79e-2);
        assert!(ticks.len() >= 2, "{ticks:?}");
        assert_eq!(labels(1.21e-2, 1.79e-2), ["1.4e-2", "1.6e-2"]);
    }

    #[test]
    fn no_ticks_for_a_range_a_log_axis_cannot_have() {
        assert!(log_ticks(0.0, 1.0).is_empty());
        assert!(log_ticks(1.0, 1.0).is_empty());
        assert!(log_ticks(f64::NAN, 1.0).is_empty());
        assert!(log_ticks(1.0, f64::INFINITY).is_empty());
    }

    #[test]
    fn labels_are_short() {
        assert_eq!(log_tick_label(1e-2), "1e-2");
        assert_eq!(log_tick_label(5e-3), "5e-3");
        assert_eq!(log_tick_label(2.5e-3), "2.5e-3");
        assert_eq!(log_tick_label(1e5), "1e5");
    }
}
