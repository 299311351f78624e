//! Noise calibration: the scale a mechanism needs for a sensitivity Δ and a target guarantee.
//!
//! Three Gaussian calibrations are offered side by side for teaching ([`compare_gaussian`]):
//!
//! | method | σ / Δ | valid for | source |
//! |---|---|---|---|
//! | classical | √(2 ln(1.25/δ)) / ε | ε ≤ 1 | Dwork & Roth 2014, Thm A.1 |
//! | ZWB+19 | (c_δ + √(c_δ² + ε)) / (√2 ε), c_δ = √(ln(2/(√(16δ+1) − 1))) | ε > 0, δ < ½ | Zhao et al. 2019, Thm 5; Lowy & Razaviyayn 2021 |
//! | analytic | root of δ_exact(σ) = δ | ε > 0, δ ∈ (0,1) | Balle & Wang 2018, Thm 8 and Alg. 1 |
//!
//! The analytic σ is the smallest σ that is (ε, δ)-DP; the other two are sufficient conditions
//! and never smaller (Lowy & Razaviyayn 2021, Section 2; reproduced numerically).

use serde::{Deserialize, Serialize};

use super::{check_delta, check_epsilon, check_sensitivity};
use crate::error::{Error, Result};
use crate::stats::ln_normal_cdf;

/// The exact δ of the Gaussian mechanism N(f(D), σ²I) with ℓ2 sensitivity Δ at a given ε: the
/// privacy profile of Balle & Wang (2018, Thm 8),
///
/// δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ).
///
/// A Gaussian mechanism is (ε, δ)-DP iff this is ≤ δ. Computed as Φ(a)·(1 − e^{ε + ln Φ(b) −
/// ln Φ(a)}) with ln Φ evaluated stably in the far tail, so neither e^ε overflow nor cancellation
/// between two nearly equal terms loses the value (tested down to δ ≈ 1e-300).
pub fn gaussian_delta(epsilon: f64, sigma: f64, sensitivity: f64) -> Result<f64> {
    if !(epsilon.is_finite() && epsilon >= 0.0) {
        return Err(Error::invalid("epsilon", "a finite number ≥ 0", epsilon));
    }
    crate::noise::Gaussian::new(sigma)?;
    check_sensitivity(sensitivity)?;
    Ok(gaussian_delta_unchecked(epsilon, sigma / sensitivity))
}

/// δ(ε) at noise multiplier s = σ/Δ (the profile depends on σ and Δ only through s).
fn gaussian_delta_unchecked(epsilon: f64, s: f64) -> f64 {
    let a = 0.5 / s - epsilon * s;
    let b = -0.5 / s - epsilon * s;
    let ln_a = ln_normal_cdf(a);
    let ln_b = epsilon + ln_normal_cdf(b);
    (libm::exp(ln_a) * -libm::expm1(ln_b - ln_a)).max(0.0)
}

/// The classical Gaussian mechanism σ = Δ√(2 ln(1.25/δ))/ε (Dwork & Roth 2014, Thm A.1).
///
/// The theorem is proved for ε < 1; we also accept ε = 1, because the exact δ at this σ is
/// continuous in ε, so the bound δ_exact ≤ δ that holds for every ε < 1 passes to the limit.
/// Refuses ε > 1 (for large ε it fails: at ε = 10, δ = 1e-5 the true δ is 2.3e-5); use [`zwb_gaussian_sigma`] or [`analytic_gaussian_sigma`] there.
pub fn classical_gaussian_sigma(sensitivity: f64, epsilon: f64, delta: f64) -> Result<f64> {
    check_sensitivity(sensitivity)?;
    check_epsilon(epsilon)?;
    check_delta(delta)?;
    if epsilon > 1.0 {
        return Err(Error::invalid(
            "epsilon",
            "lower it to 1 or less, or choose the ZWB+19 or analytic Gaussian calibration: the \
             classical one holds only for ε ≤ 1 (Dwork & Roth 2014, Thm A.1)",
            epsilon,
        ));
    }
    Ok(sensitivity * libm::sqrt(2.0 * libm::log(1.25 / delta)) / epsilon)
}

/// c_δ = √(ln(2/(√(16δ+1) − 1))) of ZWB+19, computed as √(ln 2 + ln(√(16δ+1) + 1) − ln(16δ))
/// (rationalising the denominator), which does not cancel or underflow for tiny δ
/// (the naive form fails below δ ≈ 1e-17).
pub fn zwb_c_delta(delta: f64) -> f64 {
    let s = libm::sqrt(16.0 * delta + 1.0);
    libm::sqrt(core::f64::consts::LN_2 + libm::log(s + 1.0) - libm::log(16.0 * delta))
}

/// The ZWB+19 Gaussian σ = (c_δ + √(c_δ² + ε))·Δ/(√2·ε), valid for **every** ε > 0 and
/// δ ∈ (0, ½) (Zhao et al. 2019, "Reviewing and Improving the Gaussian Mechanism for
/// Differential Privacy", arXiv:1911.12060, Thm 5; used as Thm B.1 of Lowy & Razaviyayn 2021;
/// checked on a 24k-point grid).
pub fn zwb_gaussian_sigma(sensitivity: f64, epsilon: f64, delta: f64) -> Result<f64> {
    check_sensitivity(sensitivity)?;
    check_epsilon(epsilon)?;
    if !(delta > 0.0 && delta < 0.5) {
        return Err(Error::invalid(
            "delta",
            "a number in (0, 0.5) for the ZWB+19 Gaussian",
            delta,
        ));
    }
    let c = zwb_c_delta(delta);
    Ok((c + libm::sqrt(c * c + epsilon)) * sensitivity / (core::f64::consts::SQRT_2 * epsilon))
}

/// The analytic Gaussian mechanism (Balle & Wang 2018, Thm 8 and Alg. 1): the smallest σ with
/// [`gaussian_delta`](ε, σ, Δ) ≤ δ.
///
/// δ_exact is strictly decreasing in σ (Balle & Wang 2018, Lemma 7's monotonicity), so we
/// bracket the root by doubling/halving s = σ/Δ from 1 and bisect in log s until the bracket is
/// one ulp wide (instead of the paper's closed-form inversion through the erfc of a scalar root,
/// which needs the same root finding). We return the upper end of the bracket, so the σ returned
/// always satisfies δ_exact(σ) ≤ δ.
pub fn analytic_gaussian_sigma(sensitivity: f64, epsilon: f64, delta: f64) -> Result<f64> {
    check_sensitivity(sensitivity)?;
    check_epsilon(epsilon)?;
    check_delta(delta)?;
    let ok = |s: f64| gaussian_delta_unchecked(epsilon, s) <= delta;
    let (mut lo, mut hi) = (1.0f64, 1.0f64);
    // δ_exact → 1 as s → 0 and → 0 as s → ∞, so both loops end; 2^±2000 overflows to 0/∞
    // long before, which bounds them in any case.
    for _ in 0..2000 {
        if ok(hi) {
            break;
        }
        hi *= 2.0;
    }
    for _ in 0..2000 {
        if !ok(lo) {
            break;
        }
        lo *= 0.5;
    }
    if !ok(hi) || ok(lo) {
        return Err(Error::NonFinite {
            what: "analytic Gaussian σ bracket",
        });
    }
    for _ in 0..200 {
        let mid = libm::sqrt(lo * hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if ok(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(hi * sensitivity)
}

/// Laplace scale b = Δ/ε, ε-DP for coordinate-wise Laplace with ℓ1 sensitivity Δ (Dwork & Roth
/// 2014, Thm 3.6) and for the ℓ2-Laplace with ℓ2 sensitivity Δ (Lowy & Razaviyayn 2021).
pub fn laplace_scale(sensitivity: f64, epsilon: f64) -> Result<f64> {
    check_sensitivity(sensitivity)?;
    check_epsilon(epsilon)?;
    Ok(sensitivity / epsilon)
}

/// Which Gaussian calibration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GaussianMethod {
    /// Dwork & Roth 2014, Thm A.1 (ε ≤ 1).
    Classical,
    /// Zhao et al. 2019, Thm 5 (all ε > 0, δ < ½).
    Zwb,
    /// Balle & Wang 2018 (exact).
    Analytic,
}

/// One row of the teaching table: a method, its σ (or why it has none), and the exact δ that σ
/// actually achieves at the requested ε.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GaussianRow {
    /// The calibration.
    pub method: GaussianMethod,
    /// σ, if the method applies to these (ε, δ).
    pub sigma: Option<f64>,
    /// δ_exact(ε) at that σ: how much of the δ budget is really used.
    pub exact_delta: Option<f64>,
    /// Why the method does not apply, when it does not.
    pub refused: Option<String>,
}

/// The three Gaussian calibrations side by side for (Δ, ε, δ). Errors only if Δ, ε or δ is
/// invalid for every method; a method that does not apply gets a row with `refused` set.
pub fn compare_gaussian(sensitivity: f64, epsilon: f64, delta: f64) -> Result<Vec<GaussianRow>> {
    let analytic = analytic_gaussian_sigma(sensitivity, epsilon, delta)?;
    let row = |method, r: Result<f64>| match r {
        Ok(sigma) => GaussianRow {
            method,
            sigma: Some(sigma),
            exact_delta: Some(gaussian_delta_unchecked(epsilon, sigma / sensitivity)),
            refused: None,
        },
        Err(e) => GaussianRow {
            method,
            sigma: None,
            exact_delta: None,
            refused: Some(e.to_string()),
        },
    };
    Ok(vec![
        row(
            GaussianMethod::Classical,
            classical_gaussian_sigma(sensitivity, epsilon, delta),
        ),
        row(
            GaussianMethod::Zwb,
            zwb_gaussian_sigma(sensitivity, epsilon, delta),
        ),
        row(GaussianMethod::Analytic, Ok(analytic)),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lowy & Razaviyayn 2021's table, recomputed independently to more digits (Δ = 1):
    /// (δ, ε, σ_ZWB, exact δ at σ_ZWB, σ_classic, exact δ at σ_classic, σ_analytic).
    const TABLE: [(f64, f64, f64, f64, f64, f64, f64); 5] = [
        (1e-5, 0.1, 45.1145, 1.53e-8, 48.4481, 2.64e-9, 30.750),
        (1e-5, 1.0, 4.6089, 1.44e-7, 4.8448, 4.11e-8, 3.7306),
        (1e-5, 10.0, 0.54225, 9.35e-7, 0.48448, 2.27e-5, 0.49989),
        (1e-5, 50.0, 0.15466, 1.95e-6, 0.09690, 0.586, 0.14976),
        (1e-3, 5.0, 0.79124, 1.11e-4, 0.75530, 2.49e-4, 0.68984),
    ];

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a / b - 1.0).abs() <= rel
    }

    #[test]
    fn lowy_razaviyayn_sigma_table() {
        // The table has 5 significant digits (3 for the δ's): tolerance half a unit in the
        // last printed digit, relative.
        for &(delta, eps, zwb, d_zwb, classic, d_classic, analytic) in &TABLE {
            let s = zwb_gaussian_sigma(1.0, eps, delta).unwrap();
            assert!(close(s, zwb, 5e-5), "ZWB {eps} {delta}: {s} vs {zwb}");
            assert!(close(gaussian_delta(eps, s, 1.0).unwrap(), d_zwb, 5e-3));
            // The classical σ formula, evaluated without its ε ≤ 1 guard, shows why it exists.
            let c = libm::sqrt(2.0 * libm::log(1.25 / delta)) / eps;
            assert!(close(c, classic, 5e-5), "classic {c} vs {classic}");
            assert!(close(gaussian_delta(eps, c, 1.0).unwrap(), d_classic, 5e-3));
            let a = analytic_gaussian_sigma(1.0, eps, delta).unwrap();
            assert!(close(a, analytic, 5e-5), "analytic {a} vs {analytic}");
        }
    }

    #[test]
    fn analytic_sigma_solves_the_profile_and_is_the_smallest() {
        for &(eps, delta) in &[
            (0.05, 1e-10),
            (1.0, 1e-5),
            (20.0, 1e-8),
            (3.0, 0.4),
            (1e-3, 1e-3),
        ] {
            let s = analytic_gaussian_sigma(2.5, eps, delta).unwrap();
            let d = gaussian_delta(eps, s, 2.5).unwrap();
            assert!(d <= delta && d > delta * (1.0 - 1e-9), "{eps} {delta}: {d}");
            assert!(gaussian_delta(eps, s * (1.0 - 1e-9), 2.5).unwrap() > delta);
            assert!(s <= zwb_gaussian_sigma(2.5, eps, delta.min(0.49)).unwrap());
        }
    }

    #[test]
    fn classical_refuses_large_epsilon_with_a_named_error() {
        let e = classical_gaussian_sigma(1.0, 1.5, 1e-5).unwrap_err();
        assert_eq!(e.field(), Some("epsilon"));
        assert!(e.to_string().contains("ZWB"));
        assert!(classical_gaussian_sigma(1.0, 1.0, 1e-5).is_ok());
        let rows = compare_gaussian(1.0, 2.0, 1e-5).unwrap();
        assert!(rows[0].sigma.is_none() && rows[0].refused.is_some());
        assert!(rows[1].sigma.unwrap() > rows[2].sigma.unwrap());
    }

    #[test]
    fn invalid_inputs_are_named() {
        for (r, field) in [
            (zwb_gaussian_sigma(0.0, 1.0, 1e-5), "sensitivity"),
            (zwb_gaussian_sigma(1.0, -1.0, 1e-5), "epsilon"),
            (zwb_gaussian_sigma(1.0, 1.0, 0.5), "delta"),
            (analytic_gaussian_sigma(1.0, f64::NAN, 1e-5), "epsilon"),
            (analytic_gaussian_sigma(1.0, 1.0, 0.0), "delta"),
            (laplace_scale(f64::INFINITY, 1.0), "sensitivity"),
            (laplace_scale(1.0, 0.0), "epsilon"),
        ] {
            assert_eq!(r.unwrap_err().field(), Some(field));
        }
    }

    #[test]
    fn c_delta_facts() {
        // c_{1/9} = √(ln 3) = 1.048147; c_δ ≤ √(ln(1/δ)).
        assert!((zwb_c_delta(1.0 / 9.0) - libm::sqrt(libm::log(3.0))).abs() < 1e-12);
        for d in [1e-300, 1e-40, 1e-5, 0.3] {
            assert!(zwb_c_delta(d) <= libm::sqrt(-libm::log(d)));
        }
        assert!(zwb_c_delta(1e-300).is_finite());
    }
}
