//! The pieces of a Newton solve for the ridge-regularised logistic objective: the Hessian of the
//! data term in one pass, and the Newton direction by a Cholesky factorisation (nalgebra).
//!
//! Why: objective perturbation (`algo::objective_perturbation`) must solve its perturbed
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
//! [`crate::loss::math::exp`], each Hessian entry a sum in sample order with no fused
//! multiply-add, in AVX2 registers or not), so native and wasm runs give the same iterates.

use nalgebra::{Cholesky, DMatrix, DVector, Dyn};

use crate::linalg::{Kernels, Portable};
use crate::loss::math::{exp, exp_lanes};

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
/// dividing by `over` (the declared n). `scratch` holds the tiles and a chunk of samples (resized
/// here once; keep it across calls so a Newton step allocates nothing).
///
/// One pass, tiled: a chunk of `CHUNK` samples is copied with its scaled form ℓ″ᵢxᵢ, and every
/// 4 × 4 tile of the lower triangle is then added up over the chunk in registers (16 running sums,
/// no loads or stores of the Hessian per sample). Each entry is still the sum over samples in
/// sample order of (ℓ″ᵢxᵢⱼ)·xᵢₖ, the bits of one rank-one update at a time
/// (`the_tiles_give_the_bits_of_one_sample_at_a_time`); the previous kernel (a row at a time, four
/// samples per sweep) gave the same bits and took 2–3× longer at d = 20 (`cargo bench --bench
/// logreg` prints one pass).
pub fn logistic_hessian(
    x: &[f64],
    y: &[f64],
    w: &[f64],
    over: usize,
    hessian: &mut [f64],
    scratch: &mut Vec<f64>,
) {
    let d = w.len();
    assert_eq!(hessian.len(), d * d, "Hessian buffer of d × d");
    hessian.fill(0.0);
    if d == 0 {
        return;
    }
    let mut tiles = Tiles::new(d, scratch);
    #[cfg(target_arch = "x86_64")]
    if let Some(avx2) = crate::linalg::Avx2::detect() {
        // SAFETY: `detect` found AVX2 on this CPU.
        unsafe { hessian_avx2(x, y, w, &mut tiles, avx2) };
        return tiles.finish(hessian, over.max(1) as f64);
    }
    hessian_with(x, y, w, &mut tiles, Portable);
    tiles.finish(hessian, over.max(1) as f64);
}

/// Samples per chunk: the chunk's features and scaled features (2 × 64 × 20 doubles, 20 KB at
/// d = 20) stay in the first-level cache while every tile sweeps over them.
const CHUNK: usize = 64;

/// Where the pieces of the scratch buffer live: the lower tiles of the Hessian (4 × 4 each, d
/// padded to a multiple of 4 with zero features), then the chunk's features and scaled features.
struct Layout {
    d: usize,
    /// d rounded up to a multiple of 4.
    padded: usize,
    tiles: usize,
}

impl Layout {
    fn new(d: usize) -> Self {
        let padded = d.div_ceil(4) * 4;
        let side = padded / 4;
        Self {
            d,
            padded,
            tiles: side * (side + 1) / 2,
        }
    }

    fn len(&self) -> usize {
        16 * self.tiles + 2 * CHUNK * self.padded
    }
}

/// The running sum Σᵢ ℓ″ᵢ·xᵢxᵢᵀ of the logistic curvature over the samples added so far, in
/// 4 × 4 tiles of its lower triangle: [`logistic_hessian`] adds every sample, the fused pass
/// ([`crate::solver::logistic_pass::value_gradient_hessian`]) the samples of the blocks it is
/// asked for, with the margins it computed for the gradient. Adding the samples chunk by chunk
/// in sample order gives the same bits however they are handed in (the chunks restart at every
/// call, and every entry is a sum in sample order either way).
pub(crate) struct Tiles<'a> {
    layout: Layout,
    scratch: &'a mut [f64],
    rows: usize,
}

impl<'a> Tiles<'a> {
    /// Empty tiles for dimension d ≥ 1 in `scratch` (resized here once; keep it across calls so
    /// a Newton step allocates nothing).
    pub(crate) fn new(d: usize, scratch: &'a mut Vec<f64>) -> Self {
        let layout = Layout::new(d);
        scratch.clear();
        scratch.resize(layout.len(), 0.0);
        Self {
            layout,
            scratch: scratch.as_mut_slice(),
            rows: 0,
        }
    }

    /// Samples added so far.
    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    /// Adds the samples `x` (row after row) with labels `y` whose margins ⟨w, xᵢ⟩ are `margins`.
    #[inline(always)]
    pub(crate) fn add(&mut self, x: &[f64], y: &[f64], margins: &[f64]) {
        let d = self.layout.d;
        for ((xc, yc), tc) in x
            .chunks(CHUNK * d)
            .zip(y.chunks(CHUNK))
            .zip(margins.chunks(CHUNK))
        {
            let mut curvature = [0.0; CHUNK];
            let mut fours = tc.chunks_exact(4).zip(yc.chunks_exact(4));
            let mut i = 0;
            for (t4, y4) in fours.by_ref() {
                let s =
                    logistic_curvature4([t4[0], t4[1], t4[2], t4[3]], [y4[0], y4[1], y4[2], y4[3]]);
                curvature[i..i + 4].copy_from_slice(&s);
                i += 4;
            }
            for (&t, &yi) in tc[i..].iter().zip(&yc[i..]) {
                curvature[i] = logistic_curvature(t, yi);
                i += 1;
            }
            self.add_chunk(xc, &curvature[..yc.len()]);
        }
    }

    /// Adds one chunk (at most [`CHUNK`] samples) with their curvatures ℓ″ᵢ.
    #[inline(always)]
    fn add_chunk(&mut self, xc: &[f64], curvature: &[f64]) {
        let (d, dp) = (self.layout.d, self.layout.padded);
        let (tiles, chunk) = self.scratch.split_at_mut(16 * self.layout.tiles);
        let (xs, zs) = chunk.split_at_mut(CHUNK * dp);
        let m = curvature.len();
        for (i, (xi, &s)) in xc.chunks_exact(d).zip(curvature).enumerate() {
            let row = i * dp;
            xs[row..row + d].copy_from_slice(xi);
            for (z, v) in zs[row..row + d].iter_mut().zip(xi) {
                *z = s * v;
            }
        }
        let (xs, zs) = (&xs[..m * dp], &zs[..m * dp]);
        let mut t = 0;
        for jt in 0..dp / 4 {
            for kt in 0..=jt {
                add_tile(&mut tiles[16 * t..16 * t + 16], zs, xs, dp, 4 * jt, 4 * kt);
                t += 1;
            }
        }
        self.rows += m;
    }

    /// Writes the lower triangle of the tiles, divided by `over`, into both triangles of
    /// `hessian` (d × d, row-major).
    pub(crate) fn finish(&self, hessian: &mut [f64], over: f64) {
        let d = self.layout.d;
        let mut t = 0;
        for jt in 0..self.layout.padded / 4 {
            for kt in 0..=jt {
                let tile = &self.scratch[16 * t..16 * t + 16];
                for r in 0..4 {
                    for c in 0..4 {
                        let (j, k) = (4 * jt + r, 4 * kt + c);
                        if j < d && k <= j {
                            let v = tile[4 * r + c] / over;
                            hessian[j * d + k] = v;
                            hessian[k * d + j] = v;
                        }
                    }
                }
                t += 1;
            }
        }
    }
}

/// [`logistic_curvature`] of four margins, lane by lane with its bits (one vectorised exp).
#[inline(always)]
pub fn logistic_curvature4(t: [f64; 4], y: [f64; 4]) -> [f64; 4] {
    let mut m = [0.0; 4];
    for i in 0..4 {
        m[i] = -(y[i] * t[i]).abs();
    }
    let e = exp_lanes(m);
    let mut out = [0.0; 4];
    for i in 0..4 {
        let s = 1.0 + e[i];
        out[i] = e[i] / (s * s);
    }
    out
}

/// [`hessian_with`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn hessian_avx2(x: &[f64], y: &[f64], w: &[f64], tiles: &mut Tiles, k: crate::linalg::Avx2) {
    hessian_with(x, y, w, tiles, k)
}

/// Adds every sample to `tiles`, with its margin ⟨w, xᵢ⟩ by [`Kernels::dot`].
#[inline(always)]
fn hessian_with<K: Kernels>(x: &[f64], y: &[f64], w: &[f64], tiles: &mut Tiles, kernels: K) {
    let d = w.len();
    for (xc, yc) in x.chunks(CHUNK * d).zip(y.chunks(CHUNK)) {
        let mut margins = [0.0; CHUNK];
        for (t, xi) in margins.iter_mut().zip(xc.chunks_exact(d)) {
            *t = kernels.dot(w, xi);
        }
        tiles.add(xc, yc, &margins[..yc.len()]);
    }
}

/// tile[4r + c] (its 16 entries) += Σᵢ zᵢ[j₀ + r]·xᵢ[k₀ + c] over the chunk's rows (`dp` wide),
/// in row order, in sixteen running sums (four registers of four under AVX2).
#[inline(always)]
fn add_tile(tile: &mut [f64], zs: &[f64], xs: &[f64], dp: usize, j0: usize, k0: usize) {
    let mut acc = [0.0; 16];
    acc.copy_from_slice(tile);
    for (zi, xi) in zs.chunks_exact(dp).zip(xs.chunks_exact(dp)) {
        let (z, v) = (&zi[j0..j0 + 4], &xi[k0..k0 + 4]);
        for r in 0..4 {
            for c in 0..4 {
                acc[4 * r + c] += z[r] * v[c];
            }
        }
    }
    tile.copy_from_slice(&acc);
}

/// The Newton direction p = −(H + μI)⁻¹g for a symmetric positive semi-definite `hessian`
/// (d × d, row-major) and μ > 0, into `direction`. `false` (and `direction` untouched) if the
/// factorisation fails, which only non-finite entries can cause.
pub fn newton_direction(hessian: &[f64], mu: f64, gradient: &[f64], direction: &mut [f64]) -> bool {
    Factor::new(hessian, gradient.len(), mu).is_some_and(|f| f.direction(gradient, direction))
}

/// The Cholesky factor of H + μI, kept so that later steps can reuse it (a chord step: the
/// Hessian of an earlier iterate with the gradient of the current one).
#[derive(Debug, Clone)]
pub struct Factor(Cholesky<f64, Dyn>);

impl Factor {
    /// Factors H + μI for a symmetric `hessian` (d × d, row-major); `None` if that fails, which
    /// only non-finite entries can cause for a positive semi-definite H and μ > 0, or if
    /// `hessian` is not d × d.
    pub fn new(hessian: &[f64], d: usize, mu: f64) -> Option<Self> {
        if hessian.len() != d * d {
            return None;
        }
        let mut h = DMatrix::from_row_slice(d, d, hessian);
        for j in 0..d {
            h[(j, j)] += mu;
        }
        h.cholesky().map(Factor)
    }

    /// p = −(H + μI)⁻¹g into `direction`; `false` (and `direction` untouched) if p is not
    /// finite or the dimensions differ.
    pub fn direction(&self, gradient: &[f64], direction: &mut [f64]) -> bool {
        if gradient.len() != self.0.l_dirty().nrows() || direction.len() != gradient.len() {
            return false;
        }
        let p = self.0.solve(&DVector::from_column_slice(gradient));
        if p.iter().any(|v| !v.is_finite()) {
            return false;
        }
        for (o, v) in direction.iter_mut().zip(p.iter()) {
            *o = -v;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::axpy;
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
        logistic_hessian(&x, &y, &w, n, &mut h, &mut Vec::new());
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
        // remainder of a chunk and of a tile, with margins up to ±800.
        for d in [1, 4, 6, 21] {
            for n in [1, 2, 5, 63, 64, 65, 130] {
                let (x, y) = samples(n, d);
                let w: Vec<f64> = (0..d).map(|j| 150.0 * (j as f64 - 2.5)).collect();
                let mut fast = vec![0.0; d * d];
                let mut scratch = Vec::new();
                logistic_hessian(&x, &y, &w, n, &mut fast, &mut scratch);
                let mut tiles = Tiles::new(d, &mut scratch);
                hessian_with(&x, &y, &w, &mut tiles, Portable);
                let mut portable = vec![0.0; d * d];
                tiles.finish(&mut portable, n as f64);
                let bits = |v: &[f64]| v.iter().map(|a| a.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&fast), bits(&portable), "n = {n}, d = {d}");
                assert!(fast.iter().all(|v| v.is_finite()));
            }
        }
    }

    #[test]
    fn the_tiles_give_the_bits_of_one_sample_at_a_time() {
        // Each entry is Σᵢ (ℓ″ᵢxᵢⱼ)·xᵢₖ added in sample order, as one rank-one update per sample
        // gives it (the previous kernel's bits), then divided by n; a scratch buffer reused from
        // a larger d changes nothing.
        let mut scratch = vec![1.0; 5000];
        for (n, d) in [(3, 2), (200, 7), (131, 20)] {
            let (x, y) = samples(n, d);
            let w: Vec<f64> = (0..d).map(|j| 0.3 * (j as f64 * 1.3).sin()).collect();
            let mut reference = vec![0.0; d * d];
            for (xi, &yi) in x.chunks_exact(d).zip(&y) {
                let s = logistic_curvature(crate::linalg::dot(&w, xi), yi);
                for j in 0..d {
                    axpy(s * xi[j], &xi[..=j], &mut reference[j * d..j * d + j + 1]);
                }
            }
            for j in 0..d {
                for k in 0..=j {
                    let v = reference[j * d + k] / n as f64;
                    reference[j * d + k] = v;
                    reference[k * d + j] = v;
                }
            }
            let mut h = vec![0.0; d * d];
            logistic_hessian(&x, &y, &w, n, &mut h, &mut scratch);
            let bits = |v: &[f64]| v.iter().map(|a| a.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&h), bits(&reference), "n = {n}, d = {d}");
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
