//! The logistic data term (1/n) Σᵢ ℓ(yᵢ⟨w, xᵢ⟩) and its gradient in one pass, with the gradient
//! summed in blocks, for solvers that must **certify** a gradient norm (objective perturbation's
//! ‖∇J_b(w̃)‖ ≤ γ, `algo::objective_perturbation`).
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

use crate::fused::{PHASE, phase};
use crate::linalg::{Kernels, Portable, axpy};
use crate::loss::{GlmLoss, Logistic};
use crate::solver::newton::Tiles;

/// Samples per block of the gradient's sum: about √n at the sizes the page runs (10⁴–10⁶), and
/// small enough for the block's accumulator and samples to stay in cache; a multiple of
/// [`PHASE`].
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
    check(w, grad, block);
    dispatch(x, y, w, over, grad, block, &mut NoHessian)
}

/// [`value_and_gradient`] (the same bits) and, in the same read of the data, the Hessian of the
/// data term at `w` into `hessian` (d × d, row-major), estimated from every `stride`-th block of
/// [`BLOCK`] samples (1: every sample, with the bits of
/// [`crate::solver::newton::logistic_hessian`]; k: (1/m)·Σ over the m samples of the blocks
/// 0, k, 2k, …, scaled to the declared n). `scratch` holds the Hessian's tiles (kept across
/// calls, no allocation per pass).
///
/// Why: a Newton step needs the Hessian at the point the line search accepts, and that point's
/// gradient pass has already read every sample and computed its margin: the Hessian then costs
/// its arithmetic only, not a second read and a second set of dot products and exps. The Hessian
/// only chooses the direction, so a subsample of the blocks (a subsampled Newton step, Byrd,
/// Chin, Neveitt & Nocedal 2011) changes the speed of convergence, never what the caller
/// certifies with the gradient.
#[allow(clippy::too_many_arguments)]
pub fn value_gradient_hessian(
    x: &[f64],
    y: &[f64],
    w: &[f64],
    over: usize,
    grad: &mut [f64],
    block: &mut [f64],
    hessian: &mut [f64],
    scratch: &mut Vec<f64>,
    stride: usize,
) -> f64 {
    check(w, grad, block);
    let d = w.len();
    assert_eq!(hessian.len(), d * d, "Hessian buffer of d × d");
    if d == 0 {
        return 0.0;
    }
    let mut hook = SubsampledHessian {
        tiles: Tiles::new(d, scratch),
        stride: stride.max(1),
    };
    let value = dispatch(x, y, w, over, grad, block, &mut hook);
    let (used, n) = (hook.tiles.rows(), y.len());
    // (1/over)·Σᵢ over all n samples ≈ (n/over)·(1/used)·Σ over the used ones; exactly `over`
    // when every sample is used.
    let divisor = if used == n {
        over.max(1) as f64
    } else {
        used.max(1) as f64 * over.max(1) as f64 / n.max(1) as f64
    };
    hook.tiles.finish(hessian, divisor);
    value
}

fn check(w: &[f64], grad: &[f64], block: &[f64]) {
    let d = w.len();
    assert!(
        grad.len() == d && block.len() == d,
        "gradient and block buffers of length d"
    );
}

/// What the pass does with each block's samples and margins besides the value and gradient.
trait BlockHook {
    fn block(&mut self, index: usize, x: &[f64], y: &[f64], margins: &[f64]);
}

/// Nothing: the plain value and gradient.
struct NoHessian;

impl BlockHook for NoHessian {
    #[inline(always)]
    fn block(&mut self, _: usize, _: &[f64], _: &[f64], _: &[f64]) {}
}

/// The Hessian's tiles over every `stride`-th block.
struct SubsampledHessian<'a> {
    tiles: Tiles<'a>,
    stride: usize,
}

impl BlockHook for SubsampledHessian<'_> {
    #[inline(always)]
    fn block(&mut self, index: usize, x: &[f64], y: &[f64], margins: &[f64]) {
        if index % self.stride == 0 {
            self.tiles.add(x, y, margins);
        }
    }
}

#[inline(always)]
fn dispatch<H: BlockHook>(
    x: &[f64],
    y: &[f64],
    w: &[f64],
    over: usize,
    grad: &mut [f64],
    block: &mut [f64],
    hook: &mut H,
) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if let Some(avx2) = crate::linalg::Avx2::detect() {
        // SAFETY: `detect` found AVX2 on this CPU.
        return unsafe { pass_avx2(x, y, w, over, grad, block, hook, avx2) };
    }
    pass_with(x, y, w, over, grad, block, hook, Portable)
}

/// [`pass_with`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)]
fn pass_avx2<H: BlockHook>(
    x: &[f64],
    y: &[f64],
    w: &[f64],
    over: usize,
    grad: &mut [f64],
    block: &mut [f64],
    hook: &mut H,
    kernels: crate::linalg::Avx2,
) -> f64 {
    pass_with(x, y, w, over, grad, block, hook, kernels)
}

/// Per block: four samples at a time into `block` (the fused pass's dot products, derivatives
/// and [`Kernels::axpy4`]), the rest one at a time; then `block` into `grad`, and the block's
/// samples with their margins to `hook`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn pass_with<H: BlockHook, K: Kernels>(
    x: &[f64],
    y: &[f64],
    w: &[f64],
    over: usize,
    grad: &mut [f64],
    block: &mut [f64],
    hook: &mut H,
    kernels: K,
) -> f64 {
    let d = w.len();
    grad.fill(0.0);
    let mut value = 0.0;
    if d == 0 {
        return 0.0;
    }
    let mut margins = [0.0; BLOCK];
    for (index, (xb, yb)) in x.chunks(BLOCK * d).zip(y.chunks(BLOCK)).enumerate() {
        block.fill(0.0);
        let mut i = 0;
        for (xp, yp) in xb.chunks_exact(PHASE * d).zip(yb.chunks_exact(PHASE)) {
            let xs: [&[f64]; PHASE] = std::array::from_fn(|k| &xp[k * d..(k + 1) * d]);
            let ys: [f64; PHASE] = std::array::from_fn(|k| yp[k]);
            let t = phase(kernels, &Logistic, w, &xs, &ys, &mut value, block);
            margins[i..i + PHASE].copy_from_slice(&t);
            i += PHASE;
        }
        let (xr, yr) = (&xb[i * d..], &yb[i..]);
        for (x4, y4) in xr.chunks_exact(4 * d).zip(yr.chunks_exact(4)) {
            let xs: [&[f64]; 4] = std::array::from_fn(|k| &x4[k * d..(k + 1) * d]);
            let t = phase(
                kernels,
                &Logistic,
                w,
                &xs,
                &[y4[0], y4[1], y4[2], y4[3]],
                &mut value,
                block,
            );
            margins[i..i + 4].copy_from_slice(&t);
            i += 4;
        }
        for (xi, &yi) in xb[i * d..].chunks_exact(d).zip(&yb[i..]) {
            let t = kernels.dot(w, xi);
            margins[i] = t;
            i += 1;
            let (v, g) = Logistic.value_and_derivative(t, yi);
            value += v;
            axpy(g, xi, block);
        }
        for (g, b) in grad.iter_mut().zip(block.iter()) {
            *g += b;
        }
        hook.block(index, xb, yb, &margins[..yb.len()]);
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

    #[test]
    fn the_fused_hessian_pass_gives_the_bits_of_the_two_passes() {
        // Stride 1: the value and gradient of `value_and_gradient` and the Hessian of
        // `newton::logistic_hessian`, bit for bit, on remainders of a block and of a chunk.
        // Stride 3: the Hessian of the blocks 0, 3, 6, … alone, scaled to n.
        let bits = |v: &[f64]| v.iter().map(|a| a.to_bits()).collect::<Vec<_>>();
        // 283: a second block of one phase, two blocks of four and three samples.
        for (n, d) in [(1, 3), (5, 4), (257, 6), (283, 7), (1030, 21)] {
            let (x, y) = samples(n, d);
            let w: Vec<f64> = (0..d).map(|j| 2.0 * ((j as f64) * 0.9).sin()).collect();
            let (mut g, mut b) = (vec![0.0; d], vec![0.0; d]);
            let v = value_and_gradient(&x, &y, &w, n, &mut g, &mut b);
            let mut h = vec![0.0; d * d];
            crate::solver::newton::logistic_hessian(&x, &y, &w, n, &mut h, &mut Vec::new());
            let (mut g2, mut h2, mut scratch) = (vec![0.0; d], vec![0.0; d * d], Vec::new());
            let v2 =
                value_gradient_hessian(&x, &y, &w, n, &mut g2, &mut b, &mut h2, &mut scratch, 1);
            assert_eq!(v.to_bits(), v2.to_bits(), "n = {n}, d = {d}");
            assert_eq!(bits(&g), bits(&g2), "n = {n}, d = {d}");
            assert_eq!(bits(&h), bits(&h2), "n = {n}, d = {d}");
            // The subsample: blocks 0, 3, … as their own data set, times (used/n)·(n/over).
            let v3 =
                value_gradient_hessian(&x, &y, &w, n, &mut g2, &mut b, &mut h2, &mut scratch, 3);
            assert_eq!(v.to_bits(), v3.to_bits());
            assert_eq!(bits(&g), bits(&g2));
            let (mut xs, mut ys) = (Vec::new(), Vec::new());
            for (k, (xb, yb)) in x.chunks(BLOCK * d).zip(y.chunks(BLOCK)).enumerate() {
                if k % 3 == 0 {
                    xs.extend_from_slice(xb);
                    ys.extend_from_slice(yb);
                }
            }
            let mut h3 = vec![0.0; d * d];
            let m = ys.len();
            crate::solver::newton::logistic_hessian(&xs, &ys, &w, m, &mut h3, &mut Vec::new());
            for (a, e) in h2.iter().zip(&h3) {
                assert!((a - e).abs() <= 1e-14 * (1.0 + e.abs()), "{a} vs {e}");
            }
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
                    unsafe { pass_avx2(&x, &y, &w, n, &mut g, &mut b, &mut NoHessian, fast) }
                } else {
                    pass_with(&x, &y, &w, n, &mut g, &mut b, &mut NoHessian, Portable)
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
