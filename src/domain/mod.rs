//! Constraint sets with exact Euclidean projections.

mod l2_ball;

pub use l2_ball::L2Ball;

/// A closed convex set W ⊆ R^d.
pub trait Domain: Send + Sync {
    /// A short stable name (used in configs and URLs).
    fn name(&self) -> &'static str;
    /// w ← argmin_{v ∈ W} ‖v − w‖₂.
    fn project(&self, w: &mut [f64]);
    /// Whether w ∈ W, up to a relative slack `tol`.
    fn contains(&self, w: &[f64], tol: f64) -> bool;
    /// sup_{u, v ∈ W} ‖u − v‖₂ (∞ for unbounded sets).
    fn diameter(&self) -> f64;
    /// sup_{w ∈ W} ‖w‖₂: the "domain radius" that constants such as Lipschitz bounds are stated for.
    fn radius(&self) -> f64;
}
