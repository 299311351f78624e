//! Constraint sets with exact Euclidean projections.
//!
//! Besides projection, membership and diameter, each set answers the two questions the reference
//! solver's certificate needs (see `reference`): the prox of λ₁‖·‖₁ + I_W, and the
//! conjugate sup_{w∈W} ⟨v, w⟩ − λ₁‖w‖₁ − (λ₂/2)‖w‖².

mod ball_box;
mod box_set;
mod l1_ball;
mod l2_ball;
mod simplex;

pub use ball_box::BallBox;
pub use box_set::BoxSet;
pub use l1_ball::L1Ball;
pub use l2_ball::L2Ball;
pub use simplex::Simplex;

use std::cell::RefCell;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::loss::soft;

/// A closed convex set W ⊆ R^d.
pub trait Domain: Send + Sync {
    /// A short stable name (used in configs and URLs).
    fn name(&self) -> &'static str;
    /// w ← argmin_{v ∈ W} ‖v − w‖₂.
    fn project(&self, w: &mut [f64]);
    /// Whether w ∈ W, up to a relative slack `tol`.
    fn contains(&self, w: &[f64], tol: f64) -> bool;
    /// sup_{u, v ∈ W} ‖u − v‖₂ (∞ for unbounded sets). Sets whose size grows with the dimension
    /// (boxes) answer through [`Domain::diameter_in`].
    fn diameter(&self) -> f64;
    /// sup_{w ∈ W} ‖w‖₂: the "domain radius" that constants such as Lipschitz bounds are stated for.
    fn radius(&self) -> f64;
    /// The diameter of W ⊆ R^d.
    fn diameter_in(&self, _d: usize) -> f64 {
        self.diameter()
    }
    /// The radius of W ⊆ R^d.
    fn radius_in(&self, _d: usize) -> f64 {
        self.radius()
    }
    /// w ← prox of θ‖·‖₁ + I_W = P_W(soft(w, θ)). The composition is exact for the ℓ2 ball (the
    /// ball indicator is a radial function, Yu 2013), the ℓ1 ball (both are soft thresholds),
    /// boxes (separable) and R^d; the simplex overrides it (‖·‖₁ is constant there).
    fn prox_l1(&self, w: &mut [f64], theta: f64) {
        if theta > 0.0 {
            w.iter_mut().for_each(|v| *v = soft(*v, theta));
        }
        self.project(w);
    }
    /// sup_{w ∈ W} ⟨v, w⟩ − l1‖w‖₁ (l2 = 0 case of [`Domain::conjugate`]); may be +∞.
    fn support_l1(&self, v: &[f64], l1: f64) -> f64;
    /// g*(v) for g = l1‖·‖₁ + (l2/2)‖·‖² + I_W, with `buf` (len d) as scratch: for l2 > 0 the
    /// maximiser is prox_{g/l2}(v/l2), evaluated in closed form; for l2 = 0 it is
    /// [`Domain::support_l1`].
    fn conjugate(&self, v: &[f64], l1: f64, l2: f64, buf: &mut [f64]) -> f64 {
        if l2 > 0.0 {
            for (b, vi) in buf.iter_mut().zip(v) {
                *b = vi / l2;
            }
            self.prox_l1(buf, l1 / l2);
            let mut val = 0.0;
            for (b, vi) in buf.iter().zip(v) {
                val += vi * b - l1 * b.abs() - 0.5 * l2 * b * b;
            }
            val
        } else {
            self.support_l1(v, l1)
        }
    }
}

/// R^d: no constraint. Diameter ∞: a reference solution on it is certified through strong
/// convexity (λ₂ > 0), see `reference`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Unconstrained;

impl Domain for Unconstrained {
    fn name(&self) -> &'static str {
        "unconstrained"
    }
    fn project(&self, _w: &mut [f64]) {}
    fn contains(&self, w: &[f64], _tol: f64) -> bool {
        w.iter().all(|v| v.is_finite())
    }
    fn diameter(&self) -> f64 {
        f64::INFINITY
    }
    fn radius(&self) -> f64 {
        f64::INFINITY
    }
    fn support_l1(&self, v: &[f64], l1: f64) -> f64 {
        if v.iter().all(|x| x.abs() <= l1) {
            0.0
        } else {
            f64::INFINITY
        }
    }
}

/// The domains, as named in configs: `{"kind": "l1_ball", "radius": 2.0}`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DomainKind {
    L2Ball {
        radius: f64,
    },
    L1Ball {
        radius: f64,
    },
    Simplex,
    Box {
        lo: f64,
        hi: f64,
    },
    Unconstrained,
    /// An ℓ2 ball times a box over the last `boxed` coordinates ([`BallBox`]); posed by AUC
    /// maximisation, not offered as a minimisation domain.
    BallBox {
        radius: f64,
        half_width: f64,
        boxed: usize,
    },
}

macro_rules! with_domain {
    ($k:expr, $d:ident => $body:expr) => {
        match *$k {
            DomainKind::L2Ball { radius } => {
                let $d = L2Ball { radius };
                $body
            }
            DomainKind::L1Ball { radius } => {
                let $d = L1Ball { radius };
                $body
            }
            DomainKind::Simplex => {
                let $d = Simplex;
                $body
            }
            DomainKind::Box { lo, hi } => {
                let $d = BoxSet { lo, hi };
                $body
            }
            DomainKind::Unconstrained => {
                let $d = Unconstrained;
                $body
            }
            DomainKind::BallBox {
                radius,
                half_width,
                boxed,
            } => {
                let $d = BallBox {
                    radius,
                    half_width,
                    boxed,
                };
                $body
            }
        }
    };
}

impl DomainKind {
    /// One of each kind (tests and menus).
    pub fn examples() -> [DomainKind; 5] {
        [
            DomainKind::L2Ball { radius: 2.0 },
            DomainKind::L1Ball { radius: 2.0 },
            DomainKind::Simplex,
            DomainKind::Box { lo: -0.5, hi: 0.5 },
            DomainKind::Unconstrained,
        ]
    }

    /// Checks the parameters.
    pub fn validate(&self) -> Result<()> {
        match *self {
            DomainKind::L2Ball { radius } | DomainKind::L1Ball { radius } => {
                if radius.is_finite() && radius > 0.0 {
                    Ok(())
                } else {
                    // At the page's radius control, from which every radius is set
                    // ("domain.radius" named the domain menu for a game's radius).
                    Err(Error::invalid("radius", "a finite number > 0", radius))
                }
            }
            DomainKind::Box { lo, hi } => {
                if lo.is_finite() && hi.is_finite() && lo < hi {
                    Ok(())
                } else {
                    Err(Error::invalid(
                        "domain.box",
                        "finite bounds with lo < hi",
                        format!("[{lo}, {hi}]"),
                    ))
                }
            }
            DomainKind::BallBox {
                radius, half_width, ..
            } => {
                if radius.is_finite() && radius > 0.0 && half_width.is_finite() && half_width > 0.0
                {
                    Ok(())
                } else {
                    Err(Error::invalid(
                        "radius",
                        "a finite ball radius and box half-width > 0",
                        format!("{radius}, {half_width}"),
                    ))
                }
            }
            DomainKind::Simplex | DomainKind::Unconstrained => Ok(()),
        }
    }

    /// A boxed trait object (what `objective::Objective::new` takes).
    pub fn boxed(&self) -> Box<dyn Domain> {
        with_domain!(self, d => Box::new(d))
    }
}

impl Domain for DomainKind {
    fn name(&self) -> &'static str {
        with_domain!(self, d => d.name())
    }
    fn project(&self, w: &mut [f64]) {
        with_domain!(self, d => d.project(w))
    }
    fn contains(&self, w: &[f64], tol: f64) -> bool {
        with_domain!(self, d => d.contains(w, tol))
    }
    fn diameter(&self) -> f64 {
        with_domain!(self, d => d.diameter())
    }
    fn radius(&self) -> f64 {
        with_domain!(self, d => d.radius())
    }
    fn diameter_in(&self, n: usize) -> f64 {
        with_domain!(self, d => d.diameter_in(n))
    }
    fn radius_in(&self, n: usize) -> f64 {
        with_domain!(self, d => d.radius_in(n))
    }
    fn prox_l1(&self, w: &mut [f64], theta: f64) {
        with_domain!(self, d => d.prox_l1(w, theta))
    }
    fn support_l1(&self, v: &[f64], l1: f64) -> f64 {
        with_domain!(self, d => d.support_l1(v, l1))
    }
}

/// The threshold θ with Σ max(uᵢ − θ, 0) = z > 0 (sort-based, exact; Duchi et al. 2008): with u
/// sorted in decreasing order, θ = (Σ_{i≤ρ} uᵢ − z)/ρ for the largest ρ with u_ρ > that value.
/// `u` is copied into a reused per-thread buffer and sorted in place: O(d log d), no allocation
/// once the buffer has grown to d (`tests/problem_alloc.rs`).
pub(crate) fn simplex_threshold(u: impl Iterator<Item = f64>, z: f64) -> f64 {
    // The sorted copy lives in a per-thread buffer that is kept between calls, so a projection
    // inside an iteration allocates nothing once the buffer has reached the dimension (the
    // callers' `project(&mut w)` stays as it is). Nothing here calls back into this function,
    // so the buffer is never borrowed twice.
    thread_local! {
        static SORTED: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
    }
    SORTED.with_borrow_mut(|s| {
        s.clear();
        s.extend(u);
        s.sort_unstable_by(|a, b| b.total_cmp(a));
        let mut cumsum = 0.0;
        let mut theta = 0.0;
        for (k, &uk) in s.iter().enumerate() {
            cumsum += uk;
            let t = (cumsum - z) / (k + 1) as f64;
            if uk > t {
                theta = t;
            } else {
                break;
            }
        }
        theta
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::dist2;
    use crate::rng::{Stream, seeded};
    use rand::RngExt;

    /// Seeded property test over all domains: feasible, idempotent, non-expansive, and the
    /// projection beats random feasible points (it is the nearest point).
    #[test]
    fn projections_are_feasible_idempotent_nonexpansive_and_nearest() {
        let mut rng = seeded(17, Stream::Noise);
        for dom in DomainKind::examples() {
            for d in [1usize, 2, 3, 7, 20] {
                for _ in 0..300 {
                    let scale = [0.1, 1.0, 10.0][rng.random_range(0..3)];
                    let a0: Vec<f64> = (0..d)
                        .map(|_| scale * (rng.random::<f64>() * 2.0 - 1.0))
                        .collect();
                    let b0: Vec<f64> = (0..d)
                        .map(|_| scale * (rng.random::<f64>() * 2.0 - 1.0))
                        .collect();
                    let (mut a, mut b) = (a0.clone(), b0.clone());
                    dom.project(&mut a);
                    dom.project(&mut b);
                    assert!(dom.contains(&a, 1e-12), "{dom:?} infeasible {a:?}");
                    // Non-expansive; 1e-12 absorbs rounding at scale ≤ 10.
                    assert!(dist2(&a, &b) <= dist2(&a0, &b0) + 1e-12, "{dom:?}");
                    let mut again = a.clone();
                    dom.project(&mut again);
                    assert!(
                        dist2(&again, &a) <= 1e-13 * (1.0 + scale),
                        "{dom:?} not idempotent"
                    );
                    // Nearest point: the projection of b0 onto W is no closer to a0 than P(a0).
                    assert!(
                        dist2(&a0, &a) <= dist2(&a0, &b) + 1e-12,
                        "{dom:?} not nearest"
                    );
                }
            }
        }
    }

    #[test]
    fn diameters_and_radii() {
        assert_eq!(DomainKind::L2Ball { radius: 2.0 }.diameter(), 4.0);
        assert_eq!(DomainKind::L1Ball { radius: 2.0 }.diameter(), 4.0);
        assert_eq!(DomainKind::Simplex.diameter(), std::f64::consts::SQRT_2);
        assert_eq!(DomainKind::Box { lo: -0.5, hi: 0.5 }.diameter_in(4), 2.0);
        assert_eq!(DomainKind::Box { lo: -0.5, hi: 1.0 }.radius_in(4), 2.0);
        assert!(DomainKind::Unconstrained.diameter().is_infinite());
    }

    /// g*(v) ≥ ⟨v, w⟩ − g(w) for every feasible w (Fenchel–Young), with equality at the maximiser:
    /// checked against random feasible points and a brute-force maximum in 1-D.
    #[test]
    fn conjugate_dominates_every_feasible_point() {
        let mut rng = seeded(23, Stream::Noise);
        let d = 5;
        let mut buf = vec![0.0; d];
        for dom in DomainKind::examples() {
            for &(l1, l2) in &[(0.0, 0.5), (0.3, 0.0), (0.2, 1.0), (0.0, 0.0)] {
                for _ in 0..50 {
                    let v: Vec<f64> = (0..d).map(|_| 2.0 * rng.random::<f64>() - 1.0).collect();
                    let c = dom.conjugate(&v, l1, l2, &mut buf);
                    for _ in 0..50 {
                        let mut w: Vec<f64> =
                            (0..d).map(|_| 3.0 * rng.random::<f64>() - 1.5).collect();
                        dom.project(&mut w);
                        let g = l1 * w.iter().map(|x| x.abs()).sum::<f64>()
                            + 0.5 * l2 * crate::linalg::dot(&w, &w);
                        assert!(
                            c >= crate::linalg::dot(&v, &w) - g - 1e-12,
                            "{dom:?} {l1} {l2}"
                        );
                    }
                }
            }
        }
        // 1-D brute force on a fine grid of the box [−0.5, 0.5].
        let dom = DomainKind::Box { lo: -0.5, hi: 0.5 };
        for &(v, l1, l2) in &[
            (0.7, 0.2, 0.0),
            (-0.1, 0.2, 0.0),
            (0.9, 0.1, 3.0),
            (-2.0, 0.0, 1.0),
        ] {
            let c = dom.conjugate(&[v], l1, l2, &mut [0.0]);
            let brute = (0..=100_000)
                .map(|k| -0.5 + k as f64 * 1e-5)
                .map(|w| v * w - l1 * w.abs() - 0.5 * l2 * w * w)
                .fold(f64::NEG_INFINITY, f64::max);
            assert!((c - brute).abs() < 1e-9, "{v} {l1} {l2}: {c} vs {brute}");
        }
    }
}
