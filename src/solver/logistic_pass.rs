//! The logistic data term (1/n) Σᵢ ℓ(yᵢ⟨w, xᵢ⟩) and its gradient in one pass, with the gradient
//! summed in blocks, for solvers that must **certify** a gradient norm (objective perturbation's
//! ‖∇J_b(w̃)‖ ≤ γ, `crate::algo::objective_perturbation`).
//!
//! Why a second pass beside [`crate::objective::Objective::value_and_gradient`]: that pass adds
//! the n per-sample gradients one after another, and the only rounding bound such a sum has is
//! n·u·R (u the unit roundoff, R the feature bound). A certificate must add that bound to the
//! computed norm, so it forces the tolerance γ, and with it approximate minima perturbation's
//! residual noise (scale ∝ γ/μ), up: at n = 10⁵ and diffprivlib's default ridge Λ = 1/n the
//! residual noise had a mean norm of 4.5 and decided the test loss. Here every block of
//! [`BLOCK`] samples is summed into its own accumulator, and the blocks into the total, so the
//! bound is (BLOCK + ⌈n/BLOCK⌉)·u·R ([`summation_terms`]): 650 u·R instead of 10⁵ u·R at
//! n = 10⁵. The per-sample work and its bits are those of the fused pass (the same dot products
//! and the same four-lane logistic math); only the order of the gradient's additions differs,
//! and it is fixed here, so native (AVX2) and wasm runs give the same bits
//! (`avx2_gives_the_portable_bits`). The value is summed in sample order, as in the fused pass.

use crate::linalg::{Kernels, Portable, axpy};
use crate::loss::{GlmLoss, Logistic};

/// Samples per block of the gradient's sum: about √n at the sizes the page runs (10⁴–10⁶), and
/// small enough for the block's accumulator and samples to stay in cache.
pub const BLOCK: usize = 256;

/// The number of additions any one gradient entry goes through in [`value_and_gradient`] for n
/// samples, as a multiple of u·Σᵢ|terms|: at most BLOCK − 1 inside a block, ⌈n/BLOCK⌉ adding
/// the blocks, and one product per term (the rounding bound the caller's certificate uses).
pub fn summation_terms(n: usize) -> f64 {
    (BLOCK + n.div_ceil(BLOCK)) as f64
}

/// Writes the gradient of the logistic data term at `w` into `grad` and returns its value, for
/// the samples `x` (row after row, d = `w.len()` each) with labels `y` (±1), dividing by `over`
/// (the declared n). `block` is scratch of length d (no allocation per pass).
pub fn value_and_gradient(
    x: &[f64],
    y: &[f64],
    w: &[f64],
    over: usize,
    grad: &mut [f64],
    block: &mut [f64],
) -> f64 {
    let d = w.len();
    assert!(
        grad.len() == d && block.len() == d,
        "gradient and block buffers of length d"
    );
    #[cfg(target_arch = "x86_64")]
    if let Some(avx2) = crate::linalg::Avx2::detect() {
        // SAFETY: `detect` found AVX2 on this CPU.
        return unsafe { pass_avx2(x, y, w, over, grad, block, avx2) };
    }
    pass_with(x, y, w, over, grad, block, Portable)
}

/// [`pass_with`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn pass_avx2(
    x: &[f64],
    y: &[f64],
    w: &[f64],
    over: usize,
    grad: &mut [f64],
    block: &mut [f64],
    kernels: crate::linalg::Avx2,
) -> f64 {
    pass_with(x, y, w, over, grad, block, kernels)
}

/// Per block: four samples at a time into `block` (the fused pass's dot products, derivatives
/// and [`Kernels::axpy4`]), the rest one at a time; then `block` into `grad`.
#[inline(always)]
fn pass_with<K: Kernels>(
    x: &[f64],
    y: &[f64],
    w: &[f64],
    over: usize,
    grad: &mut [f64],
    block: &mut [f64],
    kernels: K,
) -> f64 {
    let d = w.len();
    grad.fill(0.0);
    let mut value = 0.0;
    if d == 0 {
        return 0.0;
    }
    for (xb, yb) in x.chunks(BLOCK * d).zip(y.chunks(BLOCK)) {
        block.fill(0.0);
        let mut fours = xb.chunks_exact(4 * d).zip(yb.chunks_exact(4));
        for (x4, y4) in fours.by_ref() {
            let xs: [&[f64]; 4] = std::array::from_fn(|k| &x4[k * d..(k + 1) * d]);
            let t = kernels.dot4(w, xs);
            let (v, c) = kernels.derivative4(&Logistic, t, [y4[0], y4[1], y4[2], y4[3]]);
            for vk in v {
                value += vk;
            }
            kernels.axpy4(c, xs, block);
        }
        let done = yb.len() / 4 * 4;
        for (xi, &yi) in xb[done * d..].chunks_exact(d).zip(&yb[done..]) {
            let (v, g) = Logistic.value_and_derivative(kernels.dot(w, xi), yi);
            value += v;
            axpy(g, xi, block);
        }
        for (g, b) in grad.iter_mut().zip(block.iter()) {
            *g += b;
        }
    }
    let n = over.max(1) as f64;
    grad.iter_mut().for_each(|g| *g /= n);
    value / n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::norm2;

    /// n samples in d dimensions with norms ≤ 1, deterministic, margins from small to large.
    fn samples(n: usize, d: usize) -> (Vec<f64>, Vec<f64>) {
        let mut x: Vec<f64> = (0..n * d)
            .map(|k| (k as f64 * 0.618).sin() * (1.0 + (k % 3) as f64))
            .collect();
        for xi in x.chunks_exact_mut(d) {
            let r = norm2(xi).max(1.0);
            xi.iter_mut().for_each(|v| *v /= r);
        }
        let y = (0..n)
            .map(|i| if i % 3 == 0 { 1.0 } else { -1.0 })
            .collect();
        (x, y)
    }

    /// Σᵢ terms by Neumaier's compensated sum: within a few u of the exact sum whatever n is.
    fn compensated(terms: impl Iterator<Item = f64>) -> f64 {
        let (mut s, mut c) = (0.0f64, 0.0f64);
        for t in terms {
            let u = s + t;
            c += if s.abs() >= t.abs() {
                (s - u) + t
            } else {
                (t - u) + s
            };
            s = u;
        }
        s + c
    }

    #[test]
    fn value_and_gradient_are_the_logistic_data_term_within_the_block_bound() {
        // Against a compensated sum of the same per-sample terms: the gradient's error is within
        // summation_terms(n)·u·R (R = 1 here); the value matches the fused pass's order exactly.
        for (n, d) in [(1, 3), (7, 5), (1000, 4), (3001, 20)] {
            let (x, y) = samples(n, d);
            let w: Vec<f64> = (0..d).map(|j| 3.0 * ((j as f64) * 1.7).cos()).collect();
            let (mut g, mut block) = (vec![0.0; d], vec![0.0; d]);
            let v = value_and_gradient(&x, &y, &w, n, &mut g, &mut block);
            let per: Vec<(f64, f64)> = x
                .chunks_exact(d)
                .zip(&y)
                .map(|(xi, &yi)| Logistic.value_and_derivative(Portable.dot(&w, xi), yi))
                .collect();
            let sequential = per.iter().fold(0.0, |s, (v, _)| s + v) / n as f64;
            assert_eq!(v.to_bits(), sequential.to_bits(), "n = {n}, d = {d}");
            let exact: Vec<f64> = (0..d)
                .map(|j| {
                    compensated(x.chunks_exact(d).zip(&per).map(|(xi, (_, c))| c * xi[j]))
                        / n as f64
                })
                .collect();
            let err = crate::linalg::dist2(&g, &exact);
            let bound = (summation_terms(n) + 2.0) * f64::EPSILON;
            assert!(err <= bound, "n = {n}, d = {d}: {err:e} > {bound:e}");
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_gives_the_portable_bits() {
        let Some(fast) = crate::linalg::Avx2::detect() else {
            eprintln!("no AVX2 on this CPU: only the portable pass runs here");
            return;
        };
        for (n, d) in [(3, 1), (513, 5), (1030, 20)] {
            let (x, y) = samples(n, d);
            let w: Vec<f64> = (0..d).map(|j| 0.4 * (j as f64 - 2.0)).collect();
            let run = |avx2: bool| {
                let (mut g, mut b) = (vec![0.0; d], vec![0.0; d]);
                let v = if avx2 {
                    // SAFETY: `fast` exists, so the CPU has AVX2.
                    unsafe { pass_avx2(&x, &y, &w, n, &mut g, &mut b, fast) }
                } else {
                    pass_with(&x, &y, &w, n, &mut g, &mut b, Portable)
                };
                (
                    v.to_bits(),
                    g.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                )
            };
            assert_eq!(run(true), run(false), "n = {n}, d = {d}");
        }
    }
}
