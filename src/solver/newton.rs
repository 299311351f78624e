//! The pieces of a Newton solve for the ridge-regularised logistic objective: the Hessian of the
//! data term in one pass, and the Newton direction by a Cholesky factorisation (nalgebra).
//!
//! Why: objective perturbation (`crate::algo::objective_perturbation`) must solve its perturbed
//! problem to a gradient norm γ of order 1e-9 at a tiny ridge (diffprivlib's default C = 1 is
//! Λ = 1/n in our mean form), where first-order methods need thousands of passes (κ = β/μ ≈ 2.5·10⁴
//! at n = 10⁵). At small d the d × d Hessian costs one pass and a handful of Newton steps reach γ
//! (`cargo bench --bench logreg`).
//!
//! Not private and not privacy-relevant: these only choose the solver's next point. What the
//! release needs is the certificate ‖∇J_b(w̃)‖ + rounding ≤ γ, which the caller checks on the
//! gradient exactly as for any other solver.
//!
//! Bits: plain IEEE `+ − × ÷ √` in a fixed order (the sample weights through
//! [`crate::loss::math::exp`], the rank-one updates through [`crate::linalg::axpy4`], whose AVX2
//! form gives the portable bits), so native and wasm runs give the same iterates.

use nalgebra::{DMatrix, DVector};

use crate::linalg::{Kernels, Portable, axpy};
use crate::loss::math::exp;

/// ℓ″ of the logistic loss at margin t (labels ±1): σ(m)(1 − σ(m)) = e/(1 + e)² with
/// e = exp(−|m|), m = −y·t — in (0, 1/4], finite for every finite t, 0 only where e underflows.
#[inline]
pub fn logistic_curvature(t: f64, y: f64) -> f64 {
    let e = exp(-(y * t).abs());
    let s = 1.0 + e;
    e / (s * s)
}

/// Writes the Hessian of the logistic data term (1/n) Σᵢ ℓ(yᵢ⟨w, xᵢ⟩) at `w` into `hessian`
/// (d × d, row-major, both triangles) for the samples `x` (n × d, row after row) with labels `y`,
/// dividing by `over` (the declared n). One pass: per sample one dot product, one curvature, and
/// a rank-one update of the lower triangle, four samples per sweep (half the work of the full
/// matrix: writing whole rows instead was measured 2× slower at d = 20).
pub fn logistic_hessian(x: &[f64], y: &[f64], w: &[f64], over: usize, hessian: &mut [f64]) {
    let d = w.len();
    assert_eq!(hessian.len(), d * d, "Hessian buffer of d × d");
    hessian.fill(0.0);
    if d == 0 {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if let Some(avx2) = crate::linalg::Avx2::detect() {
        // SAFETY: `detect` found AVX2 on this CPU.
        unsafe { hessian_avx2(x, y, w, hessian, avx2) };
        return finish(hessian, d, over);
    }
    hessian_with(x, y, w, hessian, Portable);
    finish(hessian, d, over);
}

/// Mirrors the lower triangle and divides by n.
fn finish(hessian: &mut [f64], d: usize, over: usize) {
    let n = over.max(1) as f64;
    for j in 0..d {
        for k in 0..=j {
            let v = hessian[j * d + k] / n;
            hessian[j * d + k] = v;
            hessian[k * d + j] = v;
        }
    }
}

/// [`hessian_with`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn hessian_avx2(x: &[f64], y: &[f64], w: &[f64], h: &mut [f64], k: crate::linalg::Avx2) {
    hessian_with(x, y, w, h, k)
}

/// The unnormalised lower triangle Σᵢ ℓ″ᵢ·xᵢxᵢᵀ: row j gets Σᵢ (ℓ″ᵢ xᵢⱼ)·xᵢ[..=j], four samples
/// per sweep with the bits of one at a time.
#[inline(always)]
fn hessian_with<K: Kernels>(x: &[f64], y: &[f64], w: &[f64], h: &mut [f64], kernels: K) {
    let d = w.len();
    let mut four = [(&[][..], 0.0); 4];
    let mut filled = 0;
    for (xi, &yi) in x.chunks_exact(d).zip(y) {
        four[filled] = (xi, logistic_curvature(kernels.dot(w, xi), yi));
        filled += 1;
        if filled == 4 {
            let xs = four.map(|(xi, _)| xi);
            for j in 0..d {
                let c = four.map(|(xi, s)| s * xi[j]);
                kernels.axpy4(c, xs.map(|xi| &xi[..=j]), &mut h[j * d..j * d + j + 1]);
            }
            filled = 0;
        }
    }
    for &(xi, s) in &four[..filled] {
        for j in 0..d {
            axpy(s * xi[j], &xi[..=j], &mut h[j * d..j * d + j + 1]);
        }
    }
}

/// The Newton direction p = −(H + μI)⁻¹g for a symmetric positive semi-definite `hessian`
/// (d × d, row-major) and μ > 0, into `direction`. `false` (and `direction` untouched) if the
/// factorisation fails, which only non-finite entries can cause.
pub fn newton_direction(hessian: &[f64], mu: f64, gradient: &[f64], direction: &mut [f64]) -> bool {
    let d = gradient.len();
    let mut h = DMatrix::from_row_slice(d, d, hessian);
    for j in 0..d {
        h[(j, j)] += mu;
    }
    let Some(chol) = h.cholesky() else {
        return false;
    };
    let p = chol.solve(&DVector::from_column_slice(gradient));
    if p.iter().any(|v| !v.is_finite()) {
        return false;
    }
    for (o, v) in direction.iter_mut().zip(p.iter()) {
        *o = -v;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loss::{GlmLoss, Logistic};

    /// n samples in d dimensions, deterministic, with margins from small to extreme.
    fn samples(n: usize, d: usize) -> (Vec<f64>, Vec<f64>) {
        let x = (0..n * d)
            .map(|k| (k as f64 * 0.618).sin() * (1.0 + (k % 3) as f64))
            .collect();
        let y = (0..n)
            .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
            .collect();
        (x, y)
    }

    #[test]
    fn curvature_is_the_derivative_of_the_logistic_derivative() {
        for y in [-1.0, 1.0] {
            for t in [-30.0, -2.0, -0.1, 0.0, 0.4, 3.0, 25.0] {
                let h = 1e-5;
                let fd =
                    (Logistic.derivative(t + h, y) - Logistic.derivative(t - h, y)) / (2.0 * h);
                let c = logistic_curvature(t, y);
                assert!((c - fd).abs() < 1e-9, "t = {t}, y = {y}: {c} vs {fd}");
            }
        }
        assert_eq!(logistic_curvature(0.0, 1.0), 0.25);
        // Extreme margins: 0 or a tiny positive number, never NaN.
        for t in [-800.0, 800.0, -1e300, 1e300] {
            let c = logistic_curvature(t, 1.0);
            assert!((0.0..1e-300).contains(&c), "{t}: {c}");
        }
    }

    #[test]
    fn hessian_matches_differences_of_the_gradient() {
        // Column k of the Hessian is the derivative of the mean gradient along e_k.
        let (n, d) = (37, 5);
        let (x, y) = samples(n, d);
        let w = [0.3, -0.2, 0.1, 0.05, -0.4];
        let mut h = vec![0.0; d * d];
        logistic_hessian(&x, &y, &w, n, &mut h);
        let grad = |w: &[f64]| {
            let mut g = vec![0.0; d];
            for (xi, &yi) in x.chunks_exact(d).zip(&y) {
                let t: f64 = xi.iter().zip(w).map(|(a, b)| a * b).sum();
                axpy(Logistic.derivative(t, yi) / n as f64, xi, &mut g);
            }
            g
        };
        let step = 1e-6;
        for k in 0..d {
            let (mut up, mut down) = (w, w);
            up[k] += step;
            down[k] -= step;
            let (gu, gd) = (grad(&up), grad(&down));
            for j in 0..d {
                let fd = (gu[j] - gd[j]) / (2.0 * step);
                assert!((h[j * d + k] - fd).abs() < 1e-8, "H[{j}][{k}]");
                assert_eq!(h[j * d + k], h[k * d + j], "symmetric");
            }
        }
    }

    #[test]
    fn every_instruction_set_gives_the_portable_bits() {
        // What the browser computes (the portable kernels) against the dispatched pass, on every
        // remainder of a block of four and with margins up to ±800.
        let d = 6;
        for n in [1, 2, 3, 4, 5, 9, 30] {
            let (x, y) = samples(n, d);
            let w: Vec<f64> = (0..d).map(|j| 150.0 * (j as f64 - 2.5)).collect();
            let mut fast = vec![0.0; d * d];
            logistic_hessian(&x, &y, &w, n, &mut fast);
            let mut portable = vec![0.0; d * d];
            hessian_with(&x, &y, &w, &mut portable, Portable);
            finish(&mut portable, d, n);
            let bits = |v: &[f64]| v.iter().map(|a| a.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&fast), bits(&portable), "n = {n}");
            assert!(fast.iter().all(|v| v.is_finite()));
        }
    }

    #[test]
    fn newton_direction_solves_the_regularised_system() {
        // H = [[2, 1], [1, 3]], μ = 1: H + I = [[3, 1], [1, 4]] (determinant 11), so
        // (H + I)p = −g with g = (1, 2) gives p = −(1/11)(4·1 − 1·2, −1·1 + 3·2) = −(2, 5)/11.
        let mut p = [0.0; 2];
        assert!(newton_direction(
            &[2.0, 1.0, 1.0, 3.0],
            1.0,
            &[1.0, 2.0],
            &mut p
        ));
        assert!(
            (p[0] + 2.0 / 11.0).abs() < 1e-15 && (p[1] + 5.0 / 11.0).abs() < 1e-15,
            "{p:?}"
        );
        // A NaN entry: refused, direction untouched.
        let mut q = [7.0; 2];
        assert!(!newton_direction(
            &[f64::NAN, 1.0, 1.0, 3.0],
            1.0,
            &[1.0, 2.0],
            &mut q
        ));
        assert_eq!(q, [7.0; 2]);
    }
}
