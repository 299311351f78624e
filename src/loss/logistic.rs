use super::GlmLoss;

/// Logistic loss φ(t, y) = ln(1 + exp(−y t)) for labels y ∈ {−1, +1}.
///
/// Constants (digest 002 §7.1): G = R_x (|φ'| < 1), β = R_x²/4 (φ'' ≤ 1/4); convex, not strongly
/// convex. Evaluated in the stable form so that large margins neither overflow nor lose digits.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Logistic;

impl GlmLoss for Logistic {
    fn name(&self) -> &'static str {
        "logistic"
    }

    fn value(&self, t: f64, y: f64) -> f64 {
        softplus(-y * t)
    }

    fn derivative(&self, t: f64, y: f64) -> f64 {
        -y * sigmoid(-y * t)
    }

    fn value_and_derivative(&self, t: f64, y: f64) -> (f64, f64) {
        let m = -y * t;
        // One exp serves both: e = exp(−|m|) ∈ (0, 1].
        let e = libm::exp(-m.abs());
        let value = m.max(0.0) + libm::log1p(e);
        let s = if m >= 0.0 {
            1.0 / (1.0 + e)
        } else {
            e / (1.0 + e)
        };
        (value, -y * s)
    }

    fn lipschitz(&self, feature_bound: f64, _radius: f64) -> f64 {
        feature_bound
    }

    fn smoothness(&self, feature_bound: f64) -> f64 {
        feature_bound * feature_bound / 4.0
    }
}

/// ln(1 + eᵐ) without overflow.
fn softplus(m: f64) -> f64 {
    m.max(0.0) + libm::log1p(libm::exp(-m.abs()))
}

/// 1/(1 + e⁻ᵐ) without overflow.
fn sigmoid(m: f64) -> f64 {
    if m >= 0.0 {
        1.0 / (1.0 + libm::exp(-m))
    } else {
        let e = libm::exp(m);
        e / (1.0 + e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derivative_matches_central_differences() {
        let loss = Logistic;
        for &y in &[-1.0, 1.0] {
            for &t in &[-30.0, -3.0, -0.2, 0.0, 0.7, 5.0, 40.0] {
                let h = 1e-6;
                let fd = (loss.value(t + h, y) - loss.value(t - h, y)) / (2.0 * h);
                let (v, g) = loss.value_and_derivative(t, y);
                assert!((g - fd).abs() < 1e-8, "t={t} y={y}: {g} vs {fd}");
                assert!((g - loss.derivative(t, y)).abs() < 1e-15);
                assert!((v - loss.value(t, y)).abs() < 1e-15);
            }
        }
    }

    #[test]
    fn stable_at_extreme_margins() {
        let loss = Logistic;
        assert_eq!(loss.value(1000.0, 1.0), 0.0);
        assert_eq!(loss.value(-1000.0, 1.0), 1000.0);
        assert!((loss.value(0.0, 1.0) - std::f64::consts::LN_2).abs() < 1e-15);
        assert_eq!(loss.derivative(-1000.0, 1.0), -1.0);
    }
}
