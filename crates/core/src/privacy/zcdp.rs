//! Zero-concentrated DP (Bun & Steinke 2016) for composed Gaussian mechanisms: the exact closed
//! form, recommended for full-batch methods such as Wang, Ye & Xu 2017's DP-GD.

#[cfg(test)]
use crate::error::Error;
use crate::error::Result;

/// ρ-zCDP ⇒ (ρ + 2√(ρ ln(1/δ)), δ)-DP (Bun & Steinke 2016, Prop. 1.3).
///
/// Kept (rather than the tighter [`super::Zcdp::epsilon`]) because it inverts in closed form,
/// which is what noisy GD's calibration needs; the price is a slightly larger σ.
pub fn epsilon_for_rho(rho: f64, delta: f64) -> f64 {
    rho + 2.0 * (rho * -libm::log(delta)).sqrt()
}

/// The largest ρ whose conversion gives at most ε at δ: ρ = (√(ln(1/δ) + ε) − √(ln(1/δ)))², the
/// exact inverse of [`epsilon_for_rho`]. Written as ε²/(√(L+ε) + √L)² to avoid cancellation.
pub fn rho_for_epsilon(epsilon: f64, delta: f64) -> Result<f64> {
    check_epsilon_delta(epsilon, delta)?;
    let l = -libm::log(delta);
    let denom = (l + epsilon).sqrt() + l.sqrt();
    Ok(epsilon * epsilon / (denom * denom))
}

/// Per-step σ of T Gaussian releases, each of ℓ2-sensitivity Δ, whose composition is ρ-zCDP:
/// each step is Δ²/(2σ²)-zCDP and zCDP adds up, so σ = Δ √(T / (2ρ)).
pub fn gaussian_sigma(sensitivity: f64, steps: usize, rho: f64) -> f64 {
    sensitivity * (steps as f64 / (2.0 * rho)).sqrt()
}

pub(crate) fn check_epsilon_delta(epsilon: f64, delta: f64) -> Result<()> {
    super::check_epsilon(epsilon)?;
    super::check_delta(delta)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// σ of DP-GD, replace-one (Δ = 2G/n).
    fn dp_gd_sigma(g: f64, n: f64, steps: usize, epsilon: f64, delta: f64) -> f64 {
        gaussian_sigma(2.0 * g / n, steps, rho_for_epsilon(epsilon, delta).unwrap())
    }

    #[test]
    fn inverse_round_trips() {
        for &(e, d) in &[(0.1, 1e-5), (1.0, 1e-5), (8.0, 1e-3), (50.0, 1e-9)] {
            let rho = rho_for_epsilon(e, d).unwrap();
            assert!((epsilon_for_rho(rho, d) / e - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn dp_gd_sigma_test_vectors() {
        // Checked numerically: n = 1e4, T = 100, ε = 1, δ = 1e-5, G = 1 gives σ = 0.009801 via zCDP
        // (0.00983 would be conservative, not exact).
        let s = dp_gd_sigma(1.0, 1e4, 100, 1.0, 1e-5);
        assert!((s - 0.009801).abs() < 5e-7, "{s}");
        // Paper's DP-GD row (n = 2e5, T = 1500, δ = 1e-3, replace-one): 0.00725 / 0.00293 / 0.00149.
        for (eps, expected) in [(0.2, 0.00725), (0.5, 0.00293), (1.0, 0.00149)] {
            let s = dp_gd_sigma(1.0, 2e5, 1500, eps, 1e-3);
            assert!(
                (s / expected - 1.0).abs() < 0.005,
                "ε={eps}: {s} vs {expected}"
            );
        }
    }

    #[test]
    fn implied_constant_c_is_about_eight_for_small_epsilon() {
        // Wang, Ye & Xu 2017: σ² ≈ c G² T ln(1/δ)/(n² ε²) with c → 8 as ε → 0 (8.03 at 0.1).
        let (n, t, d) = (1e4, 100, 1e-5);
        let s = dp_gd_sigma(1.0, n, t, 0.1, d);
        let c = s * s * n * n * 0.01 / (t as f64 * -libm::log(d));
        assert!((c - 8.03).abs() < 0.01, "c = {c}");
    }

    #[test]
    fn rejects_bad_epsilon_and_delta() {
        assert!(matches!(
            rho_for_epsilon(0.0, 1e-5),
            Err(Error::InvalidParameter { field, .. }) if field == "epsilon"
        ));
        assert!(matches!(
            rho_for_epsilon(1.0, 1.0),
            Err(Error::InvalidParameter { field, .. }) if field == "delta"
        ));
        assert!(rho_for_epsilon(f64::NAN, 1e-5).is_err());
    }
}
