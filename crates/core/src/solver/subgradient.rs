//! The projected subgradient method with the best iterate (Lowy & Razaviyayn 2021, Algorithm 2).

use crate::linalg::axpy;
use crate::objective::Rise;

use super::{BaseSolver, CertificateConstants, FiniteSum, projected_start};

/// The projected subgradient method with the best iterate, Lowy & Razaviyayn 2021, Algorithm 2 (ABD17 Prop 5.3):
/// w_t = P_W(w_{t−1} − η_{t−1}g_{t−1}), g ∈ ∂F(w_{t−1}), η_t = 2/(μ(t+1)), proposing
/// argmin_t F(w_t) over the iterates seen. The argmin compares the rises F(w_t) − F(0)
/// ([`FiniteSum::rise_and_gradient`], sums of per-record differences), not the values F(w_t): with
/// one huge record the computed values are constant in w, the "best" iterate would then be the
/// first one whatever the other records say, and the release would move by far more than Δ_T
/// between neighbours (9.3·Δ_T on a pair with one target of 1e18). Prop 3.2: after T = 2L_F²/(μα) steps (L_F bounding the
/// subgradients of F on W, ridge included) the best of w_1..w_T is α-accurate, **deterministically**:
/// the theorem is its certificate (`algo::output_perturbation` runs it T + 1 times, the last
/// call only evaluating w_T). Each iteration evaluates F and a subgradient at the current point (one
/// full pass). The ℓ1 term is not supported (its subgradient would enter L_F).
pub struct SubgradientBest {
    w: Vec<f64>,
    grad: Vec<f64>,
    best: Vec<f64>,
    /// F(best) − F(0), the rise the argmin compares.
    best_rise: f64,
    last_value: f64,
    mu: f64,
    t: u64,
}

impl SubgradientBest {
    /// Starts at P_W(start).
    pub fn new(obj: &dyn FiniteSum, constants: &CertificateConstants, start: &[f64]) -> Self {
        let d = obj.dim();
        let w = projected_start(obj, start);
        Self {
            best: w.clone(),
            w,
            grad: vec![0.0; d],
            best_rise: f64::INFINITY,
            last_value: f64::NAN,
            mu: constants.strong_convexity,
            t: 0,
        }
    }
}

impl BaseSolver for SubgradientBest {
    fn name(&self) -> &'static str {
        "projected subgradient method (best iterate)"
    }
    fn iterate(&mut self, obj: &dyn FiniteSum) -> f64 {
        let Rise { value, rise } = obj.rise_and_gradient(&self.w, &mut self.grad);
        self.last_value = value;
        if rise < self.best_rise {
            self.best_rise = rise;
            self.best.copy_from_slice(&self.w);
        }
        self.t += 1;
        let eta = 2.0 / (self.mu * (self.t as f64 + 1.0));
        axpy(-eta, &self.grad, &mut self.w);
        obj.project(&mut self.w);
        1.0
    }
    fn current(&self) -> &[f64] {
        &self.best
    }
    fn last_value(&self) -> Option<f64> {
        Some(self.last_value)
    }
}
