//! Nesterov's accelerated projected gradient (Lowy & Razaviyayn 2021, Algorithm 4).

use super::{BaseSolver, CertificateConstants, FiniteSum, projected_start, prox_step};

/// Nesterov's accelerated projected gradient for strongly convex F (Lowy & Razaviyayn 2021, Algorithm 4;
/// Bubeck 2015 Thm 3.18 for the unprojected version):
///
/// y_t = prox_{h/ℓ}(w_{t−1} − ∇f(w_{t−1})/ℓ),  w_t = (1 + q)y_t − q·y_{t−1},  q = (√κ − 1)/(√κ + 1),
///
/// with y₀ = w₀ = P_W(0). The proposed point is y_t (always in W). No worst-case iteration count
/// is claimed for the projected method; the
/// certificate decides.
pub struct ProjectedAgd {
    y: Vec<f64>,
    y_prev: Vec<f64>,
    w: Vec<f64>,
    grad: Vec<f64>,
    eta: f64,
    q: f64,
}

impl ProjectedAgd {
    /// Starts at P_W(start).
    pub fn new(obj: &dyn FiniteSum, constants: &CertificateConstants, start: &[f64]) -> Self {
        let d = obj.dim();
        let w = projected_start(obj, start);
        let s = libm::sqrt(constants.condition());
        Self {
            y: w.clone(),
            y_prev: w.clone(),
            w,
            grad: vec![0.0; d],
            eta: 1.0 / constants.smoothness,
            q: (s - 1.0) / (s + 1.0),
        }
    }
}

impl BaseSolver for ProjectedAgd {
    fn name(&self) -> &'static str {
        "projected accelerated gradient descent"
    }
    fn iterate(&mut self, obj: &dyn FiniteSum) -> f64 {
        obj.value_and_gradient(&self.w, &mut self.grad);
        std::mem::swap(&mut self.y_prev, &mut self.y);
        prox_step(obj, self.eta, &self.w, &self.grad, &mut self.y);
        for ((w, y), yp) in self.w.iter_mut().zip(&self.y).zip(&self.y_prev) {
            *w = (1.0 + self.q) * y - self.q * yp;
        }
        1.0
    }
    fn current(&self) -> &[f64] {
        &self.y
    }
}
