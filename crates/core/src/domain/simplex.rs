use super::{Domain, simplex_threshold};

/// The probability simplex {w ≥ 0, Σ w_j = 1}. Projection: w = max(u − θ, 0) with θ from the sorted
/// input (Zhang et al. 2022; the paper subtracts θ from the sorted vector, we subtract it from the
/// unsorted u, as the projection requires).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Simplex;

impl Domain for Simplex {
    fn name(&self) -> &'static str {
        "simplex"
    }

    fn project(&self, w: &mut [f64]) {
        if w.is_empty() {
            return;
        }
        // The threshold rule holds for any real input (θ may be negative).
        let theta = simplex_threshold(w.iter().copied(), 1.0);
        for v in w.iter_mut() {
            *v = (*v - theta).max(0.0);
        }
    }

    fn contains(&self, w: &[f64], tol: f64) -> bool {
        w.iter().all(|&v| v >= -tol)
            && (w.iter().sum::<f64>() - 1.0).abs() <= tol.max(1e-15) * w.len().max(1) as f64
    }

    /// Two vertices are √2 apart.
    fn diameter(&self) -> f64 {
        std::f64::consts::SQRT_2
    }

    fn radius(&self) -> f64 {
        1.0
    }

    /// ‖w‖₁ = 1 on the simplex, so prox of θ‖·‖₁ + I_Δ is the plain projection.
    fn prox_l1(&self, w: &mut [f64], _theta: f64) {
        self.project(w);
    }

    /// max_j v_j − λ₁ (at a vertex).
    fn support_l1(&self, v: &[f64], l1: f64) -> f64 {
        v.iter().fold(f64::NEG_INFINITY, |m, &x| m.max(x)) - l1
    }
}
