//! The record gate: one total clip that every record passes on its way in —
//! generated datasets, CSV files, every game's record stream, the audits' pairs — mapping any
//! value to a finite record within the declared bound by a rule fixed before any data are seen.
//!
//! ## The rule
//! 1. **Entries.** NaN → 0; +∞ → `f64::MAX`, −∞ → −`f64::MAX` ([`finite_entry`]); finite entries,
//!    subnormals included, are kept.
//! 2. **ℓ2 ball of radius c** ([`clip_ball`], features): a vector with ‖x‖₂ ≤ c is kept bit for
//!    bit; one with a finite norm above c is scaled by c/‖x‖₂ (the clip as it always was, same
//!    bits); one whose norm exceeds `f64::MAX` (an infinite entry, or fifty entries of 1e308) is
//!    first divided by m = maxᵢ|xᵢ|, then scaled by c/‖x/m‖₂, so it keeps its direction instead
//!    of collapsing to 0·∞ = NaN or to the zero vector.
//! 3. **Interval [−c, c]** ([`clip_value`], labels and a matrix game's payoff entries): rule 1,
//!    then the clamp.
//!
//! A bound of +∞ declares no bound (the NOT PRIVATE no-clipping demonstrations): rule 1 alone
//! applies, so even those records are finite.
//!
//! The result is finite and, for a finite c, within c up to the rounding of one scaling (a
//! relative 10⁻¹⁵, as the clip always was). The gate runs once per record as it is generated or
//! loaded, never per iteration; on a finite record it costs one norm, as the clip did.
//!
//! **Privacy**: the rule depends on the declared bound alone, so a replaced record moves any
//! function of the gated records by at most what the bound allows, whatever the record held.
//! How many records it changed is computed from the data: a **non-private** diagnostic.

use crate::linalg::{norm2, scale};

/// Rule 1: NaN → 0, ±∞ → ±`f64::MAX`, anything finite unchanged.
#[inline]
pub fn finite_entry(v: f64) -> f64 {
    if v.is_finite() {
        v
    } else if v.is_nan() {
        0.0
    } else {
        f64::MAX.copysign(v)
    }
}

/// Rule 1 on every entry of `x`; returns how many entries it changed (**non-private**).
pub fn finite_entries(x: &mut [f64]) -> usize {
    let mut changed = 0;
    for v in x.iter_mut().filter(|v| !v.is_finite()) {
        *v = finite_entry(*v);
        changed += 1;
    }
    changed
}

/// Rules 1 and 3: `v` made finite, then clamped to [−bound, bound] (`bound` ≥ 0, +∞ for none).
#[inline]
pub fn clip_value(v: f64, bound: f64) -> f64 {
    debug_assert!(bound >= 0.0, "a declared bound is ≥ 0");
    finite_entry(v).clamp(-bound, bound)
}

/// Rules 1 and 2: `x` made finite and scaled into the ℓ2 ball of radius `bound` (> 0, +∞ for
/// none), keeping its direction. Returns whether `x` changed (**non-private**).
pub fn clip_ball(x: &mut [f64], bound: f64) -> bool {
    debug_assert!(bound > 0.0, "a declared bound is > 0");
    let norm = norm2(x);
    if norm.is_finite() {
        // Every entry finite and the norm representable: the clip as it always was, same bits.
        if norm > bound {
            scale(bound / norm, x);
            return true;
        }
        return false;
    }
    // A NaN or infinite entry, or a norm beyond f64::MAX: rule 1, then prescale by the largest
    // magnitude m so that ‖x/m‖, in [1, √d], is computed without overflow.
    let repaired = finite_entries(x) > 0;
    let m = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if m == 0.0 {
        return repaired; // only NaN entries (and zeros): now the zero vector
    }
    let unit_norm = x.iter().map(|v| (v / m) * (v / m)).sum::<f64>().sqrt();
    // ‖x‖ = m·‖x/m‖ (∞ when beyond f64::MAX): within a bound of +∞ only.
    if m * unit_norm <= bound {
        return repaired;
    }
    let k = bound / unit_norm;
    x.iter_mut().for_each(|v| *v = (*v / m) * k);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Within the bound up to the rounding of one scaling.
    fn within(x: &[f64], bound: f64) -> bool {
        x.iter().all(|v| v.is_finite()) && norm2(x) <= bound * (1.0 + 4.0 * f64::EPSILON)
    }

    /// cos∠(a, b), computed on a/maxᵢ|aᵢ| and b/maxᵢ|bᵢ| so that no norm overflows.
    fn cosine(a: &[f64], b: &[f64]) -> f64 {
        let unit = |v: &[f64]| {
            let m = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            let w: Vec<f64> = v.iter().map(|x| x / m).collect();
            let n = norm2(&w);
            w.into_iter().map(|x| x / n).collect::<Vec<_>>()
        };
        unit(a).iter().zip(unit(b)).map(|(x, y)| x * y).sum()
    }

    #[test]
    fn nan_entries_become_zero_and_the_rest_is_clipped() {
        let mut x = [f64::NAN, 3.0, 4.0];
        assert!(clip_ball(&mut x, 1.0));
        assert_eq!(x[0], 0.0);
        assert!(within(&x, 1.0));
        assert!((x[1] - 0.6).abs() < 1e-15 && (x[2] - 0.8).abs() < 1e-15);
        let mut all_nan = [f64::NAN; 4];
        assert!(clip_ball(&mut all_nan, 1.0));
        assert_eq!(all_nan, [0.0; 4]);
        assert_eq!(clip_value(f64::NAN, 2.0), 0.0);
    }

    #[test]
    fn infinite_entries_keep_their_sign_and_the_record_its_direction() {
        // Today's clip: ‖x‖ = ∞, c/‖x‖ = 0 and ∞·0 = NaN.
        let mut x = [f64::INFINITY, 1.0, f64::NEG_INFINITY];
        assert!(clip_ball(&mut x, 2.0));
        assert!(within(&x, 2.0), "{x:?}");
        let r = 2.0 / 2f64.sqrt();
        assert!(
            (x[0] - r).abs() < 1e-15 && (x[2] + r).abs() < 1e-15,
            "{x:?}"
        );
        assert!(x[1] >= 0.0 && x[1] < 1e-300);
        assert_eq!(clip_value(f64::INFINITY, 3.0), 3.0);
        assert_eq!(clip_value(f64::NEG_INFINITY, 3.0), -3.0);
        assert_eq!(finite_entry(f64::NEG_INFINITY), -f64::MAX);
    }

    #[test]
    fn a_row_whose_norm_overflows_keeps_its_direction() {
        // Fifty entries of 1e308: ‖x‖ ≈ 7·10³⁰⁸ > f64::MAX (clipped to the zero vector).
        let raw = [1e308; 50];
        let mut x = raw;
        assert!(clip_ball(&mut x, 1.0));
        assert!(within(&x, 1.0));
        assert!((norm2(&x) - 1.0).abs() < 1e-14, "{}", norm2(&x));
        assert!((cosine(&x, &raw) - 1.0).abs() < 1e-14);
        // Every entry overflowing, with mixed signs and sizes.
        let raw: Vec<f64> = (0..7)
            .map(|j| if j % 2 == 0 { 1.7e308 } else { -0.9e308 })
            .collect();
        let mut x = raw.clone();
        assert!(clip_ball(&mut x, 3.5));
        assert!(within(&x, 3.5) && (norm2(&x) - 3.5).abs() < 1e-14);
        assert!((cosine(&x, &raw) - 1.0).abs() < 1e-14);
    }

    #[test]
    fn subnormal_records_are_kept_bit_for_bit() {
        let tiny = f64::MIN_POSITIVE / 8.0;
        let mut x = [tiny, -tiny, 0.0];
        assert!(!clip_ball(&mut x, 1.0));
        assert_eq!(x, [tiny, -tiny, 0.0]);
        // Within a subnormal bound too: ‖x‖ is computed without underflow.
        let mut x = [tiny, tiny];
        assert!(clip_ball(&mut x, tiny));
        assert!(norm2(&x) <= tiny * (1.0 + 1e-15) && x[0] > 0.0);
        assert_eq!(clip_value(tiny, 1.0), tiny);
    }

    #[test]
    fn in_bound_records_are_kept_and_finite_ones_clipped_as_before() {
        let mut x = [0.3, -0.4];
        assert!(!clip_ball(&mut x, 0.5));
        assert_eq!(x, [0.3, -0.4]);
        // A finite record above the bound: exactly the old c/‖x‖ scaling.
        let raw = [3.0, -4.0, 12.0];
        let mut x = raw;
        assert!(clip_ball(&mut x, 2.0));
        let k = 2.0 / norm2(&raw);
        assert_eq!(x, raw.map(|v| v * k));
    }

    #[test]
    fn the_gate_is_idempotent_on_what_it_lets_through() {
        for raw in [
            vec![f64::INFINITY, f64::NAN, -2.0],
            vec![1e308; 50],
            vec![0.1, 0.2],
            vec![f64::NEG_INFINITY],
        ] {
            let mut once = raw.clone();
            clip_ball(&mut once, 1.0);
            let mut twice = once.clone();
            if norm2(&once) <= 1.0 {
                assert!(!clip_ball(&mut twice, 1.0));
                assert_eq!(once, twice);
            }
            assert!(within(&once, 1.0), "{raw:?} → {once:?}");
        }
    }

    #[test]
    fn an_infinite_bound_only_makes_entries_finite() {
        let mut x = [f64::INFINITY, f64::NAN, 5.0];
        assert!(clip_ball(&mut x, f64::INFINITY));
        assert_eq!(x, [f64::MAX, 0.0, 5.0]);
        let mut x = [1e308; 3];
        assert!(!clip_ball(&mut x, f64::INFINITY));
        assert_eq!(x, [1e308; 3]);
        assert_eq!(clip_value(f64::NEG_INFINITY, f64::INFINITY), -f64::MAX);
    }
}
