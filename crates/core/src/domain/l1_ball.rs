use super::{Domain, simplex_threshold};

/// The ℓ1 ball {w : ‖w‖₁ ≤ radius}; projection by the exact sort-based threshold (Duchi et al. 2008,
/// Wang, Ye & Xu 2017): w_j = sign(y_j)·max(|y_j| − θ, 0).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct L1Ball {
    pub radius: f64,
}

impl Domain for L1Ball {
    fn name(&self) -> &'static str {
        "l1_ball"
    }

    fn project(&self, w: &mut [f64]) {
        let l1: f64 = w.iter().map(|v| v.abs()).sum();
        if l1 <= self.radius {
            return;
        }
        let theta = simplex_threshold(w.iter().map(|v| v.abs()), self.radius);
        for v in w.iter_mut() {
            *v = crate::loss::soft(*v, theta);
        }
    }

    fn contains(&self, w: &[f64], tol: f64) -> bool {
        w.iter().map(|v| v.abs()).sum::<f64>() <= self.radius * (1.0 + tol)
    }

    /// ±R·e₁ are 2R apart.
    fn diameter(&self) -> f64 {
        2.0 * self.radius
    }

    fn radius(&self) -> f64 {
        self.radius
    }

    /// A linear function minus λ₁‖w‖₁ = λ₁R on the boundary peaks at a vertex ±R·e_j:
    /// R·max(‖v‖_∞ − λ₁, 0).
    fn support_l1(&self, v: &[f64], l1: f64) -> f64 {
        let vmax = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        self.radius * (vmax - l1).max(0.0)
    }
}
