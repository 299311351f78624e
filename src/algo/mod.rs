//! The private algorithms. Each states its [`Guarantee`] from the configuration alone before it
//! touches data, then runs in steps; only its final release is private.

pub mod byoa;
pub mod dp_accmd;
pub mod dp_sgd;
pub mod dp_svrg;
pub mod exponential_grid;
pub mod noisy_gd;
pub mod objective_perturbation;
pub mod output_perturbation;

use crate::objective::Objective;
use crate::privacy::{Guarantee, Ledger};

/// What one step did; all of it is computed from the private data and is **not private**.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepReport {
    /// Index of the iterate the step started from (0-based).
    pub t: usize,
    /// Gradient evaluations used so far, counted in per-sample gradients / n (i.e. in full passes).
    pub grad_evals: f64,
    /// F at the iterate the step started from. Stochastic algorithms (DP-SGD) report the
    /// minibatch estimate instead, since a full pass per step would cost n/b steps' work.
    pub loss: f64,
    /// ‖noise‖₂ added in this step, in the units of the gradient it perturbs.
    pub noise_norm: f64,
    /// ‖∇F‖₂ at the iterate the step started from (DP-SGD: of the clipped minibatch gradient,
    /// before noise).
    pub grad_norm: f64,
    /// ε (at the run's δ) of everything released so far: the privacy spent after this step.
    /// Computed from the configuration alone, like the guarantee it ends at.
    pub epsilon_spent: f64,
}

/// A differentially private optimiser, advanced one step at a time by a session.
pub trait PrivateAlgorithm: Send {
    /// The guarantee of the release, fixed at construction from the configuration alone.
    fn guarantee(&self) -> &Guarantee;
    /// The guarantee with the mechanism and every caveat it depends on.
    fn ledger(&self) -> Ledger;
    /// Performs one step, or returns `None` once the algorithm has finished.
    fn step(&mut self, objective: &Objective) -> Option<StepReport>;
    /// The current iterate (non-private until the algorithm is done, then it is the release).
    fn current(&self) -> &[f64];
    /// Whether the current iterate is the release.
    fn is_done(&self) -> bool;
    /// Gradient evaluations used so far, in full passes over the data.
    fn grad_evals(&self) -> f64;
    /// For algorithms that release only after an accuracy certificate (output perturbation): the
    /// latest certificate value against its threshold. **Non-private** (computed from the data).
    fn certificate(&self) -> Option<CertificateStatus> {
        None
    }
}

/// Where an accuracy certificate stands (non-private: it is computed from the data).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct CertificateStatus {
    /// Certified upper bound on ‖w − w*‖ at the latest check.
    pub bound: f64,
    /// The bound the release needs (√(2α/μ) for seed 000 Algorithm 1).
    pub threshold: f64,
    /// ℓ2 sensitivity the noise is calibrated to (Δ_T), fixed from the configuration.
    pub sensitivity: f64,
    /// Whether the certificate held and the release happened.
    pub met: bool,
}
