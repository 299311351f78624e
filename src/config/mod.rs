//! `RunConfig`: everything a run depends on, as it travels in a URL hash or a JSON file, and its
//! validation. This is the one place user input is checked; every error names the field and what
//! was expected, at the [`Control`] the page shows it beside.

#![deny(missing_docs)]

use serde::{Deserialize, Serialize};

pub use crate::algo::family::ProblemKind;
use crate::algo::heavy_tails::HeavySolver;
use crate::data::Tail;
use crate::domain::DomainKind;
use crate::error::{Error, Result};
use crate::loss::{Glm, Loss, Wrap};
use crate::minimax::GameDeclaration;
use crate::minimax::auc::{AucLaw, AucSpec};
use crate::minimax::game::{GameSpec, Payoffs, RecordLaw};
use crate::minimax::group_dro::{DroLaw, DroSpec, GROUPS};
use crate::minimax::query_release;
use crate::minimax::solvers::SaddleSolverKind;
use crate::privacy::Relation;
use crate::privacy::calibration::GaussianMethod;
use crate::solver::SolverKind;

/// Largest n·d the page accepts (≈ 160 MB of f64 features): beyond it a browser tab runs out of memory.
pub const MAX_ENTRIES: usize = 20_000_000;
/// The largest number of strategies per player of a game (d × d payoffs per record).
pub const MAX_GAME_DIMENSION: usize = 100;
/// The largest n·d² of a game: one pass over its streamed records draws that many payoffs
/// (≈ 0.2 s natively at the limit).
pub const MAX_GAME_ENTRIES: usize = 20_000_000;

/// Longest link text [`RunConfig::from_json_lenient`] reads (80 KiB). The longest link the page
/// can make (every field set, four algorithms compared, every number at 17 significant digits with
/// a 3-digit exponent) is about 1.4 KB, and a CSV file never travels in a link; so a link over
/// 50 times longer was not made by the page, and refusing it bounds the work and the list of
/// errors a hostile link can cause.
pub const MAX_LINK_BYTES: usize = 80 * 1024;

/// Most steps a run may take in all lanes: repeats × steps × algorithms (the main one and the
/// compared ones). Each step of each lane keeps a row of nine numbers the plots draw (72 bytes;
/// a million rows are 72 MB in the wasm memory and again in the page's), and a run's time grows
/// with the same product. The page's default run takes 200; the largest single run (10⁵ steps)
/// still fits ten times, repeats included.
pub const MAX_RUN_STEPS: usize = 1_000_000;

mod choices;
mod link;
pub mod menu;
pub mod needs;
#[cfg(test)]
mod plan_tests;
pub mod pose;
mod settings;
#[cfg(test)]
mod tests;
mod validate;

pub use crate::algo::choices::{DomainChoice, SvrgNoiseChoice};
pub use crate::algo::route::at_control;
pub use crate::controls::{
    Control, Described, Initial, Kind, MAX_NOISE_DRAW, MIN_DELTA, MIN_MODULUS, Page, Row,
    choice_label, option_label,
};
pub use choices::{DataSource, GameChoice, RecordChoice};

/// The private algorithm to run: declared once, with its family, in [`crate::algo::kinds`].
pub use crate::algo::kinds::AlgorithmKind;

impl GameChoice {
    /// The algorithm the game's paper pairs it with, which picking the game from the menu tries
    /// first when the algorithm in use cannot run it ([`menu::pick_game`]): AUC
    /// maximisation is the convex–strongly-concave game of Zhang et al. 2022, Section 4.3.
    pub fn suggested_algorithm(self) -> Option<AlgorithmKind> {
        (self == GameChoice::AucMaximisation).then_some(AlgorithmKind::ByoaMinimaxCsc)
    }
}

/// One run: data, problem, privacy and algorithm settings. Missing fields take their defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunConfig {
    /// Seed of every random stream of the run (data and noise are separate streams).
    pub seed: u32,
    /// Draw the privacy noise from the operating system instead of the seed (docs/PRIVACY.md rule 6):
    /// the run is then not reproducible, which is what a private release needs. The synthetic
    /// data still come from the seed.
    pub unseeded_noise: bool,
    /// Which noise draw of the seed this run is: 0 is the seed's own noise, and the page's "New
    /// noise draw" advances it (the data, from `seed`, stay). Every draw up to this one is counted
    /// as a release on the same data by `session::publish::compose_run` (docs/PRIVACY.md
    /// rule 7): a new draw is a new release, where Reset → Play repeats the same one.
    pub noise_draw: u32,
    /// Synthetic data or the loaded CSV file.
    pub data: DataSource,
    /// The kind of problem: a minimisation (today's every family) or a saddle point.
    pub problem: ProblemKind,
    /// The saddle problem's game (`problem: saddle`).
    pub game: GameChoice,
    /// How the game's records scatter: bounded ±c, or heavy-tailed from `tail` and clipped.
    pub records: RecordChoice,
    /// Declared bound c on every payoff entry of a game record: records are clipped to it, and it
    /// sets every constant of the saddle algorithms.
    pub entry_bound: f64,
    /// μₓ ≥ 0: the game's strong convexity in x.
    pub mu_x: f64,
    /// μᵧ ≥ 0: the game's strong concavity in y.
    pub mu_y: f64,
    /// Whether heavy-tailed game records are clipped to the declared bound ±c (off: a
    /// demonstration whose declared constants, and so its guarantee, fail: NOT PRIVATE).
    pub clip_records: bool,
    /// Number of samples (for a CSV file: its number of rows, public).
    pub n: usize,
    /// Dimension (for a CSV file: its number of feature columns).
    pub d: usize,
    /// Distribution of the synthetic features (heavy tails: Student-t, Pareto, …).
    pub tail: Tail,
    /// Scale of the synthetic features.
    pub feature_scale: f64,
    /// ‖w₀‖ of the planted parameter.
    pub signal: f64,
    /// Classification: probability a label is flipped. Regression: the declared scale s of the
    /// noise, y = ⟨w₀, x⟩ + s·ξ.
    pub label_noise: f64,
    /// The law of the regression noise ξ (residual losses): Gaussian, Student-t ν or symmetric
    /// Pareto α ([`Tail::ParetoRadial`] in one dimension: |ξ| Pareto with x_m = 1, a random sign).
    pub noise_tail: Tail,
    /// Non-zeros of the planted w₀ of the sparse high-dimensional data.
    pub sparsity: usize,
    /// The per-sample loss.
    pub loss: Glm,
    /// How per-sample losses combine: plain ERM, tilted ERM (TERM, tilt τ) or the adversarially
    /// robust loss against ℓ2 perturbations of the features (Lowy & Razaviyayn 2021, Section 5).
    pub wrap: Wrap,
    /// Declared bound R_x on ‖x‖: features are clipped to it, and it sets the Lipschitz constant.
    pub feature_bound: f64,
    /// The constraint set.
    pub domain: DomainChoice,
    /// Radius of the ℓ2 / ℓ1 ball, half-width of the box.
    pub radius: f64,
    /// Ridge λ ≥ 0 of (λ/2)‖w‖²: the declared strong convexity μ.
    pub l2: f64,
    /// Lasso λ₁ ≥ 0 of λ₁‖w‖₁ (elastic net with `l2`).
    pub l1: f64,
    /// The privacy budget ε of the whole run, in [1e-4, 100].
    pub epsilon: f64,
    /// 0 asks for pure ε-DP (algorithms that offer it).
    pub delta: f64,
    /// Which datasets are neighbours: replace one record, or add or remove one.
    pub relation: Relation,
    /// The main algorithm (its family in [`crate::algo::registry`]).
    pub algorithm: AlgorithmKind,
    /// Up to three more algorithms run on the same data and ε, overlaid on the plots.
    pub compare: Vec<AlgorithmKind>,
    /// Iterations: noisy steps T (DP-GD, DP-SGD), epochs (DP-SVRG/++).
    pub steps: usize,
    /// Step size η; `None` takes the theory default.
    pub step_size: Option<f64>,
    /// Expected minibatch size (DP-SGD, DP-SVRG).
    pub batch: usize,
    /// Declared per-sample gradient clip C (DP-SGD); `None` takes the Lipschitz bound G.
    pub clip: Option<f64>,
    /// DP-SVRG's noise: certified or as printed.
    pub svrg_noise: SvrgNoiseChoice,
    /// DP-GD's released iterate: the last, or w_J with J uniform, drawn before the run (Wang, Ye
    /// & Xu 2017's non-convex mode, Theorem 6.3).
    pub gd_output: crate::algo::noisy_gd::Output,
    /// Base solver of output perturbation and Zhang et al. 2022.
    pub solver: SolverKind,
    /// Gaussian calibration of output perturbation's one release (δ > 0): ZWB+19 (as in Lowy & Razaviyayn 2021),
    /// the exact analytic one, or the classical one (refused above ε = 1), for comparison.
    pub gaussian: GaussianMethod,
    /// Grid points per axis of the exponential mechanism.
    pub grid_resolution: usize,
    /// Independent noise draws of the same run (the noise cloud).
    pub repeats: usize,
    /// Demonstrate the algorithm's pitfall (Wang, Ye & Xu 2017): DP-GD without clipping, DP-SGD without
    /// per-sample clipping, DP-SVRG with BB steps from exact gradients, DP-AccMD with the printed
    /// exact-gradient y-step. The ledger then says NOT PRIVATE.
    pub leak: bool,
    /// The moment order k ≥ 2 of the heavy-tail algorithms (Lowy 2026): G_k = (E A(z)^k)^(1/k) is
    /// declared from the generating distribution and sets the threshold C* = G_k (mε/d)^(1/k).
    pub moment_k: f64,
    /// J, the calls per phase of Localized Double Output Perturbation (aggregated by the median
    /// trick; 1 means no aggregation).
    pub repetitions: usize,
    /// λ₁, the base ridge of localisation (utility only: every phase's noise is calibrated to its
    /// own λ_t = 32^(t−1)·λ₁); `None` takes the localisation bound's minimiser with the proofs'
    /// constants (`algo::heavy_tails::localised::calibrated_lambda`); the single-stage variant's
    /// ridge λ takes (G_k (d/(nε))^(1−1/k) + G₂/√n)/D.
    pub lambda1: Option<f64>,
    /// Base solver of Zhang et al. 2022's minimax algorithms (GDA, extragradient, VR-extragradient): the
    /// solver-swap menu; the noise does not depend on it.
    pub minimax_solver: SaddleSolverKind,
    /// Certified solver of the localized heavy-tail families (Lowy 2026): the AGD on the smooth
    /// R^d extension, or the paper's Algorithm 3 on the joint reformulation where its iteration
    /// bound fits the work allowance (the noise does not depend on it).
    pub heavy_solver: HeavySolver,
    /// U, the gradient budget of González et al.'s Algorithm 3 (its steps run while
    /// Σ2^{N_t} ≤ U − 2^M); `None` takes Theorem 3.14's. Privacy does not depend on it: the
    /// privacy filter stops the run before ε is exceeded, whatever U is.
    pub budget_u: Option<f64>,
}

impl Default for RunConfig {
    fn default() -> Self {
        Self {
            seed: 1,
            unseeded_noise: false,
            noise_draw: 0,
            data: DataSource::Synthetic,
            problem: ProblemKind::Minimisation,
            game: GameChoice::RockPaperScissors,
            records: RecordChoice::Bounded,
            entry_bound: 1.0,
            mu_x: 0.0,
            mu_y: 0.0,
            clip_records: true,
            n: 2000,
            d: 2,
            tail: Tail::Gaussian,
            feature_scale: 0.6,
            signal: 4.0,
            label_noise: 0.0,
            noise_tail: Tail::Gaussian,
            sparsity: 5,
            loss: Glm::Logistic,
            wrap: Wrap::None,
            feature_bound: 1.0,
            domain: DomainChoice::L2Ball,
            radius: 4.0,
            // A ridge, so that the default run (DP-GD on logistic loss) is strongly convex and
            // draws DP-GD's bound (Wang, Ye & Xu 2017, Thm 6.2) beside its excess risk: the
            // page's promise, visible on a fresh page. 0.1 is the ridge the menu's picks set.
            l2: 0.1,
            l1: 0.0,
            epsilon: 1.0,
            delta: 1e-6,
            relation: Relation::ReplaceOne,
            algorithm: AlgorithmKind::NoisyGd,
            compare: Vec::new(),
            steps: 200,
            step_size: None,
            batch: 64,
            clip: None,
            svrg_noise: SvrgNoiseChoice::Certified,
            gd_output: crate::algo::noisy_gd::Output::LastIterate,
            solver: SolverKind::Agd,
            gaussian: GaussianMethod::Zwb,
            grid_resolution: 64,
            repeats: 1,
            leak: false,
            moment_k: 2.0,
            repetitions: 1,
            lambda1: None,
            minimax_solver: SaddleSolverKind::Extragradient,
            heavy_solver: HeavySolver::Agd,
            budget_u: None,
        }
    }
}

impl RunConfig {
    /// The saddle problem's game, from the config alone (no records drawn): what every saddle
    /// family's noise is calibrated to. Matrix games are on simplices; the ball game is on two ℓ2
    /// balls of radius `radius`, with a linear term in y.
    pub fn game_spec(&self) -> GameSpec {
        let (dx, dy) = self.game_dims();
        let ball = DomainKind::L2Ball {
            radius: self.radius,
        };
        let (payoffs, x_domain, y_domain, offset) = match self.game {
            GameChoice::RockPaperScissors => (
                Payoffs::RockPaperScissors,
                DomainKind::Simplex,
                DomainKind::Simplex,
                false,
            ),
            GameChoice::RandomMatrix => (
                Payoffs::Random,
                DomainKind::Simplex,
                DomainKind::Simplex,
                false,
            ),
            GameChoice::QueryRelease => (
                Payoffs::QueryRelease { attributes: self.d },
                DomainKind::Simplex,
                DomainKind::Simplex,
                true,
            ),
            // f = yᵀ(A_ξx − b_ξ) = xᵀ(A_ξᵀ)y − b_ξᵀy: max over the box of y is ‖Āx − b̄‖₁.
            GameChoice::L1SystemFit => (
                Payoffs::Random,
                ball,
                DomainKind::Box { lo: -1.0, hi: 1.0 },
                true,
            ),
            // Group DRO is posed by `dro_spec`; its games never reach here but through
            // `game_declaration`, which asks `dro_spec` first.
            GameChoice::BallGame
            | GameChoice::GroupDroLogistic
            | GameChoice::GroupDroSquares
            | GameChoice::GroupDroLogisticSimplex
            | GameChoice::GroupDroSquaresSimplex
            | GameChoice::AucMaximisation => (Payoffs::Random, ball, ball, true),
        };
        GameSpec {
            payoffs,
            dx,
            dy,
            offset,
            mu_x: self.mu_x,
            mu_y: self.mu_y,
            x_domain,
            y_domain,
            n: self.n,
            seed: self.seed,
            entry_bound: self.entry_bound,
            law: match self.records {
                RecordChoice::Bounded => RecordLaw::Rademacher,
                RecordChoice::Heavy => RecordLaw::Heavy {
                    tail: self.tail,
                    scale: self.feature_scale,
                },
            },
            clip: self.clip_records,
        }
    }

    /// The group DRO problem, when the game is one, from the config alone: d features, x in the
    /// ℓ2 ball of radius `radius` or on the simplex (the game entry says which), c = `entry_bound` bounding ‖a‖ and |b|, the records' tails.
    pub fn dro_spec(&self) -> Option<DroSpec> {
        Some(DroSpec {
            loss: self.game.dro_loss()?,
            domain: self.game.dro_domain(),
            d: self.d,
            n: self.n,
            seed: self.seed,
            radius: self.radius,
            bound: self.entry_bound,
            mu_x: self.mu_x,
            mu_y: self.mu_y,
            law: match self.records {
                RecordChoice::Bounded => DroLaw::Bounded,
                RecordChoice::Heavy => DroLaw::Heavy {
                    tail: self.tail,
                    scale: self.feature_scale,
                },
            },
            clip: self.clip_records,
        })
    }

    /// The AUC maximisation game, when the game is one, from the config alone: d features, w in
    /// the ℓ2 ball of radius `radius`, c = `entry_bound` bounding ‖a‖, the records' tails.
    pub fn auc_spec(&self) -> Option<AucSpec> {
        (self.game == GameChoice::AucMaximisation).then_some(AucSpec {
            d: self.d,
            n: self.n,
            seed: self.seed,
            radius: self.radius,
            bound: self.entry_bound,
            law: match self.records {
                RecordChoice::Bounded => AucLaw::Bounded,
                RecordChoice::Heavy => AucLaw::Heavy {
                    tail: self.tail,
                    scale: self.feature_scale,
                },
            },
            clip: self.clip_records,
        })
    }

    /// What every saddle family plans from: the game's size, sets, declared constants and leak,
    /// before any record is drawn (the same numbers the built game reports).
    pub fn game_declaration(&self) -> GameDeclaration {
        if let Some(auc) = self.auc_spec() {
            return GameDeclaration {
                n: auc.n,
                dims: auc.dims(),
                x_domain: auc.x_domain(),
                y_domain: auc.y_domain(),
                constants: auc.constants(),
                leak: auc.leak(),
            };
        }
        if let Some(dro) = self.dro_spec() {
            return GameDeclaration {
                n: dro.n,
                dims: (dro.d, GROUPS),
                x_domain: dro.x_domain(),
                y_domain: dro.y_domain(),
                constants: dro.constants(),
                leak: dro.leak(),
            };
        }
        let spec = self.game_spec();
        GameDeclaration {
            n: spec.n,
            dims: (spec.dx, spec.dy),
            x_domain: spec.x_domain,
            y_domain: spec.y_domain,
            constants: spec.constants(),
            leak: spec.leak(),
        }
    }

    /// The players' dimensions (dₓ, dᵧ): d each, or query release's 2^d histogram cells and
    /// 8·C(d, 2) signed marginals (0 × 0 when d is out of its range, which validation refuses),
    /// or group DRO's d features against its three groups.
    pub fn game_dims(&self) -> (usize, usize) {
        match self.game {
            GameChoice::GroupDroLogistic
            | GameChoice::GroupDroSquares
            | GameChoice::GroupDroLogisticSimplex
            | GameChoice::GroupDroSquaresSimplex => (self.d, GROUPS),
            GameChoice::AucMaximisation => (self.d + 2, 1),
            GameChoice::QueryRelease if self.d <= query_release::MAX_ATTRIBUTES => {
                query_release::dims(self.d)
            }
            GameChoice::QueryRelease => (0, 0),
            _ => (self.d, self.d),
        }
    }

    /// The config as compact JSON (the URL-hash form).
    pub fn to_json(&self) -> String {
        // Serialising plain data with string keys cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The config as a checked run: every field in range, the choices consistent with each other
    /// and with every algorithm's needs, each error at the [`Control`] to change. The session's
    /// entry points take their config through here.
    pub fn check(&self) -> Result<CheckedRun> {
        self.validate()?;
        Ok(CheckedRun(self.clone()))
    }

    /// The main algorithm, then the compared ones.
    pub fn algorithms(&self) -> impl Iterator<Item = AlgorithmKind> + '_ {
        std::iter::once(self.algorithm).chain(self.compare.iter().copied())
    }

    /// This config with `kind` as its main algorithm and nothing to compare (one lane of a run).
    pub fn lane(&self, kind: AlgorithmKind) -> RunConfig {
        RunConfig {
            algorithm: kind,
            compare: Vec::new(),
            ..self.clone()
        }
    }
}

/// A [`RunConfig`] that passed [`RunConfig::check`]: every field in range, the choices consistent
/// with each other and with every algorithm's needs. The session takes one, so a run is checked
/// once, before any data are read; it reads as the config it wraps.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedRun(RunConfig);

impl CheckedRun {
    /// The checked config.
    pub fn config(&self) -> &RunConfig {
        &self.0
    }

    /// The checked config, unwrapped.
    pub fn into_config(self) -> RunConfig {
        self.0
    }
}

impl std::ops::Deref for CheckedRun {
    type Target = RunConfig;

    fn deref(&self) -> &RunConfig {
        &self.0
    }
}

/// The table of controls as the page reads it (the wasm's `controls()`): every row of
/// [`Control::ROWS`], with the algorithm menu's keys, in menu order, as the options of the
/// algorithm choices.
pub fn controls_table() -> Vec<Described> {
    let algorithms: Vec<String> = AlgorithmKind::ALL.iter().map(|k| k.key()).collect();
    Control::ROWS
        .iter()
        .map(|row| row.described(&algorithms))
        .collect()
}
