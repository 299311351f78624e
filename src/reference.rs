//! The non-private reference optimum w*, F* = F(w*), with a certificate of its accuracy.
//!
//! Everything here reads the raw data: it exists to measure excess risk for the plots and is
//! **not private**.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::linalg::dist2;
use crate::objective::Objective;

/// A solution and the evidence of how good it is.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reference {
    pub w: Vec<f64>,
    /// F(w), an upper bound on F*.
    pub value: f64,
    /// Certified bound on F(w) − F*: ‖G_η(y)‖·D, where G_η is the gradient mapping at the point whose
    /// projected-gradient step produced `w` and D is the domain diameter.
    pub gap_bound: f64,
    /// Gradient evaluations used.
    pub grad_evals: usize,
}

/// Projected accelerated gradient (FISTA with gradient-based adaptive restart) until the certified
/// optimality gap is below `tol · max(1, |F|)`.
///
/// Certificate: with η = 1/β and w⁺ = P_W(y − η∇F(y)), convexity and smoothness give, for every
/// u ∈ W, F(w⁺) − F(u) ≤ ⟨G_η(y), y − u⟩ − (η/2)‖G_η(y)‖² ≤ ‖G_η(y)‖·‖y − u‖ (Beck, *First-Order
/// Methods in Optimization*, Thm 10.16 with its proof), and ‖y − w*‖ ≤ diam W.
pub fn solve(obj: &Objective, tol: f64, max_iters: usize) -> Result<Reference> {
    let d = obj.dim();
    let eta = 1.0 / obj.smoothness();
    let diameter = obj.domain().diameter();
    let mut w = vec![0.0; d];
    obj.domain().project(&mut w);
    let mut y = w.clone();
    let mut w_next = vec![0.0; d];
    let mut grad = vec![0.0; d];
    let mut theta = 1.0f64;
    for iter in 1..=max_iters {
        obj.value_and_gradient(&y, &mut grad);
        for j in 0..d {
            w_next[j] = y[j] - eta * grad[j];
        }
        obj.domain().project(&mut w_next);
        let mapping_norm = dist2(&y, &w_next) / eta;
        let value = obj.value(&w_next);
        if !value.is_finite() {
            return Err(Error::NonFinite {
                what: "reference objective",
            });
        }
        let gap_bound = mapping_norm * diameter;
        if gap_bound <= tol * value.abs().max(1.0) {
            return Ok(Reference {
                w: w_next,
                value,
                gap_bound,
                grad_evals: iter,
            });
        }
        // Restart momentum when it points uphill (O'Donoghue & Candès 2015, gradient scheme).
        let uphill: f64 = (0..d)
            .map(|j| (y[j] - w_next[j]) * (w_next[j] - w[j]))
            .sum();
        if uphill > 0.0 {
            theta = 1.0;
        }
        let theta_next = 0.5 * (1.0 + (1.0 + 4.0 * theta * theta).sqrt());
        let momentum = (theta - 1.0) / theta_next;
        for j in 0..d {
            y[j] = w_next[j] + momentum * (w_next[j] - w[j]);
        }
        obj.domain().project(&mut y);
        std::mem::swap(&mut w, &mut w_next);
        theta = theta_next;
    }
    Err(Error::invalid(
        "reference",
        format!("a certified optimum within {max_iters} iterations"),
        "no convergence",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{ClassificationSpec, generate_classification};
    use crate::domain::L2Ball;
    use crate::loss::Logistic;
    use crate::rng::{Stream, seeded};
    use std::sync::Arc;

    fn objective(radius: f64) -> Objective {
        let spec = ClassificationSpec {
            n: 2000,
            d: 4,
            feature_scale: 0.5,
            signal: 4.0,
        };
        let data = generate_classification(&spec, &mut seeded(11, Stream::Data)).unwrap();
        Objective::new(
            Arc::new(data),
            Box::new(Logistic),
            0.0,
            Box::new(L2Ball { radius }),
            1.0,
        )
    }

    #[test]
    fn certificate_holds_and_no_feasible_point_does_better() {
        for radius in [0.5, 20.0] {
            let obj = objective(radius);
            let r = solve(&obj, 1e-10, 200_000).unwrap();
            assert!(obj.domain().contains(&r.w, 1e-12));
            assert!(r.gap_bound <= 1e-10);
            // Probe many feasible points: none may beat F(w) − gap_bound.
            let mut probe = r.w.clone();
            for k in 0..200 {
                for (j, p) in probe.iter_mut().enumerate() {
                    *p = r.w[j] + 1e-3 * (((k * 7 + j * 13) % 17) as f64 - 8.0);
                }
                obj.domain().project(&mut probe);
                assert!(obj.value(&probe) >= r.value - r.gap_bound);
            }
        }
    }

    #[test]
    fn small_ball_is_active_and_large_ball_is_not() {
        let small = solve(&objective(0.5), 1e-10, 200_000).unwrap();
        assert!((crate::linalg::norm2(&small.w) - 0.5).abs() < 1e-9);
        let large = solve(&objective(20.0), 1e-10, 200_000).unwrap();
        assert!(crate::linalg::norm2(&large.w) < 19.0);
    }
}
