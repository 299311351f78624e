use super::GlmLoss;
use super::math::{exp_lanes, ln_1p_unit_lanes};

/// Logistic loss φ(t, y) = ln(1 + exp(−y t)) for labels y ∈ {−1, +1}.
///
/// Constants (Wang, Ye & Xu 2017): G = R_x (|φ'| < 1), β = R_x²/4 (φ'' ≤ 1/4); convex, not strongly
/// convex. Evaluated in the stable form so that large margins neither overflow nor lose digits.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Logistic;

impl GlmLoss for Logistic {
    fn name(&self) -> &'static str {
        "logistic"
    }

    fn value(&self, t: f64, y: f64) -> f64 {
        self.value_and_derivative(t, y).0
    }

    fn derivative(&self, t: f64, y: f64) -> f64 {
        self.value_and_derivative(t, y).1
    }

    #[inline]
    fn value_and_derivative(&self, t: f64, y: f64) -> (f64, f64) {
        let ([v], [g]) = lanes([t], [y]);
        (v, g)
    }

    #[inline]
    fn value_and_derivative4(&self, t: [f64; 4], y: [f64; 4]) -> ([f64; 4], [f64; 4]) {
        lanes(t, y)
    }

    fn lipschitz(&self, feature_bound: f64, _radius: f64) -> f64 {
        feature_bound
    }

    fn smoothness(&self, feature_bound: f64) -> f64 {
        feature_bound * feature_bound / 4.0
    }
}

/// (φ, φ') lane by lane. One exp and one ln(1 + ·) serve both, with no data-dependent branch:
/// m = −y·t, e = exp(−|m|) ∈ (0, 1], φ = max(m, 0) + ln(1 + e) (no overflow for any m), and
/// φ' = −y·σ(m) with σ(m) = q = 1/(1 + e) for m ≥ 0 and e·q otherwise (a select, not a jump: the
/// sign of the margin is random, and mispredicted branches cost more than the arithmetic).
/// [`super::math`] gives the same bits on every target and for every lane count.
#[inline(always)]
fn lanes<const N: usize>(t: [f64; N], y: [f64; N]) -> ([f64; N], [f64; N]) {
    let mut m = [0.0; N];
    for i in 0..N {
        m[i] = -y[i] * t[i];
    }
    let e = exp_lanes(m.map(|v| -v.abs()));
    let ln = ln_1p_unit_lanes(e);
    // Scalar code in a loop over the lanes vectorises at full width (see `exp_lanes`).
    let (mut value, mut grad) = ([0.0; N], [0.0; N]);
    for i in 0..N {
        // max(m, 0) as a compare and select, not `f64::max`: wasm has no f64x2 instruction with
        // Rust's NaN-ignoring max, so on wasm32 that became four calls to libm's `fmax` per four
        // samples, each lane moved out of its SIMD register and back; a select is one
        // f64x2 compare and bitselect. Same bits: the two differ only at m = −0 (ln 2 is then
        // added, which loses the sign of the zero) and at NaN (ln is then NaN too).
        let positive = if m[i] > 0.0 { m[i] } else { 0.0 };
        value[i] = positive + ln[i];
        let q = 1.0 / (1.0 + e[i]);
        grad[i] = -y[i] * if m[i] >= 0.0 { q } else { e[i] * q };
    }
    (value, grad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derivative_matches_central_differences() {
        let loss = Logistic;
        for &y in &[-1.0, 1.0] {
            // value, derivative and value_and_derivative share their roundings exactly.
            for &t in &[-30.0, -3.0, -0.2, 0.0, 0.7, 5.0, 40.0] {
                let h = 1e-6;
                let fd = (loss.value(t + h, y) - loss.value(t - h, y)) / (2.0 * h);
                let (v, g) = loss.value_and_derivative(t, y);
                assert!((g - fd).abs() < 1e-8, "t={t} y={y}: {g} vs {fd}");
                assert_eq!(g.to_bits(), loss.derivative(t, y).to_bits());
                assert_eq!(v.to_bits(), loss.value(t, y).to_bits());
                // Against the libm formulas: a few ulps at most.
                let (vl, gl) = libm_reference(t, y);
                assert!(
                    (v - vl).abs() <= 4.0 * f64::EPSILON * vl.abs(),
                    "{v} vs {vl}"
                );
                assert!(
                    (g - gl).abs() <= 4.0 * f64::EPSILON * gl.abs(),
                    "{g} vs {gl}"
                );
            }
        }
    }

    /// The loss and its derivative through libm, as the module computed them before.
    fn libm_reference(t: f64, y: f64) -> (f64, f64) {
        let m = -y * t;
        let e = libm::exp(-m.abs());
        let s = if m >= 0.0 {
            1.0 / (1.0 + e)
        } else {
            e / (1.0 + e)
        };
        (m.max(0.0) + libm::log1p(e), -y * s)
    }

    #[test]
    fn four_lanes_give_the_bits_of_one() {
        let t = [-800.0, -0.3, 0.0, 37.5];
        let y = [1.0, -1.0, 1.0, -1.0];
        let (v, g) = Logistic.value_and_derivative4(t, y);
        for i in 0..4 {
            let (vi, gi) = Logistic.value_and_derivative(t[i], y[i]);
            assert_eq!(
                (v[i].to_bits(), g[i].to_bits()),
                (vi.to_bits(), gi.to_bits())
            );
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
