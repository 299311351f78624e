//! Per-sample losses. Generalised linear losses f(w; x, y) = φ(⟨w, x⟩, y) expose the scalar
//! derivative φ'(t, y) so that one fused kernel ([`crate::objective`]) serves all of them.

mod logistic;

pub use logistic::Logistic;

/// A loss of the form f(w; x, y) = φ(⟨w, x⟩, y).
///
/// The declared constants are stated for features with ‖x‖ ≤ `feature_bound` (enforced by
/// data-independent clipping) and parameters with ‖w‖ ≤ `radius`; they set the privacy noise, so they
/// must never be measured from the data.
pub trait GlmLoss: Send + Sync {
    /// A short stable name (used in configs and URLs).
    fn name(&self) -> &'static str;
    /// φ(t, y).
    fn value(&self, t: f64, y: f64) -> f64;
    /// ∂φ/∂t at (t, y).
    fn derivative(&self, t: f64, y: f64) -> f64;
    /// φ(t, y) and ∂φ/∂t together (one exp instead of two for most losses).
    fn value_and_derivative(&self, t: f64, y: f64) -> (f64, f64) {
        (self.value(t, y), self.derivative(t, y))
    }
    /// G with ‖∇f(w; x, y)‖ ≤ G for all ‖x‖ ≤ feature_bound and ‖w‖ ≤ radius.
    fn lipschitz(&self, feature_bound: f64, radius: f64) -> f64;
    /// β with ∇f(·; x, y) β-Lipschitz for all ‖x‖ ≤ feature_bound.
    fn smoothness(&self, feature_bound: f64) -> f64;
}
