//! [`Settings`]: the typed, resolved inputs a family's plan reads, with no page concerns (no link
//! format, no data generation, no seed, no compared algorithms). `config::settings` builds them
//! from a run's configuration, in one place; the declared problem (n, d, loss, regulariser,
//! domain, feature bound) travels beside them in a [`crate::algo::problem::ProblemDeclaration`].

use super::choices::SvrgNoiseChoice;
use super::family::ProblemKind;
use super::heavy_tails::HeavySolver;
use super::kinds::AlgorithmKind;
use crate::minimax::GameDeclaration;
use crate::minimax::solvers::SaddleSolverKind;
use crate::privacy::Relation;
use crate::privacy::calibration::GaussianMethod;
use crate::solver::SolverKind;

/// The privacy budget of one lane: the whole run's (ε, δ) and the neighbouring relation it is
/// stated under.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// ε of the whole run, in [1e-4, 100].
    pub epsilon: f64,
    /// δ of the whole run; 0 asks for pure ε-DP (the families that offer it).
    pub delta: f64,
    /// Which datasets are neighbours: replace one record, or add or remove one.
    pub relation: Relation,
}

/// The saddle problem a lane plans for, resolved from the game menu (`problem: saddle` only).
#[derive(Debug, Clone, PartialEq)]
pub struct GameSettings {
    /// The game's size, sets, declared constants and leak, before any record is drawn.
    pub declaration: GameDeclaration,
    /// The game's name as its menu shows it (for errors that ask for another game).
    pub label: String,
    /// B, the declared bound on |f(x, y; ξ)| over the two sets: the range of the scores of
    /// González, Guzmán & Paquette 2024, Algorithm 4's selection.
    pub value_bound: f64,
    /// Whether its moduli μₓ, μᵧ are its own (AUC maximisation), not the `mu_x`, `mu_y` settings.
    pub own_moduli: bool,
}

/// The norm moments (E‖x‖^j)^(1/j) of the synthetic features, before clipping (Lowy 2026's
/// G_j divided by the loss's slope bound): a declared constant of the data's law.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FeatureMoments {
    /// j = k, the settings' moment order.
    pub k: f64,
    /// j = 2.
    pub two: f64,
}

/// The typed settings one lane's family plans from: each is a setting of the page's, resolved
/// (a blank optional one stays `None`, and the family takes its theory default).
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The lane's algorithm.
    pub kind: AlgorithmKind,
    /// The kind of problem posed: a minimisation or a saddle point.
    pub problem: ProblemKind,
    /// (ε, δ) and the neighbouring relation.
    pub budget: Budget,
    /// Gaussian calibration of a single release (output perturbation): ZWB+19, the analytic one
    /// (Balle & Wang 2018) or the classical one.
    pub gaussian: GaussianMethod,
    /// Iterations T: noisy steps (DP-GD, DP-SGD), epochs (DP-SVRG), phases or calls as each family
    /// names them.
    pub steps: usize,
    /// Step size η; `None` takes the family's theory default.
    pub step_size: Option<f64>,
    /// Expected minibatch size b (DP-SGD, DP-SVRG, mirror descent's batch B).
    pub batch: usize,
    /// Declared per-sample gradient clip C (DP-SGD); `None` takes the Lipschitz bound G.
    pub clip: Option<f64>,
    /// Demonstrate the family's pitfall: the run is then NOT private.
    pub leak: bool,
    /// Base solver of output perturbation and of Zhang et al. 2022's reductions.
    pub solver: SolverKind,
    /// DP-SVRG's noise: certified by the accountant, or as printed (Wang, Ye & Xu 2017).
    pub svrg_noise: SvrgNoiseChoice,
    /// DP-GD's released iterate: the last, or w_J with J uniform (Wang, Ye & Xu 2017, Thm 6.3).
    pub gd_output: super::noisy_gd::Output,
    /// Grid points per axis of the exponential mechanism.
    pub grid_resolution: usize,
    /// k ≥ 2, the moment order of the heavy-tail families (Lowy 2026): G_k = (E A(z)^k)^(1/k).
    pub moment_k: f64,
    /// J, the calls per phase of Localized Double Output Perturbation (1: no aggregation).
    pub repetitions: usize,
    /// λ₁, the base ridge of localisation; `None` takes the localisation bound's minimiser.
    pub lambda1: Option<f64>,
    /// Certified solver of the localized heavy-tail families (Lowy 2026).
    pub heavy_solver: HeavySolver,
    /// U, the gradient budget of González, Guzmán & Paquette 2024, Algorithm 3; `None` takes
    /// Theorem 3.14's.
    pub budget_u: Option<f64>,
    /// Base solver of Zhang et al. 2022's minimax algorithms (GDA, extragradient, VR-extragradient).
    pub minimax_solver: SaddleSolverKind,
    /// μₓ ≥ 0: the game's declared strong convexity in x.
    pub mu_x: f64,
    /// μᵧ ≥ 0: the game's declared strong concavity in y.
    pub mu_y: f64,
    /// The game, when the problem is a saddle problem.
    pub game: Option<GameSettings>,
    /// The synthetic features' norm moments at the heavy-tail families' k and at 2, from the law
    /// that draws them; `None` when the data are not drawn from a declared law (a file).
    pub feature_moments: Option<FeatureMoments>,
    /// The most steps this lane may take: the run's cap on rows (repeats × steps × algorithms)
    /// shared among its lanes. Families whose T grows with n stop there.
    pub step_allowance: usize,
}
