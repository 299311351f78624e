//! A high-dimensional data mode in the spirit of Wang, Ye & Xu 2017: p ≫ n features,
//! a sparse planted w₀ of unit ℓ1 norm and logistic labels — the setting where DP-AccMD's ℓ1
//! geometry pays ln p instead of p for its noise.

use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

use super::Dataset;
use crate::error::{Error, Result};
use crate::linalg::dot;
use crate::rng::DpRng;

/// The high-dimensional data mode: p ≫ n, a sparse planted
/// w₀, logistic labels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SparseSpec {
    /// Records n.
    pub n: usize,
    /// Dimension p (≫ n in this mode).
    pub p: usize,
    /// Non-zeros s of w₀.
    pub sparsity: usize,
    /// Scale of the margin: P(y = +1 | x) = sigmoid(signal·⟨w₀, x⟩·√(p/s)), with w₀ of unit ℓ1
    /// norm on s coordinates; the √(p/s) makes the margin O(signal) for features of norm ≈ 1.
    pub signal: f64,
}

/// Features N(0, 1/p) per coordinate (so ‖x‖₂ ≈ 1; the caller still clips to the declared bound,
/// which is what makes G hold), w₀ = ±1/s on s coordinates drawn without replacement (ℓ1 norm 1,
/// so it sits on the ℓ1 ball of radius 1), labels ±1 from the logistic model. Returns the data
/// and w₀.
pub fn generate_sparse(spec: &SparseSpec, rng: &mut DpRng) -> Result<(Dataset, Vec<f64>)> {
    let SparseSpec {
        n,
        p,
        sparsity,
        signal,
    } = *spec;
    if n == 0 || p == 0 {
        return Err(Error::invalid(
            "n, p",
            "at least 1 each",
            format!("{n}, {p}"),
        ));
    }
    if sparsity == 0 || sparsity > p {
        return Err(Error::invalid(
            "sparsity",
            format!("between 1 and p = {p}"),
            sparsity,
        ));
    }
    if !signal.is_finite() {
        return Err(Error::invalid("signal", "a finite number", signal));
    }
    let mut w0 = vec![0.0; p];
    let mut placed = 0;
    while placed < sparsity {
        let j = rng.random_range(0..p);
        if w0[j] == 0.0 {
            w0[j] = if placed % 2 == 0 { 1.0 } else { -1.0 } / sparsity as f64;
            placed += 1;
        }
    }
    let scale = 1.0 / libm::sqrt(p as f64);
    let margin = signal * libm::sqrt(p as f64 / sparsity as f64);
    let mut x = vec![0.0; n * p];
    let mut y = Vec::with_capacity(n);
    for column in x.chunks_exact_mut(p) {
        for v in column.iter_mut() {
            let g: f64 = StandardNormal.sample(rng);
            *v = scale * g;
        }
        let p_plus = 1.0 / (1.0 + libm::exp(-margin * dot(&w0, column)));
        let u: f64 = rng.random();
        y.push(if u < p_plus { 1.0 } else { -1.0 });
    }
    Ok((Dataset::from_samples(p, x, y)?, w0))
}
