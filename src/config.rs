//! `RunConfig`: everything a run depends on, as it travels in a URL hash or a JSON file, and its
//! validation. This is the one place user input is checked; every error names the field and what
//! was expected, at the [`Control`] the page shows it beside.

#![deny(missing_docs)]

use serde::{Deserialize, Serialize};

pub use crate::algo::family::ProblemKind;
use crate::algo::heavy_tails::HeavySolver;
use crate::algo::registry;
use crate::data::Tail;
use crate::domain::DomainKind;
use crate::error::{Error, Result};
use crate::loss::{Glm, Loss, Wrap};
use crate::minimax::GameDeclaration;
use crate::minimax::auc::{AucLaw, AucSpec};
use crate::minimax::game::{GameSpec, Payoffs, RecordLaw};
use crate::minimax::group_dro::{DroDomain, DroLaw, DroLoss, DroSpec, GROUPS};
use crate::minimax::query_release;
use crate::minimax::solvers::SaddleSolverKind;
use crate::privacy::Relation;
use crate::privacy::calibration::GaussianMethod;
use crate::session::problem::ProblemDeclaration;
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

/// The private algorithm to run: declared once, with its family, in [`crate::algo::kinds`].
pub use crate::algo::kinds::AlgorithmKind;

/// Where the samples come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum DataSource {
    /// The seeded generator ([`crate::data::generate`]).
    #[default]
    Synthetic,
    /// A CSV file the user loaded; it stays in the tab and is not part of a link.
    Csv,
    /// Wang, Ye & Xu 2017's high-dimensional mode: features N(0, 1/d), a `sparsity`-sparse planted w₀ of
    /// unit ℓ1 norm, logistic labels ([`crate::data::generate_sparse`]); for d ≫ n.
    Sparse,
}

/// The saddle problem's game (`problem: saddle`): every game is the stochastic regularised
/// bilinear game of [`crate::minimax::game`], f(x, y; ξ) = (μₓ/2)‖x‖² + xᵀM_ξ y − b_ξᵀy − (μᵧ/2)‖y‖².
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum GameChoice {
    /// Rock–paper–scissors embedded in d ≥ 3 strategies per player, both on simplices.
    #[default]
    RockPaperScissors,
    /// A random d × d matrix game (payoffs uniform in [−½, ½]), both players on simplices.
    RandomMatrix,
    /// A random bilinear game with a linear term in y on two ℓ2 balls of radius `radius`
    /// (strongly convex–strongly concave when μₓ, μᵧ > 0: Zhang et al.'s regularised game).
    BallGame,
    /// Query release over d binary attributes: a synthetic histogram x over the 2^d universe
    /// elements against the worst signed 2-way marginal y ([`crate::minimax::query_release`]).
    QueryRelease,
    /// Zhang et al.'s ℓ1 system fit: min over ‖x‖₂ ≤ `radius` of ‖Āx − b̄‖₁, the non-smooth primal
    /// of the bilinear game yᵀ(A_ξx − b_ξ) with y in the box [−1, 1]^d (a smooth game).
    L1SystemFit,
    /// Worst-group logistic regression: x in the ℓ2 ball of radius `radius` over d features, y
    /// the weights of three groups ([`crate::minimax::group_dro`]).
    GroupDroLogistic,
    /// Worst-group least squares, as [`GameChoice::GroupDroLogistic`] with the squared loss.
    GroupDroSquares,
    /// Worst-group logistic regression with x on the probability simplex over the d features (a
    /// mixture): both players on simplices, so the vertex-sampling mirror-descent families run on
    /// it (González, Guzmán & Paquette 2024, §1.4). A game entry of its own rather than a domain
    /// setting: the domain control belongs to the minimisation panel, and the game menu is where
    /// a newcomer picks what the players are.
    GroupDroLogisticSimplex,
    /// Worst-group least squares with x on the simplex, as [`GameChoice::GroupDroLogisticSimplex`].
    GroupDroSquaresSimplex,
    /// AUC maximisation (Ying, Wen & Lyu 2016's square-loss saddle form): x = (w, s, t) with w
    /// in the ℓ2 ball of radius `radius` over d features, y = α; convex in x, strongly concave
    /// in α ([`crate::minimax::auc`]). Its moduli are the game's own (μₓ = 0, μᵧ = 2p(1 − p)):
    /// `mu_x` and `mu_y` do not apply.
    AucMaximisation,
}

impl GameChoice {
    /// The group DRO loss of this choice, if it is one.
    pub fn dro_loss(self) -> Option<DroLoss> {
        match self {
            GameChoice::GroupDroLogistic | GameChoice::GroupDroLogisticSimplex => {
                Some(DroLoss::Logistic)
            }
            GameChoice::GroupDroSquares | GameChoice::GroupDroSquaresSimplex => {
                Some(DroLoss::Squares)
            }
            _ => None,
        }
    }

    /// The group DRO game's set for x (the ℓ2 ball unless the entry says the simplex).
    pub fn dro_domain(self) -> DroDomain {
        match self {
            GameChoice::GroupDroLogisticSimplex | GameChoice::GroupDroSquaresSimplex => {
                DroDomain::Simplex
            }
            _ => DroDomain::L2Ball,
        }
    }

    /// Whether the game's moduli are its own, fixed by its declaration, rather than the
    /// `mu_x`, `mu_y` settings (AUC maximisation: μₓ = 0, μᵧ = 2p(1 − p)).
    pub fn own_moduli(self) -> bool {
        self == GameChoice::AucMaximisation
    }

    /// The name of the game's own readout of a release, beside its duality gap
    /// ([`crate::minimax::PosedGame::readout`]): the page keeps a row for it.
    pub fn readout_name(self) -> Option<&'static str> {
        (self == GameChoice::AucMaximisation).then_some(crate::minimax::auc::READOUT)
    }

    /// The algorithm the game's paper pairs it with, which picking the game from the menu tries
    /// first when the algorithm in use cannot run it ([`crate::algo::registry::pick_game`]): AUC
    /// maximisation is the convex–strongly-concave game of Zhang et al. 2022, Section 4.3.
    pub fn suggested_algorithm(self) -> Option<AlgorithmKind> {
        (self == GameChoice::AucMaximisation).then_some(AlgorithmKind::ByoaMinimaxCsc)
    }
}

/// How a game's records scatter around its base payoffs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RecordChoice {
    /// Every entry ±c with the base payoff as its mean: bounded by construction.
    #[default]
    Bounded,
    /// The base payoff plus `feature_scale` times a draw from `tail`, clipped to ±c.
    Heavy,
}

/// The constraint set W.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum DomainChoice {
    /// ‖w‖₂ ≤ radius.
    #[default]
    L2Ball,
    /// ‖w‖₁ ≤ radius.
    L1Ball,
    /// The box [−radius, radius]^d.
    Box,
    /// The probability simplex (radius unused).
    Simplex,
    /// R^d (radius unused).
    Unconstrained,
}

impl DomainChoice {
    /// The set itself, with `radius` (the ball's radius, the box's half-width; ignored by the
    /// simplex and R^d).
    pub fn kind(self, radius: f64) -> DomainKind {
        match self {
            DomainChoice::L2Ball => DomainKind::L2Ball { radius },
            DomainChoice::L1Ball => DomainKind::L1Ball { radius },
            DomainChoice::Box => DomainKind::Box {
                lo: -radius,
                hi: radius,
            },
            DomainChoice::Simplex => DomainKind::Simplex,
            DomainChoice::Unconstrained => DomainKind::Unconstrained,
        }
    }
}

/// DP-SVRG's noise: the paper's formula, or what the accountant certifies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SvrgNoiseChoice {
    /// The σ the RDP accountant certifies for the run's (ε, δ).
    #[default]
    Certified,
    /// The printed σ with c = 8, its small-ε limit: NOT a privacy certificate (Wang, Ye & Xu 2017).
    AsPrinted,
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
    /// as a release on the same data by [`crate::session::publish::compose_run`] (docs/PRIVACY.md
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
    /// constants (`algo::heavy_tails::localized::calibrated_lambda`); the single-stage variant's
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

/// The smallest δ > 0 accepted (see [`RunConfig::validate`]).
pub const MIN_DELTA: f64 = 1e-100;

/// The smallest positive strong-convexity modulus μx or μy of a game (see `validate_game`).
pub const MIN_MODULUS: f64 = 1e-12;

/// The last noise draw a run may be (2³² − 1 passed validation and the run, and only
/// composition refused it, naming the repeats).
///
/// Derivation: a run counts (draw + 1) × repeats × algorithms releases (`compose_run`), a count
/// held in a `usize`, which is 32 bits in the page's wasm: with at most 10⁶ draws, 100 repeats and
/// 4 algorithms it is at most 4·10⁸ < 2³² ≈ 4.29·10⁹, and exact as an f64 factor of every ε, δ
/// and ρ (≤ 4·10¹⁰ × ε ≤ 100: finite). Whether the δs of that many releases stay below 1 is
/// composition's check, at this control.
pub const MAX_NOISE_DRAW: usize = 999_999;

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
    /// Parses JSON and validates it. A wrong type names the field path (e.g. `epsilon: invalid
    /// type: string "x", expected f64`).
    ///
    /// Only a JSON object is read: text after its closing brace, and an array anywhere but
    /// `compare` (serde would read `[1, false]` positionally as `seed`, `unseeded_noise`, …), are
    /// refused, so a truncated or concatenated link cannot pass for a different config.
    pub fn from_json(text: &str) -> Result<Self> {
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            if let Some(error) = out_of_range(text, &e) {
                return error;
            }
            Error::Parse {
            line: e.line(),
            col: e.column(),
            message: match e.classify() {
                serde_json::error::Category::Syntax if e.to_string().starts_with("trailing") => {
                    "text after the settings' closing '}': expected one JSON object and nothing after it".to_string()
                }
                _ => strip_position(&e.to_string()),
            },
        }})?;
        let serde_json::Value::Object(map) = &value else {
            return Err(Error::Parse {
                line: 1,
                col: 1,
                message: format!(
                    "expected a JSON object of settings {{\"key\": value, …}}, got {}",
                    json_kind(&value)
                ),
            });
        };
        for (key, value) in map {
            positional(key, value)?;
        }
        let config: RunConfig = read_tracked(text).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let is_data_error = inner.classify() == serde_json::error::Category::Data;
            if !is_data_error || path == "." || path.is_empty() {
                Error::Parse {
                    line: inner.line(),
                    col: inner.column(),
                    message: inner.to_string(),
                }
            } else {
                // A part of the aggregation (`wrap.tau`) is shown under the loss's control.
                let message = inner.to_string();
                if message.starts_with("unknown field") {
                    return unknown_setting(&path);
                }
                let (wanted, got) = wanted_and_got(&message);
                at_control(Error::invalid(path, format!("enter {wanted}"), got))
            }
        })?;
        config.validate()?;
        Ok(config)
    }

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

    /// The game's fields in range, each error at its control.
    fn validate_game(&self) -> Result<()> {
        if self.game == GameChoice::QueryRelease {
            in_range_usize(
                Control::D,
                self.d,
                query_release::MIN_ATTRIBUTES,
                query_release::MAX_ATTRIBUTES,
            )?;
            if self.records != RecordChoice::Bounded {
                return Err(Error::invalid(
                    Control::Records.id(),
                    "bounded records for query release: a record is one universe element",
                    "heavy-tailed",
                ));
            }
        }
        in_range_usize(Control::D, self.d, 1, MAX_GAME_DIMENSION)?;
        let (dx, dy) = self.game_dims();
        if self.n * dx * dy > MAX_GAME_ENTRIES {
            return Err(Error::invalid(
                Control::N.id(),
                format!(
                    "n·dₓ·dᵧ ≤ {MAX_GAME_ENTRIES}: every pass over the records regenerates n payoff matrices of dₓ × dᵧ"
                ),
                self.n * dx * dy,
            ));
        }
        in_range(Control::EntryBound, self.entry_bound, 1e-3, 1e3)?;
        in_range(Control::MuX, self.mu_x, 0.0, 1e3)?;
        in_range(Control::MuY, self.mu_y, 0.0, 1e3)?;
        // μ = 1e-300 made a strongly monotone family's sensitivity ∝ 1/(μn) infinite,
        // refused at a "sensitivity" no control shows. A modulus is 0 (none) or at least
        // MIN_MODULUS: then 1/(μn) ≤ 10¹¹, times a Lipschitz bound ≤ 10⁵ (c ≤ 10³ over
        // d ≤ 100), squared in σ² ≤ 10³², far from overflow.
        for (control, mu) in [(Control::MuX, self.mu_x), (Control::MuY, self.mu_y)] {
            if mu > 0.0 && mu < MIN_MODULUS {
                return Err(Error::invalid(
                    control.id(),
                    format!("0 (none) or a number in [{MIN_MODULUS:e}, 1000]"),
                    mu,
                ));
            }
        }
        if self.records == RecordChoice::Bounded
            && self.entry_bound < 0.5
            && self.dro_spec().is_none()
            && self.auc_spec().is_none()
        {
            return Err(Error::invalid(
                Control::EntryBound.id(),
                "at least 0.5 for bounded ±c records (their mean is the base payoff, up to ½)",
                self.entry_bound,
            ));
        }
        if !self.clip_records && self.records == RecordChoice::Bounded {
            return Err(Error::invalid(
                Control::ClipRecords.id(),
                "heavy-tailed records to leave unclipped (bounded ones are within ±c by construction)",
                "bounded records",
            ));
        }
        if self.game == GameChoice::RockPaperScissors && self.d < 3 {
            return Err(Error::invalid(
                Control::D.id(),
                "at least 3 strategies for rock–paper–scissors",
                self.d,
            ));
        }
        if let Some(dro) = self.dro_spec() {
            in_range(Control::Radius, self.radius, 1e-3, 1e3)?;
            return dro.validate().map_err(at_control);
        }
        if let Some(auc) = self.auc_spec() {
            in_range(Control::Radius, self.radius, 1e-3, 1e3)?;
            return auc.validate().map_err(at_control);
        }
        self.game_spec().validate().map_err(at_control)
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

    /// The regression noise's law: Gaussian, Student-t ν or symmetric Pareto α,
    /// with its parameter positive. The other tails are the features' alone.
    fn validate_noise_tail(&self) -> Result<()> {
        let field = Control::NoiseTail.id();
        match self.noise_tail {
            Tail::Gaussian | Tail::StudentT { .. } | Tail::ParetoRadial { .. } => {
                self.noise_tail.validate(field)
            }
            other => Err(Error::invalid(
                field,
                "choose Gaussian, Student-t (ν) or symmetric Pareto (α) for the regression noise",
                format!("{other:?}"),
            )),
        }
    }

    /// Checks every field against its allowed range, and the choices against each other (the
    /// check of [`RunConfig::check`], without the checked value).
    pub fn validate(&self) -> Result<()> {
        in_range_usize(Control::N, self.n, 10, 1_000_000)?;
        in_range_usize(Control::D, self.d, 1, 1000)?;
        if self.problem == ProblemKind::Saddle {
            self.validate_game()?;
        }
        if self.n * self.d > MAX_ENTRIES {
            return Err(Error::invalid(
                Control::N.id(),
                format!("n·d ≤ {MAX_ENTRIES} (browser memory)"),
                self.n * self.d,
            ));
        }
        self.tail.validate(Control::Tail.id())?;
        self.validate_noise_tail()?;
        if self.data == DataSource::Sparse {
            in_range_usize(Control::Sparsity, self.sparsity, 1, self.d)?;
            if !self.loss.is_margin() {
                return Err(Error::invalid(
                    Control::Data.id(),
                    "a margin loss (logistic, hinge, smoothed hinge) for the sparse data's ±1 labels",
                    format!("{:?}", self.loss),
                ));
            }
        }
        in_range(Control::FeatureScale, self.feature_scale, 1e-6, 1e3)?;
        in_range(Control::Signal, self.signal, 0.0, 1e3)?;
        if self.loss.is_margin() {
            in_range(Control::LabelNoise, self.label_noise, 0.0, 0.5)?;
        } else {
            in_range(Control::LabelNoise, self.label_noise, 0.0, 1e3)?;
        }
        Loss {
            glm: self.loss,
            wrap: self.wrap,
        }
        .validate()?;
        in_range(Control::FeatureBound, self.feature_bound, 1e-6, 1e6)?;
        in_range(Control::Radius, self.radius, 1e-6, 1e6)?;
        // Every noise is calibrated to the declared Lipschitz constant G; the squared loss's
        // grows with ‖w‖, so it needs a bounded domain.
        let g = ProblemDeclaration::of(self).lipschitz();
        if !(g.is_finite() && g > 0.0) {
            let why = "a bounded domain: the squared loss's Lipschitz constant grows with ‖w‖";
            return Err(Error::invalid(Control::Domain.id(), why, g));
        }
        in_range(Control::L2, self.l2, 0.0, 1e3)?;
        in_range(Control::L1, self.l1, 0.0, 1e3)?;
        in_range(Control::Epsilon, self.epsilon, 1e-4, 100.0)?;
        if self.compare.len() > 3 {
            return Err(Error::invalid(
                Control::Compare.id(),
                "untick all but three: at most three algorithms besides the main one",
                self.compare.len(),
            ));
        }
        for (i, kind) in self.compare.iter().enumerate() {
            if *kind == self.algorithm || self.compare[..i].contains(kind) {
                return Err(Error::invalid(
                    Control::Compare.id(),
                    "untick the main algorithm: compare it with others",
                    format!("{} twice", registry::family(*kind).card.name),
                ));
            }
        }
        // δ = 1e-320 (subnormal) made 1/δ overflow and σ infinite. Any δ below
        // MIN_DELTA is far beneath a meaningful failure probability (n ≤ 10⁶, δ ≪ 1/n is met at
        // 10⁻¹²) and keeps every ln(1/δ) and 1/δ of the calibrations and accountants finite.
        if self.delta != 0.0 && !(self.delta >= MIN_DELTA && self.delta < 0.5) {
            return Err(Error::invalid(
                Control::Delta.id(),
                format!("0 (pure ε) or a number in [{MIN_DELTA:e}, 0.5)"),
                self.delta,
            ));
        }
        in_range_usize(Control::Steps, self.steps, 1, 100_000)?;
        if let Some(eta) = self.step_size {
            in_range(Control::StepSize, eta, 1e-9, 1e6)?;
        }
        in_range_usize(Control::Batch, self.batch, 1, self.n)?;
        if let Some(c) = self.clip {
            in_range(Control::Clip, c, 1e-9, 1e6)?;
        }
        in_range_usize(Control::GridResolution, self.grid_resolution, 2, 400)?;
        in_range_usize(Control::Repeats, self.repeats, 1, 100)?;
        in_range_usize(
            Control::NoiseDraw,
            self.noise_draw as usize,
            0,
            MAX_NOISE_DRAW,
        )?;
        in_range(Control::MomentK, self.moment_k, 2.0, 100.0)?;
        in_range_usize(Control::Repetitions, self.repetitions, 1, 101)?;
        if let Some(lambda) = self.lambda1 {
            in_range(Control::Lambda1, lambda, 1e-9, 1e6)?;
        }
        if let Some(u) = self.budget_u {
            // U ≥ 4: Theorem 3.14's least budget (González, Guzmán & Paquette 2024); the plan checks U ≤ n/2.
            in_range(Control::BudgetU, u, 4.0, 1e9)?;
        }
        let lanes = self.algorithms().count();
        let total = self.repeats * self.steps * lanes;
        if total > MAX_RUN_STEPS {
            return Err(Error::invalid(
                Control::Repeats.id(),
                format!(
                    "lower it, the steps or the compared algorithms: repeats × steps × algorithms ≤ {MAX_RUN_STEPS}, as every step keeps a row the plots draw in the tab's memory"
                ),
                format!("{} × {} × {lanes} = {total}", self.repeats, self.steps),
            ));
        }
        if self.leak {
            if !self.compare.is_empty() {
                return Err(Error::invalid(
                    Control::Leak.id(),
                    "untick it or the compared algorithms: a leaky run is shown alone",
                    "",
                ));
            }
            if !self.algorithm.has_leak() {
                return Err(Error::invalid(
                    Control::Leak.id(),
                    "untick it: this algorithm has no pitfall to demonstrate",
                    registry::family(self.algorithm).card.name,
                ));
            }
        }
        if self.delta == 0.0
            && let Some(kind) = self.algorithms().find(|k| !k.allows_pure())
        {
            return Err(Error::invalid(
                Control::Delta.id(),
                format!(
                    "raise it above 0: {} has no pure ε-DP version",
                    registry::family(kind).card.name
                ),
                0.0,
            ));
        }
        // What each algorithm needs of the problem (a ridge, a domain, a loss …), from
        // its family's declaration; a compared algorithm's unmet need is named at `compare`.
        for (i, kind) in self.algorithms().enumerate() {
            registry::check(registry::family(kind), self)
                .map_err(|e| if i == 0 { e } else { e.in_compare(kind) })?;
        }
        Ok(())
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

    /// Reads a page link as the page does; the page's own `configFromHash` calls this, so there
    /// is one decoder. `text` is the whole URL, its hash (`#…`) or the hash without `#`: the part
    /// after the first `#` is percent-decoded (the page writes it with `encodeURIComponent`) and
    /// read leniently ([`RunConfig::from_json_lenient`]). A URL without a hash, or an empty hash,
    /// is the default config.
    pub fn from_link(text: &str) -> (RunConfig, Vec<Error>) {
        let text = text.trim();
        let hash = match text.split_once('#') {
            Some((_, hash)) => hash,
            // A URL the page made without settings in it.
            None if text.contains("://") => "",
            None => text,
        };
        match percent_encoding::percent_decode_str(hash).decode_utf8() {
            Ok(json) if json.trim().is_empty() => (RunConfig::default(), Vec::new()),
            Ok(json) => Self::from_json_lenient(&json),
            Err(e) => (
                RunConfig::default(),
                vec![Error::invalid(
                    "link",
                    "percent-encoded UTF-8 text after '#' (copy the link again with \"Copy link\")",
                    e,
                )],
            ),
        }
    }

    /// Reads a hand-edited or damaged link leniently: every field that cannot be used falls back
    /// to its default on its own, and each fallback is reported as an error naming the field. Only
    /// text that is not a JSON object at all falls back as a whole.
    pub fn from_json_lenient(text: &str) -> (RunConfig, Vec<Error>) {
        let mut errors = Vec::new();
        if text.len() > MAX_LINK_BYTES {
            errors.push(Error::invalid(
                "link",
                format!(
                    "copy the link again with \"Copy link\", or set the controls by hand: a link of more than {MAX_LINK_BYTES} bytes is not read (the page makes about 1 KB)"
                ),
                format!("{} bytes", text.len()),
            ));
            return (RunConfig::default(), errors);
        }
        // A link pasted from a document may carry a byte-order mark or a zero-width space.
        let text = text.trim_start_matches(['\u{feff}', '\u{200b}']);
        let given = match serde_json::from_str::<serde_json::Value>(text) {
            Ok(serde_json::Value::Object(map)) => map,
            Ok(_) => {
                errors.push(Error::invalid(
                    "link",
                    "copy the link again: it must hold a JSON object of settings",
                    text,
                ));
                return (RunConfig::default(), errors);
            }
            Err(e) => {
                errors.push(out_of_range(text, &e).unwrap_or_else(|| {
                    Error::invalid(
                        "link",
                        format!(
                            "copy the link again, or set the controls by hand: it is damaged at \
                             character {} ({})",
                            e.column(),
                            strip_position(&e.to_string())
                        ),
                        "",
                    )
                }));
                return (RunConfig::default(), errors);
            }
        };
        // Each field is read on its own (missing fields default, so whether one parses does not
        // depend on the others): trying it beside every field kept so far cloned them all per
        // key, quadratic in the link's length.
        let mut kept = serde_json::Map::new();
        for (key, value) in given {
            let mut alone = serde_json::Map::from_iter([(key, value)]);
            while let Some((path, message)) = first_error(&alone) {
                // A bad part (`loss.delta`) falls back alone, keeping the kind and the other
                // parts; serde names only the field of a tagged choice's bad part, so the part
                // is the one whose fallback changes the error.
                let part = if fall_back_part(&mut alone, &path) {
                    Some(path)
                } else {
                    let parts: Vec<String> = alone
                        .get(&path)
                        .and_then(|v| v.as_object())
                        .map(|o| o.keys().map(|p| format!("{path}.{p}")).collect())
                        .unwrap_or_default();
                    parts.into_iter().find(|part| {
                        let mut trial = alone.clone();
                        fall_back_part(&mut trial, part)
                            && first_error(&trial) != Some((path.clone(), message.clone()))
                            && {
                                alone = trial;
                                true
                            }
                    })
                };
                let Some(part) = part else {
                    if message.starts_with("unknown field") {
                        errors.extend(alone.keys().map(|key| unknown_setting(key)));
                        alone = serde_json::Map::new();
                        break;
                    }
                    let (wanted, got) = wanted_and_got(&message);
                    errors.extend(alone.into_iter().map(|(key, _)| {
                        Error::invalid(
                            key,
                            format!("enter {wanted}: the link's value is replaced by the default"),
                            &got,
                        )
                    }));
                    alone = serde_json::Map::new();
                    break;
                };
                let (wanted, got) = wanted_and_got(&message);
                errors.push(at_control(Error::invalid(
                    part,
                    format!("enter {wanted}: the link's value is replaced by the default"),
                    got,
                )));
            }
            kept.extend(alone);
        }
        // Cross-field and range checks: drop the field (or the part of it) that each error is
        // about until the rest is valid.
        loop {
            let config = read_map(&kept).unwrap_or_default();
            let Err(e) = config.validate() else {
                return (config, errors);
            };
            let field = e.field().unwrap_or("").to_string();
            if fall_back_part(&mut kept, &field) {
                errors.push(e);
                continue;
            }
            // The field that cures the error: the one it names, or another whose value it is
            // about (a tilt's error is shown at the loss, an algorithm's need at a field left at
            // its default). Only a removal that changes the error cures it, so a valid loss is
            // not dropped for its tilt.
            let root = field.split('.').next().unwrap_or("");
            let keys: Vec<String> = kept.keys().cloned().collect();
            let culprit = keys
                .iter()
                .filter(|key| *key == root)
                .chain(keys.iter().filter(|key| *key != root))
                .find(|key| {
                    let value = kept.remove(*key).unwrap_or_default();
                    let cures =
                        read_map(&kept).map_or(true, |c| c.validate().err().as_ref() != Some(&e));
                    kept.insert((*key).clone(), value);
                    cures
                });
            match culprit.and_then(|key| kept.remove_entry(key)) {
                Some((key, _)) if key == root => errors.push(e),
                Some((key, value)) => errors.push(at_control(Error::invalid(
                    key,
                    clash_text(&field, &e),
                    value,
                ))),
                None => {
                    errors.push(e);
                    return (RunConfig::default(), errors);
                }
            }
        }
    }
}

/// What to do about a link's field that clashed with another of the link's settings (`field`,
/// whose error `e` it caused): choose it again from the menu, which meets its needs; and why, in
/// the other setting's own words (shortened, so the message stays one sentence a phone shows).
fn clash_text(field: &str, e: &Error) -> String {
    let label = Control::label_of(field).unwrap_or("other settings");
    let shorten = |text: &str, most: usize| -> String {
        let text = text.trim_end_matches('.');
        if text.chars().count() > most {
            text.chars().take(most).chain(['…']).collect()
        } else {
            text.to_string()
        }
    };
    match e {
        Error::InvalidParameter { expected, got, .. } => format!(
            "choose it again from the menu, which sets what it needs (the link's {label}{}: {}); \
             the default is used",
            if got.is_empty() {
                String::new()
            } else {
                format!(" {}", shorten(got, 40))
            },
            shorten(expected, 110),
        ),
        _ => format!(
            "choose it again from the menu, which sets what it needs (it clashed with the \
             link's {label}); the default is used"
        ),
    }
}

/// Reads a [`RunConfig`] from JSON text, keeping the path of a field that fails. The one reader
/// of `RunConfig` in the crate: serde compiles all of the config's visitors once per
/// deserializer type it is read with, and three readers (text, a map, a map with paths) took
/// 77 KB more of the wasm than one (README "Keeping the wasm small").
fn read_tracked(
    text: &str,
) -> std::result::Result<RunConfig, serde_path_to_error::Error<serde_json::Error>> {
    serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_str(text))
}

/// [`read_tracked`] of a map of settings, through its JSON text (numbers print and read back
/// bit for bit: `float_roundtrip`).
fn read_map(
    map: &serde_json::Map<String, serde_json::Value>,
) -> std::result::Result<RunConfig, serde_path_to_error::Error<serde_json::Error>> {
    read_tracked(&serde_json::Value::Object(map.clone()).to_string())
}

/// The first reason the one-field map `alone` cannot be read as a [`RunConfig`] field: an array
/// where none belongs, or serde's error, as (path, message).
fn first_error(alone: &serde_json::Map<String, serde_json::Value>) -> Option<(String, String)> {
    for (key, value) in alone {
        if let Err(Error::InvalidParameter { field, got, .. }) = positional(key, value) {
            return Some((field, format!("{got}, not an object or a single value")));
        }
    }
    read_map(alone).err().map(|e| {
        (
            e.path().to_string(),
            strip_position(&e.into_inner().to_string()),
        )
    })
}

/// The page's default of each parameter a choice carries (`loss.delta` of the Huber loss, …),
/// as www/app.js sets them when a person picks the choice: a link's bad parameter falls back to
/// it and keeps the choice. A parameter not listed has a serde default, or none (the whole field
/// then falls back).
const PART_DEFAULTS: [(&str, &str, f64); 10] = [
    ("smoothed_hinge", "gamma", 1.0),
    ("huber", "delta", 1.0),
    ("squared", "label_bound", 1.0),
    ("tilted", "tau", 1.0),
    ("adversarial", "radius", 0.1),
    ("student_t", "nu", 3.0),
    ("pareto_radial", "alpha", 3.0),
    ("log_normal", "sigma", 1.0),
    ("contaminated", "p", 0.05),
    ("contaminated", "scale", 10.0),
];

/// Sets the part `key.part` of `map`'s object to its default (or removes it when serde has one),
/// if `path` names such a part (an error at `loss.tau` names the tilt, whose object is `wrap`).
/// Returns whether it did; the kind, and the path's other forms, are never fallen back here.
fn fall_back_part(map: &mut serde_json::Map<String, serde_json::Value>, path: &str) -> bool {
    let Some((root, part)) = path.split_once('.') else {
        return false;
    };
    if part == "kind" || part.contains('.') {
        return false;
    }
    // The loss's control shows the aggregation's errors, under the loss's name.
    let roots: &[&str] = if root == Control::Loss.id() {
        &["loss", "wrap"]
    } else {
        &[root]
    };
    for root in roots {
        let Some(serde_json::Value::Object(object)) = map.get_mut(*root) else {
            continue;
        };
        if !object.contains_key(part) {
            continue;
        }
        let kind = object.get("kind").and_then(|k| k.as_str()).unwrap_or("");
        match PART_DEFAULTS
            .iter()
            .find(|(k, p, _)| *k == kind && *p == part)
        {
            Some((_, _, v)) if object.get(part) != Some(&serde_json::json!(v)) => {
                object.insert(part.to_string(), serde_json::json!(v));
            }
            Some(_) => return false,
            None => {
                object.remove(part);
            }
        }
        return true;
    }
    false
}

/// A control on the page: a [`RunConfig`] key whose element id is the key itself, and beside which
/// the page shows an error in `<p id="<id>-error">`. Every error the session's entry points raise
/// ([`RunConfig::check`], [`crate::algo::registry::plan`], [`crate::session::preview`],
/// [`crate::session::Lab::new`]) names one of these (a `.sub` suffix, as in `loss.label_bound`,
/// names a part of the control), so that it lands next to something the user can change.
///
/// `wrap` is the one key without a control of its own: the aggregation sits under the loss, whose
/// error line shows both, so its errors are named at [`Control::Loss`] ([`at_control`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Control {
    /// `seed`: every random stream of the run.
    Seed,
    /// `unseeded_noise`: noise from the operating system.
    UnseededNoise,
    /// `noise_draw`: which noise draw of the seed (the data stay).
    NoiseDraw,
    /// `data`: synthetic, sparse or the loaded CSV file.
    Data,
    /// `problem`: minimisation or saddle point.
    Problem,
    /// `game`: the saddle problem's game.
    Game,
    /// `records`: bounded or heavy-tailed game records.
    Records,
    /// `entry_bound`: the declared bound c on a game record's entries.
    EntryBound,
    /// `mu_x`: the game's strong convexity in x.
    MuX,
    /// `mu_y`: the game's strong concavity in y.
    MuY,
    /// `clip_records`: heavy game records clipped to ±c (off: a NOT PRIVATE demonstration).
    ClipRecords,
    /// `n`: the number of samples.
    N,
    /// `d`: the dimension.
    D,
    /// `tail`: the features' distribution and its parameters (`tail.nu`, …).
    Tail,
    /// `feature_scale`: the synthetic features' scale.
    FeatureScale,
    /// `signal`: ‖w₀‖ of the planted parameter. Only a link sets it (the page has no control), so
    /// its errors show in the run's error line ([`Control::on_page`]).
    Signal,
    /// `label_noise`: label flips or the regression noise's scale.
    LabelNoise,
    /// `noise_tail`: the regression noise's law and its parameter (`noise_tail.nu`, …).
    NoiseTail,
    /// `sparsity`: non-zeros of the sparse data's w₀.
    Sparsity,
    /// `loss`: the per-sample loss, its parameters (`loss.delta`, `loss.label_bound`, …) and the
    /// aggregation (`wrap`).
    Loss,
    /// `feature_bound`: the declared ‖x‖ bound (and so the Lipschitz constant).
    FeatureBound,
    /// `domain`: the constraint set W.
    Domain,
    /// `radius`: the radius of W.
    Radius,
    /// `l2`: the ridge λ, the declared strong convexity μ.
    L2,
    /// `l1`: the lasso λ₁.
    L1,
    /// `epsilon`: the privacy budget ε.
    Epsilon,
    /// `delta`: δ (0 asks for pure ε-DP).
    Delta,
    /// `relation`: the neighbouring relation.
    Relation,
    /// `algorithm`: the main algorithm.
    Algorithm,
    /// `compare`: the compared algorithms (their errors are restated here, see [`Error::in_compare`]).
    Compare,
    /// `steps`: iterations T, or epochs.
    Steps,
    /// `step_size`: the step size η.
    StepSize,
    /// `batch`: the expected minibatch size (and so the sampling rate b/n and epoch lengths).
    Batch,
    /// `clip`: the per-sample gradient clip C.
    Clip,
    /// `svrg_noise`: DP-SVRG's certified or printed noise.
    SvrgNoise,
    /// `solver`: the base solver of output perturbation, and its target accuracy α.
    Solver,
    /// `gaussian`: the Gaussian calibration of one release.
    Gaussian,
    /// `grid_resolution`: the exponential mechanism's grid.
    GridResolution,
    /// `repeats`: independent noise draws of the same run.
    Repeats,
    /// `leak`: the pitfall demonstration.
    Leak,
    /// `moment_k`: the moment order k of the heavy-tail algorithms.
    MomentK,
    /// `repetitions`: J, the calls per phase of localisation.
    Repetitions,
    /// `lambda1`: the base ridge λ₁ of localisation.
    Lambda1,
    /// `minimax_solver`: the base solver of Zhang et al. 2022's minimax algorithms.
    MinimaxSolver,
    /// `heavy_solver`: the certified solver of the localized heavy-tail families.
    HeavySolver,
    /// `budget_u`: the gradient budget U of González et al.'s Algorithm 3.
    BudgetU,
}

/// A control serialises as its id (the page finds the element by it).
impl Serialize for Control {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(self.id())
    }
}

impl Control {
    /// Every control, in [`RunConfig`]'s field order.
    pub const ALL: [Control; 46] = [
        Control::Seed,
        Control::UnseededNoise,
        Control::NoiseDraw,
        Control::Data,
        Control::Problem,
        Control::Game,
        Control::Records,
        Control::EntryBound,
        Control::MuX,
        Control::MuY,
        Control::ClipRecords,
        Control::N,
        Control::D,
        Control::Tail,
        Control::FeatureScale,
        Control::Signal,
        Control::LabelNoise,
        Control::NoiseTail,
        Control::Sparsity,
        Control::Loss,
        Control::FeatureBound,
        Control::Domain,
        Control::Radius,
        Control::L2,
        Control::L1,
        Control::Epsilon,
        Control::Delta,
        Control::Relation,
        Control::Algorithm,
        Control::Compare,
        Control::Steps,
        Control::StepSize,
        Control::Batch,
        Control::Clip,
        Control::SvrgNoise,
        Control::Solver,
        Control::Gaussian,
        Control::GridResolution,
        Control::Repeats,
        Control::Leak,
        Control::MomentK,
        Control::Repetitions,
        Control::Lambda1,
        Control::MinimaxSolver,
        Control::HeavySolver,
        Control::BudgetU,
    ];

    /// The [`RunConfig`] key, which is also the id of the control's element on the page.
    pub fn id(self) -> &'static str {
        match self {
            Control::Seed => "seed",
            Control::UnseededNoise => "unseeded_noise",
            Control::NoiseDraw => "noise_draw",
            Control::Data => "data",
            Control::Problem => "problem",
            Control::Game => "game",
            Control::Records => "records",
            Control::EntryBound => "entry_bound",
            Control::MuX => "mu_x",
            Control::MuY => "mu_y",
            Control::ClipRecords => "clip_records",
            Control::N => "n",
            Control::D => "d",
            Control::Tail => "tail",
            Control::FeatureScale => "feature_scale",
            Control::Signal => "signal",
            Control::LabelNoise => "label_noise",
            Control::NoiseTail => "noise_tail",
            Control::Sparsity => "sparsity",
            Control::Loss => "loss",
            Control::FeatureBound => "feature_bound",
            Control::Domain => "domain",
            Control::Radius => "radius",
            Control::L2 => "l2",
            Control::L1 => "l1",
            Control::Epsilon => "epsilon",
            Control::Delta => "delta",
            Control::Relation => "relation",
            Control::Algorithm => "algorithm",
            Control::Compare => "compare",
            Control::Steps => "steps",
            Control::StepSize => "step_size",
            Control::Batch => "batch",
            Control::Clip => "clip",
            Control::SvrgNoise => "svrg_noise",
            Control::Solver => "solver",
            Control::Gaussian => "gaussian",
            Control::GridResolution => "grid_resolution",
            Control::Repeats => "repeats",
            Control::Leak => "leak",
            Control::MomentK => "moment_k",
            Control::Repetitions => "repetitions",
            Control::Lambda1 => "lambda1",
            Control::MinimaxSolver => "minimax_solver",
            Control::HeavySolver => "heavy_solver",
            Control::BudgetU => "budget_u",
        }
    }

    /// The control an error's `field` names (`loss.label_bound` names [`Control::Loss`]), or
    /// `None` when the field is no control's: then the page can only show it in the run's error
    /// line, far from anything to change.
    pub fn of(field: &str) -> Option<Control> {
        let key = field.split('.').next().unwrap_or(field);
        Control::ALL.into_iter().find(|c| c.id() == key)
    }

    /// The control's label as the page shows it (index.html's `<label>`, without its help in
    /// parentheses): the words an error uses to name the control, since a person finds the
    /// control by what it says, not by its key.
    pub fn label(self) -> &'static str {
        match self {
            Control::Seed => "seed",
            Control::UnseededNoise => "fresh noise from the OS",
            Control::NoiseDraw => "noise draw",
            Control::Data => "data source",
            Control::Problem => "problem",
            Control::Game => "game",
            Control::Records => "records",
            Control::EntryBound => "declared entry bound c",
            Control::MuX => "strong convexity μx",
            Control::MuY => "strong concavity μy",
            Control::ClipRecords => "clip heavy-tailed records to ±c",
            Control::N => "samples n",
            Control::D => "dimension d",
            Control::Tail => "feature tails",
            Control::FeatureScale => "feature scale",
            // No control: a link alone sets it, and its error shows in the run's line.
            Control::Signal => "the link's signal ‖w₀‖",
            Control::LabelNoise => "label noise",
            Control::NoiseTail => "regression noise",
            Control::Sparsity => "non-zeros of w₀",
            Control::Loss => "loss",
            Control::FeatureBound => "declared ‖x‖ bound",
            Control::Domain => "domain W",
            Control::Radius => "radius r of W",
            Control::L2 => "ridge λ",
            Control::L1 => "lasso λ₁",
            Control::Epsilon => "privacy ε",
            Control::Delta => "δ",
            Control::Relation => "neighbouring datasets",
            Control::Algorithm => "algorithm",
            Control::Compare => "compare with",
            Control::Steps => "steps T",
            Control::StepSize => "step size η",
            Control::Batch => "batch b",
            Control::Clip => "gradient clip C",
            Control::SvrgNoise => "DP-SVRG noise",
            Control::Solver => "base solver",
            Control::Gaussian => "Gaussian calibration",
            Control::GridResolution => "grid points per axis",
            Control::Repeats => "repeats R",
            Control::Leak => "demonstrate the pitfall",
            Control::MomentK => "moment order k",
            Control::Repetitions => "calls per phase J",
            Control::Lambda1 => "base ridge λ₁",
            Control::MinimaxSolver => "minimax base solver",
            Control::HeavySolver => "certified solver",
            Control::BudgetU => "gradient budget U",
        }
    }

    /// The label of the control (or of the part of it) an error's `field` names: a loss's or a
    /// tail's parameter has a field of its own on the page (`loss.tau` is the tilt τ), labelled as
    /// www/app.js labels it. `None` when the field is no control's.
    pub fn label_of(field: &str) -> Option<&'static str> {
        let control = Control::of(field)?;
        let part = field.split_once('.').map(|(_, part)| part);
        Some(match (control, part) {
            (Control::Loss, Some("tau")) => "tilt τ",
            (Control::Loss, Some("radius")) => "perturbation radius",
            (Control::Loss, Some("label_bound")) => "declared label bound |y|",
            (Control::Loss, Some("gamma")) => "smoothing γ",
            (Control::Loss, Some("delta")) => "Huber δ",
            (Control::Tail, Some("nu")) => "degrees of freedom ν",
            (Control::Tail, Some("alpha")) => "tail index α",
            (Control::Tail, Some("sigma")) => "log-normal σ",
            (Control::Tail, Some("scale")) => "outlier scale",
            (Control::Tail, Some("a")) => "outlier size a",
            (Control::NoiseTail, Some("nu")) => "noise degrees of freedom ν",
            (Control::NoiseTail, Some("alpha")) => "noise tail index α",
            (Control::Tail, Some("p")) => "outlier",
            _ => control.label(),
        })
    }

    /// Whether the page shows this control (with its error line). Only [`Control::Signal`] is
    /// set by links alone.
    pub fn on_page(self) -> bool {
        self != Control::Signal
    }
}

/// The page's words for a choice's serialised value (`l2_ball` is the "ℓ2 ball" of the domain
/// menu), as index.html's options say them, without their help in parentheses; a value not
/// listed is returned as it is. Errors name choices by these, so a person finds them in the menu.
pub fn option_label(value: &str) -> &str {
    const OPTIONS: [(&str, &str); 36] = [
        ("l2_ball", "ℓ2 ball"),
        ("l1_ball", "ℓ1 ball"),
        ("box", "box"),
        ("simplex", "probability simplex"),
        ("unconstrained", "unconstrained"),
        ("gd", "GD"),
        ("agd", "AGD"),
        ("sgd", "SGD"),
        ("svrg", "SVRG"),
        ("katyusha", "Katyusha"),
        ("subgradient", "subgradient"),
        ("stochastic_subgradient", "stochastic subgradient"),
        ("gda", "gradient descent–ascent"),
        ("extragradient", "extragradient"),
        ("vr_extragradient", "variance-reduced extragradient"),
        ("replace_one", "replace one record"),
        ("add_remove", "add or remove one record"),
        ("logistic", "logistic"),
        ("hinge", "hinge"),
        ("smoothed_hinge", "smoothed hinge"),
        ("squared", "squared"),
        ("huber", "Huber"),
        ("absolute", "absolute value"),
        ("none", "mean (ERM)"),
        ("tilted", "tilted ERM"),
        ("adversarial", "adversarially robust"),
        ("rock_paper_scissors", "rock–paper–scissors"),
        ("random_matrix", "random matrix game"),
        ("ball_game", "random bilinear game on ℓ2 balls"),
        ("query_release", "query release"),
        ("l1_system_fit", "ℓ1 system fit"),
        ("group_dro_logistic", "worst-group logistic regression"),
        ("group_dro_squares", "worst-group least squares"),
        (
            "group_dro_logistic_simplex",
            "worst-group logistic regression, x on the simplex",
        ),
        (
            "group_dro_squares_simplex",
            "worst-group least squares, x on the simplex",
        ),
        ("auc_maximisation", "AUC maximisation"),
    ];
    OPTIONS
        .iter()
        .find(|(v, _)| *v == value)
        .map_or(value, |(_, label)| label)
}

/// The page's words for a serialisable choice (its `kind` for a choice with parameters, such
/// as a loss), see [`option_label`].
pub fn choice_label<T: Serialize>(value: &T) -> String {
    let kind = match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(serde_json::Value::Object(o)) => o
            .get("kind")
            .and_then(|k| k.as_str())
            .unwrap_or_default()
            .to_string(),
        _ => String::new(),
    };
    option_label(&kind).to_string()
}

/// The settings the algorithms (and the objective) name by their own names, and the control a
/// person changes for each: DP-SVRG's `epochs` are the page's steps T, DP-SGD's `sampling_rate`
/// is b/n, output perturbation's α is its base solver's target accuracy, the subgradient solver's
/// `regularizer.l1` is the lasso, …. Matched against the whole field first, then its first part.
const INTERNAL: [(&str, Control); 20] = [
    ("epochs", Control::Steps),
    ("epoch_length", Control::Batch),
    ("sampling_rate", Control::Batch),
    ("batch_size", Control::Batch),
    ("clip_norm", Control::Clip),
    ("mu", Control::L2),
    ("strong_convexity", Control::L2),
    ("regularizer.l2", Control::L2),
    // Algorithm 6's ridge λ and objective perturbation's tolerance γ (whose rounding floor
    // shrinks as μ grows) are both cured by a larger ridge.
    ("lambda", Control::L2),
    ("tolerance", Control::L2),
    ("regularizer.l1", Control::L1),
    // DP-AccMD refuses an ℓ1 penalty as a whole `regularizer`.
    ("regularizer", Control::L1),
    ("lipschitz", Control::FeatureBound),
    ("smoothness", Control::Loss),
    ("resolution", Control::GridResolution),
    ("variant", Control::Algorithm),
    ("c", Control::SvrgNoise),
    ("dimension", Control::D),
    // α is set from (ε, δ, n, d, μ) for the base solver, which is where the page offers a choice.
    ("alpha", Control::Solver),
    ("max_iters", Control::Solver),
];

/// Numbers the privacy calibration or a game derives from the settings, which a person changes at
/// another control: the key, that control, and what to do there (the derived number's own
/// range, "a finite number > 0", would send a person to a control that does not hold it).
const DERIVED: [(&str, Control, &str); 3] = [
    // z = σ/Δ of the accountants: 0 or ∞ only where ε is far from what the noise can carry.
    (
        "noise_multiplier",
        Control::Epsilon,
        "set ε nearer 1: the noise multiplier σ/Δ it calibrates must be finite and > 0",
    ),
    // A mechanism's Δ is the declared bounds' (‖x‖ times the loss's slope, over n and the ridge).
    (
        "sensitivity",
        Control::FeatureBound,
        "set it nearer 1: the sensitivity Δ the bounds declare must be finite and > 0",
    ),
    // A game's heavy-tailed records are drawn at the feature scale.
    (
        "noise_scale",
        Control::FeatureScale,
        "set a finite scale ≥ 0 for the heavy-tailed records",
    ),
];

/// An algorithm's (or the objective's) error restated at the control a person changes: its own
/// name for a setting (`epochs`, `sampling_rate`, `mu`, α, …) becomes the control's id, and a part
/// of the aggregation (`wrap.tau`) becomes the loss's, whose error line shows it. The page shows an
/// error beside the control whose id is the field. An error already at a control, or at no field,
/// is returned as it is.
pub fn at_control(error: Error) -> Error {
    let Error::InvalidParameter {
        field,
        expected,
        got,
    } = error
    else {
        return error;
    };
    let root = field.split('.').next().unwrap_or(&field);
    if let Some((_, control, todo)) = DERIVED.iter().find(|(key, ..)| *key == field) {
        return Error::InvalidParameter {
            field: control.id().to_string(),
            expected: todo.to_string(),
            got,
        };
    }
    if root == "wrap" {
        // The aggregation's control sits under the loss's, which shows its errors.
        return Error::InvalidParameter {
            field: format!("{}{}", Control::Loss.id(), &field[root.len()..]),
            expected,
            got,
        };
    }
    let internal = INTERNAL
        .iter()
        .find(|(name, _)| *name == field)
        .or_else(|| INTERNAL.iter().find(|(name, _)| *name == root));
    match internal {
        // The algorithm's own name for the setting is not on the page: the control's label is.
        Some((_, control)) => Error::InvalidParameter {
            field: control.id().to_string(),
            expected,
            got,
        },
        None => Error::InvalidParameter {
            field,
            expected,
            got,
        },
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

fn in_range(field: Control, v: f64, lo: f64, hi: f64) -> Result<()> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err(Error::invalid(
            field.id(),
            format!("a number in [{lo}, {hi}]"),
            v,
        ))
    }
}

fn in_range_usize(field: Control, v: usize, lo: usize, hi: usize) -> Result<()> {
    if (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(Error::invalid(
            field.id(),
            format!("an integer in [{lo}, {hi}]"),
            v,
        ))
    }
}

/// What a JSON value is, for messages.
fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

/// Refuses an array at `path` or inside it, except the list `compare`: serde reads a struct or a
/// tagged enum from an array by position (`"loss": ["huber", 1]` as Huber with δ = 1), a form the
/// page never writes and a person cannot check.
fn positional(path: &str, value: &serde_json::Value) -> Result<()> {
    match value {
        serde_json::Value::Array(_) if path != Control::Compare.id() => {
            Err(at_control(Error::invalid(
                path,
                "enter one value (or one menu choice with its parameters), not an array",
                "an array",
            )))
        }
        serde_json::Value::Object(map) => map
            .iter()
            .try_for_each(|(key, value)| positional(&format!("{path}.{key}"), value)),
        _ => Ok(()),
    }
}

/// The error for a setting the page has no control for (a misspelt or made-up key), at the link
/// (whose errors show in the run's line), with the key shown as it was.
fn unknown_setting(key: &str) -> Error {
    Error::invalid(
        "link",
        "remove this setting, which the page has no control for",
        key,
    )
}

/// The error for a number too large for a float (`1e999`), at the setting it was given for:
/// serde_json refuses the whole text, so the key is found before the error's position. Only a
/// top-level setting is named (a part of a choice would name the wrong control).
fn out_of_range(text: &str, e: &serde_json::Error) -> Option<Error> {
    if !e.to_string().starts_with("number out of range") {
        return None;
    }
    let offset: usize = text
        .split_inclusive('\n')
        .take(e.line().saturating_sub(1))
        .map(str::len)
        .sum::<usize>()
        + e.column();
    let before = text.get(..offset.min(text.len()))?;
    let colon = before.rfind(':')?;
    let key_end = before[..colon].trim_end().strip_suffix('"')?;
    let key = &key_end[key_end.rfind('"')? + 1..];
    let depth =
        (before[..colon].matches('{').count()).saturating_sub(before[..colon].matches('}').count());
    let control = Control::of(key).filter(|_| depth == 1)?;
    let number = before[colon + 1..].trim();
    Some(Error::invalid(
        control.id(),
        "enter a finite number: this one is beyond the largest a float holds",
        number,
    ))
}

/// serde's complaint about a value (`invalid type: string "x", expected f64`) in a person's
/// words: what to enter instead, and the value it had (`string "x"`), for an error at the field.
fn wanted_and_got(message: &str) -> (String, String) {
    let message = strip_position(message);
    let wanted = if message.contains("unknown variant") {
        "one of the menu's choices"
    } else if message.contains("expected f64") {
        "a number"
    } else if ["expected usize", "expected u64", "expected u32"]
        .iter()
        .any(|t| message.contains(t))
    {
        "a whole number ≥ 0"
    } else if message.contains("expected a boolean") || message.contains("expected bool") {
        "on or off"
    } else if message.contains("expected a sequence") {
        "a list of algorithms"
    } else {
        "a value the control offers"
    };
    let got = if let Some(rest) = message.strip_prefix("unknown variant `") {
        rest.split('`').next().unwrap_or("").to_string()
    } else if let Some(rest) = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "))
    {
        rest.split(", expected")
            .next()
            .unwrap_or("")
            .replace('`', "")
    } else {
        String::new()
    };
    (wanted.to_string(), got)
}

/// serde_json appends " at line L column C", which means nothing for a one-line hash.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field_of(json: &str) -> String {
        match RunConfig::from_json(json) {
            Err(Error::InvalidParameter { field, .. }) => field,
            other => panic!("expected a field error for {json}, got {other:?}"),
        }
    }

    #[test]
    fn defaults_round_trip_and_missing_fields_default() {
        let c = RunConfig::default();
        assert_eq!(RunConfig::from_json(&c.to_json()).unwrap(), c);
        let partial = RunConfig::from_json(r#"{"epsilon": 0.5}"#).unwrap();
        assert_eq!(partial.epsilon, 0.5);
        assert_eq!(partial.n, c.n);
    }

    #[test]
    fn every_bad_value_names_its_field() {
        assert_eq!(field_of(r#"{"epsilon": -1}"#), "epsilon");
        assert_eq!(field_of(r#"{"epsilon": "x"}"#), "epsilon");
        assert_eq!(field_of(r#"{"delta": 0}"#), "delta");
        assert_eq!(field_of(r#"{"n": 3}"#), "n");
        assert_eq!(field_of(r#"{"n": 1000000, "d": 1000}"#), "n");
        assert_eq!(field_of(r#"{"steps": 0}"#), "steps");
        assert_eq!(field_of(r#"{"seed": -4}"#), "seed");
        assert_eq!(field_of(r#"{"relation": "sideways"}"#), "relation");
        assert_eq!(field_of(r#"{"step_size": 0}"#), "step_size");
        assert_eq!(field_of(r#"{"unseeded_noise": 1}"#), "unseeded_noise");
        assert_eq!(field_of(r#"{"l2": -1}"#), "l2");
        assert_eq!(
            field_of(r#"{"algorithm": "output_perturbation", "l2": 0}"#),
            "l2"
        );
        assert!(RunConfig::from_json(r#"{"algorithm": "output_perturbation", "l2": 0.1}"#).is_ok());
    }

    #[test]
    fn the_controls_are_the_run_config_keys_but_wrap() {
        let json = serde_json::to_value(RunConfig::default()).unwrap_or_default();
        let keys: Vec<&str> = json
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let mut ids: Vec<&str> = Control::ALL.iter().map(|c| c.id()).collect();
        ids.push("wrap");
        ids.sort_unstable();
        let mut keys = keys;
        keys.sort_unstable();
        assert_eq!(ids, keys);
        for control in Control::ALL {
            assert_eq!(Control::of(control.id()), Some(control));
        }
        assert_eq!(Control::of("loss.label_bound"), Some(Control::Loss));
        assert_eq!(Control::of("epochs"), None);
    }

    #[test]
    fn every_internal_name_is_restated_at_a_control() {
        for (name, control) in INTERNAL {
            let e = at_control(Error::invalid(name, "something", 1));
            assert_eq!(e.field(), Some(control.id()), "{name}");
            // Named by the control's label, never by the algorithm's own name for it.
            assert!(e.to_string().starts_with(control.label()), "{e}");
        }
        // An error already at a control is left alone.
        let e = Error::invalid("loss.label_bound", "a finite number > 0", 0);
        assert_eq!(at_control(e.clone()), e);
    }

    #[test]
    fn a_bad_aggregation_is_named_at_the_loss_control() {
        // The aggregation has no error line of its own: the loss's shows it.
        // (serde names a tagged enum's error at the enum: `wrap`.)
        assert_eq!(
            field_of(r#"{"wrap": {"kind": "tilted", "tau": "x"}}"#),
            "loss"
        );
        assert_eq!(
            field_of(r#"{"wrap": {"kind": "tilted", "tau": 0}}"#),
            "loss.tau"
        );
    }

    #[test]
    fn every_residual_loss_declares_a_label_bound_named_in_its_errors() {
        for kind in ["squared", "huber", "absolute"] {
            let bad = format!(r#"{{"loss": {{"kind": "{kind}", "delta": 1, "label_bound": 0}}}}"#);
            assert_eq!(field_of(&bad), "loss.label_bound", "{kind}");
            let inf =
                format!(r#"{{"loss": {{"kind": "{kind}", "delta": 1, "label_bound": 1e400}}}}"#);
            assert!(RunConfig::from_json(&inf).is_err(), "{kind}");
        }
        // Links made before Huber and absolute declared one read the default bound.
        let old = RunConfig::from_json(r#"{"loss": {"kind": "absolute"}}"#).unwrap();
        assert_eq!(
            old.loss.label_bound(),
            Some(crate::loss::ROBUST_LABEL_BOUND)
        );
        assert_eq!(Glm::Logistic.label_bound(), None);
    }

    #[test]
    fn unknown_fields_and_broken_json_are_rejected() {
        assert!(matches!(
            RunConfig::from_json(r#"{"epsilom": 1}"#),
            Err(Error::InvalidParameter { .. }) | Err(Error::Parse { .. })
        ));
        assert!(matches!(
            RunConfig::from_json("{\"epsilon\": 1"),
            Err(Error::Parse { .. })
        ));
    }

    #[test]
    fn a_damaged_link_falls_back_field_by_field() {
        let (c, errors) = RunConfig::from_json_lenient(
            r#"{"epsilon": 0.5, "n": "lots", "seed": 9, "colour": "red", "delta": 7}"#,
        );
        assert_eq!(c.epsilon, 0.5);
        assert_eq!(c.seed, 9);
        assert_eq!(c.n, RunConfig::default().n);
        assert_eq!(c.delta, RunConfig::default().delta);
        let fields: Vec<&str> = errors.iter().filter_map(|e| e.field()).collect();
        // A setting the page has no control for is named at the link (its key shown as given).
        assert_eq!(fields, ["link", "n", "delta"]);
        assert!(errors[0].to_string().contains("colour"), "{}", errors[0]);
        // A choice that needs another field (here the unconstrained domain) falls back alone,
        // not the whole link.
        let (c, errors) =
            RunConfig::from_json_lenient(r#"{"algorithm": "objective_perturbation", "seed": 3}"#);
        assert_eq!((c.algorithm, c.seed), (AlgorithmKind::NoisyGd, 3));
        assert_eq!(errors.len(), 1);
        // Not an object at all: everything falls back, with one message at the link saying
        // what to do and where it broke.
        let (c, errors) = RunConfig::from_json_lenient("{\"epsilon\": 1");
        assert_eq!(c, RunConfig::default());
        match &errors[..] {
            [e] => {
                assert_eq!(e.field(), Some("link"));
                let shown = e.to_string();
                assert!(shown.contains("copy the link again"), "{shown}");
                assert!(shown.contains("damaged at character 13"), "{shown}");
            }
            other => panic!("one error at the link, got {other:?}"),
        }
        let (c, errors) = RunConfig::from_json_lenient(r#"{"epsilon": 0.25}"#);
        assert_eq!((c.epsilon, errors.len()), (0.25, 0));
    }

    /// The longest link the page can make: every field set (the longest variant of each choice,
    /// four algorithms compared), every number at full precision with the longest exponent.
    fn longest_link() -> String {
        let long = -1.234_567_890_123_456_7e-100;
        let config = RunConfig {
            seed: u32::MAX,
            n: usize::MAX,
            d: usize::MAX,
            tail: Tail::Contaminated {
                p: long,
                scale: long,
            },
            feature_scale: long,
            signal: long,
            label_noise: long,
            sparsity: usize::MAX,
            loss: Glm::Huber {
                delta: long,
                label_bound: long,
            },
            wrap: Wrap::Adversarial { radius: long },
            feature_bound: long,
            radius: long,
            l2: long,
            l1: long,
            epsilon: long,
            delta: long,
            relation: Relation::AddRemove,
            algorithm: AlgorithmKind::RegularisedOutputPerturbation,
            compare: vec![
                AlgorithmKind::DpSvrgPlusPlus,
                AlgorithmKind::ObjectivePerturbation,
                AlgorithmKind::ExponentialGrid,
            ],
            steps: usize::MAX,
            step_size: Some(long),
            batch: usize::MAX,
            clip: Some(long),
            grid_resolution: usize::MAX,
            repeats: usize::MAX,
            moment_k: long,
            repetitions: usize::MAX,
            lambda1: Some(long),
            ..RunConfig::default()
        };
        config.to_json()
    }

    #[test]
    fn the_link_cap_is_far_above_the_longest_link_the_page_makes() {
        let longest = longest_link().len();
        assert!(longest < 1600, "{longest} bytes");
        assert!(MAX_LINK_BYTES >= 50 * longest);
    }

    #[test]
    fn an_over_long_link_is_refused_saying_what_to_do() {
        // A link is read only up to MAX_LINK_BYTES.
        let padded = format!(
            r#"{{"epsilon": 0.5, "pad": "{}"}}"#,
            "x".repeat(MAX_LINK_BYTES)
        );
        let (c, errors) = RunConfig::from_json_lenient(&padded);
        assert_eq!(c, RunConfig::default());
        match &errors[..] {
            [e @ Error::InvalidParameter { field, got, .. }] => {
                assert_eq!(field, "link");
                assert_eq!(got, &format!("{} bytes", padded.len()));
                let shown = e.to_string();
                assert!(shown.contains("Copy link"), "{shown}");
                assert!(shown.len() < 300, "{shown}");
            }
            other => panic!("expected one error at the link, got {other:?}"),
        }
        // A link of exactly the cap is read.
        let fits = format!(
            r#"{{"epsilon": 0.5, "pad": "{}"}}"#,
            "x".repeat(2 * MAX_LINK_BYTES - padded.len())
        );
        assert_eq!(fits.len(), MAX_LINK_BYTES);
        let (c, errors) = RunConfig::from_json_lenient(&fits);
        assert_eq!(c.epsilon, 0.5);
        assert_eq!(
            errors.iter().filter_map(Error::field).collect::<Vec<_>>(),
            ["link"]
        );
    }

    #[test]
    fn a_game_is_checked_at_the_controls_that_pose_it() {
        let game = |json: &str| {
            // The game's own checks (a family that solves games is the registry's check).
            let mut full: serde_json::Value =
                serde_json::from_str(r#"{"problem": "saddle", "d": 3}"#).unwrap();
            let changes: serde_json::Value = serde_json::from_str(&format!("{{{json}}}")).unwrap();
            for (k, v) in changes.as_object().unwrap() {
                full[k] = v.clone();
            }
            let config: RunConfig = serde_json::from_value(full).unwrap();
            config.validate_game().map(|()| config)
        };
        let field = |json: &str| game(json).unwrap_err().field().map(String::from);
        assert!(game(r#""game": "rock_paper_scissors""#).is_ok());
        assert_eq!(field(r#""d": 2"#).as_deref(), Some("d"));
        assert_eq!(
            field(r#""entry_bound": 0.1"#).as_deref(),
            Some("entry_bound")
        );
        assert_eq!(field(r#""mu_y": -1"#).as_deref(), Some("mu_y"));
        assert_eq!(
            field(r#""game": "random_matrix", "d": 101"#).as_deref(),
            Some("d")
        );
        assert_eq!(field(r#""n": 1000000, "d": 10"#).as_deref(), Some("n"));
        // Query release: d counts binary attributes (2 to 6), its records are universe elements.
        let release = game(r#""game": "query_release", "d": 4"#).unwrap();
        assert_eq!(release.game_dims(), (16, 48));
        let spec = release.game_spec();
        assert_eq!((spec.dx, spec.dy), (16, 48));
        assert_eq!(
            field(r#""game": "query_release", "d": 7"#).as_deref(),
            Some("d")
        );
        assert_eq!(
            field(r#""game": "query_release", "records": "heavy""#).as_deref(),
            Some("records")
        );
        assert_eq!(
            field(r#""game": "query_release", "entry_bound": 0.7"#).as_deref(),
            Some("entry_bound")
        );
    }
}
