//! The empirical risk F(w) = (1/n) Σᵢ φ(⟨w, xᵢ⟩, yᵢ) + (λ/2)‖w‖² over a domain W.

use std::sync::Arc;

use crate::data::Dataset;
use crate::domain::Domain;
use crate::linalg::{axpy, dot};
use crate::loss::GlmLoss;

/// Data + loss + ℓ2 regulariser + domain, with the constants declared for them.
///
/// The dataset is shared, never copied: the objective is cheap to build beside a running algorithm.
pub struct Objective {
    data: Arc<Dataset>,
    loss: Box<dyn GlmLoss>,
    /// λ ≥ 0 in (λ/2)‖w‖²; F is λ-strongly convex.
    l2: f64,
    domain: Box<dyn Domain>,
    /// Declared bound on ‖x‖ (the data were clipped to it).
    feature_bound: f64,
}

impl Objective {
    pub fn new(
        data: Arc<Dataset>,
        loss: Box<dyn GlmLoss>,
        l2: f64,
        domain: Box<dyn Domain>,
        feature_bound: f64,
    ) -> Self {
        Self {
            data,
            loss,
            l2,
            domain,
            feature_bound,
        }
    }

    pub fn data(&self) -> &Dataset {
        &self.data
    }

    pub fn domain(&self) -> &dyn Domain {
        self.domain.as_ref()
    }

    pub fn dim(&self) -> usize {
        self.data.d()
    }

    /// G: bound on the per-sample gradient norm of the **data** term over the domain. The
    /// regulariser's gradient is the same for every record, so it never counts towards sensitivity
    /// (digest 002 §7.2).
    pub fn lipschitz(&self) -> f64 {
        self.loss
            .lipschitz(self.feature_bound, self.domain.radius())
    }

    /// β: smoothness of F (data term plus regulariser).
    pub fn smoothness(&self) -> f64 {
        self.loss.smoothness(self.feature_bound) + self.l2
    }

    /// F(w).
    pub fn value(&self, w: &[f64]) -> f64 {
        let n = self.data.n() as f64;
        let data_term: f64 = self
            .data
            .samples()
            .map(|(x, y)| self.loss.value(dot(w, x), y))
            .sum();
        data_term / n + 0.5 * self.l2 * dot(w, w)
    }

    /// Writes ∇F(w) into `grad` and returns F(w), in one pass over the data: per sample one dot
    /// product, one scalar derivative and one axpy (DESIGN.md §7).
    pub fn value_and_gradient(&self, w: &[f64], grad: &mut [f64]) -> f64 {
        let n = self.data.n() as f64;
        grad.fill(0.0);
        let mut data_term = 0.0;
        for (x, y) in self.data.samples() {
            let (v, g) = self.loss.value_and_derivative(dot(w, x), y);
            data_term += v;
            axpy(g, x, grad);
        }
        for (gj, wj) in grad.iter_mut().zip(w) {
            *gj = *gj / n + self.l2 * wj;
        }
        data_term / n + 0.5 * self.l2 * dot(w, w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{ClassificationSpec, generate_classification};
    use crate::domain::L2Ball;
    use crate::loss::Logistic;
    use crate::rng::{Stream, seeded};

    #[test]
    fn gradient_matches_finite_differences() {
        let spec = ClassificationSpec {
            n: 200,
            d: 5,
            feature_scale: 0.7,
            signal: 3.0,
        };
        let data = generate_classification(&spec, &mut seeded(1, Stream::Data)).unwrap();
        let obj = Objective::new(
            Arc::new(data),
            Box::new(Logistic),
            0.1,
            Box::new(L2Ball { radius: 5.0 }),
            1.0,
        );
        let w = vec![0.3, -0.2, 0.5, 1.0, -0.7];
        let mut g = vec![0.0; 5];
        let f = obj.value_and_gradient(&w, &mut g);
        assert!((f - obj.value(&w)).abs() < 1e-14);
        for j in 0..5 {
            let h = 1e-6;
            let (mut wp, mut wm) = (w.clone(), w.clone());
            wp[j] += h;
            wm[j] -= h;
            let fd = (obj.value(&wp) - obj.value(&wm)) / (2.0 * h);
            assert!((g[j] - fd).abs() < 1e-8, "coordinate {j}: {} vs {fd}", g[j]);
        }
    }
}
