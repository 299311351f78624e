//! Projected gradient descent, the certificate's own step and the safeguard of every certified run.

use super::{BaseSolver, CertificateConstants, FiniteSum, projected_start, prox_step};

/// Projected (proximal) gradient descent x ← prox_{h/ℓ}(x − ∇f(x)/ℓ), x₀ = P_W(0).
///
/// Its step is the certificate's step, so inside output perturbation every iteration is one
/// certificate evaluation (1 full pass). Distance to w* contracts by 1 − 1/κ per step (the
/// lemma in the module docs), which gives a worst-case iteration count computed from the
/// declared constants alone (`algo::output_perturbation::gd_iteration_bound`).
pub struct ProjectedGd {
    w: Vec<f64>,
    grad: Vec<f64>,
    next: Vec<f64>,
    eta: f64,
}

impl ProjectedGd {
    /// Starts at P_W(start) with step 1/ℓ.
    pub fn new(obj: &dyn FiniteSum, constants: &CertificateConstants, start: &[f64]) -> Self {
        let d = obj.dim();
        let w = projected_start(obj, start);
        Self {
            w,
            grad: vec![0.0; d],
            next: vec![0.0; d],
            eta: 1.0 / constants.smoothness,
        }
    }
}

impl BaseSolver for ProjectedGd {
    fn name(&self) -> &'static str {
        "projected gradient descent"
    }
    fn iterate(&mut self, obj: &dyn FiniteSum) -> f64 {
        obj.value_and_gradient(&self.w, &mut self.grad);
        prox_step(obj, self.eta, &self.w, &self.grad, &mut self.next);
        std::mem::swap(&mut self.w, &mut self.next);
        1.0
    }
    fn current(&self) -> &[f64] {
        &self.w
    }
    fn adopt_gradient_step(&mut self, x_plus: &[f64]) -> bool {
        self.w.copy_from_slice(x_plus);
        true
    }
}
