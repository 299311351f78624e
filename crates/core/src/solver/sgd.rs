//! One-sample projected SGD with the weighted average (Lowy & Razaviyayn 2021, Algorithm 3's iteration).

use rand::{RngExt, SeedableRng};

use crate::linalg::axpy;
use crate::rng::DpRng;

use super::{BaseSolver, CertificateConstants, FiniteSum, projected_start};

/// One-sample projected SGD for μ-strongly convex ERM, Lowy & Razaviyayn 2021, Algorithm 3 in Bubeck's indexing
/// (Lowy & Razaviyayn 2021): x_{s+1} = prox_{η_s h}(x_s − η_s(∇f_i(x_s) + λ₂x_s)), η_s = 2/(μ(s+1)),
/// i uniform; the proposed point is the weighted average Σ_s 2s/(T(T+1))·x_s.
///
/// Its guarantee E F(x̂_T) − F* ≤ 2L²/(μ(T+1)) is in expectation only, which is why the wrapper
/// never trusts an iteration count for it (Lowy & Razaviyayn 2021). For TERM the one-sample
/// gradient is a biased estimate (the tilt weights need all samples); the certificate still
/// decides, so this only costs time.
pub struct Sgd {
    /// The name for reports; [`super::SolverKind::StochasticSubgradient`] renames the same iteration.
    pub(super) name: &'static str,
    x: Vec<f64>,
    avg: Vec<f64>,
    grad: Vec<f64>,
    mu: f64,
    s: u64,
    rng: DpRng,
}

impl Sgd {
    /// Starts at P_W(start); `seed` keys the sampling of indices.
    pub fn new(
        obj: &dyn FiniteSum,
        constants: &CertificateConstants,
        seed: u64,
        start: &[f64],
    ) -> Self {
        let d = obj.dim();
        let x = projected_start(obj, start);
        Self {
            name: "stochastic gradient descent (weighted average)",
            avg: x.clone(),
            x,
            grad: vec![0.0; d],
            mu: constants.strong_convexity,
            s: 0,
            rng: DpRng::seed_from_u64(seed),
        }
    }
}

impl BaseSolver for Sgd {
    fn name(&self) -> &'static str {
        self.name
    }
    fn iterate(&mut self, obj: &dyn FiniteSum) -> f64 {
        let n = obj.terms();
        let i = self.rng.random_range(0..n.max(1));
        self.s += 1;
        let s = self.s as f64;
        let eta = 2.0 / (self.mu * (s + 1.0));
        obj.term_gradient(&self.x, i, &mut self.grad);
        axpy(-eta, &self.grad, &mut self.x);
        obj.prox(eta, &mut self.x);
        // avg_s = avg_{s−1}·(s−1)/(s+1) + x_s·2/(s+1): the weights 2s/(T(T+1)) online.
        for (a, x) in self.avg.iter_mut().zip(&self.x) {
            *a = *a * (s - 1.0) / (s + 1.0) + x * 2.0 / (s + 1.0);
        }
        1.0 / n.max(1) as f64
    }
    fn current(&self) -> &[f64] {
        &self.avg
    }
}
