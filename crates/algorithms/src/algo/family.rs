//! What an algorithm family declares about itself, once, in its own file: its card, the settings
//! it reads, what it needs of the problem, and a data-free [`Plan`].
//!
//! The plan is the only place a guarantee and its noise law are computed, from the lane's typed
//! [`Settings`] and the [`ProblemDeclaration`] alone (docs/PRIVACY.md rule 2; OpenDP's rule that
//! the privacy map is known before the data), never from the page's configuration itself. The
//! session, the page and the audits all go through it: [`crate::algo::registry`] lists the
//! families.

use serde::{Deserialize, Serialize};

use super::choices::DomainChoice;
use super::kinds::AlgorithmKind;
use super::registry::Planned;
use super::run::Run;
use super::settings::Settings;
use super::{Draws, NoiseShape};
use crate::algo::problem::{Posed, ProblemDeclaration};
use crate::controls::Control;
use crate::domain::Domain;
use crate::error::{Error, Result};
use crate::privacy::calibration::GaussianRow;
use crate::privacy::{Guarantee, Rdp, Relation};
use crate::rng::DpRng;
use crate::theory::curve::Curve;

/// The two kinds of problem a run can pose. A family names the kinds it solves; a run on another
/// kind is refused at the `problem` field before any data are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    /// min over w ∈ W of F(w): ERM, tilted ERM or the adversarially robust loss. Scored by the
    /// excess risk F(w) − F*.
    #[default]
    Minimisation,
    /// min over x max over y of f(x, y) on two domains ([`crate::minimax::SaddleProblem`]).
    /// Scored by a bracket on the duality gap.
    Saddle,
}

impl ProblemKind {
    /// The kind in words, as a note names it.
    pub fn name(self) -> &'static str {
        match self {
            ProblemKind::Minimisation => "minimisation",
            ProblemKind::Saddle => "saddle-point",
        }
    }

    /// What the session measures on this kind of problem, named on the plot that draws it.
    pub fn metric(self) -> &'static str {
        match self {
            ProblemKind::Minimisation => "excess empirical risk F(w) − F*",
            ProblemKind::Saddle => "duality gap max_y f(x, y) − min_x f(x, y)",
        }
    }
}

/// Whether a family offers pure ε-DP (δ = 0), approximate (ε, δ)-DP, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Purity {
    /// (ε, δ) with δ > 0 only.
    Approximate,
    /// Pure ε at δ = 0, (ε, δ) otherwise.
    Either,
    /// Pure ε only: its δ is 0 whatever the config says.
    Pure,
}

/// A setting as one family reads it: the label and help the page shows beside its control.
///
/// The help is prose the wasm module does not carry (see [`CardText`]): the page reads it from
/// `pkg/cards.json`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SettingUse {
    /// The config key it reads, which is also its control's id.
    pub key: Control,
    /// The control's label on the page, with the paper's symbol (e.g. "steps T").
    pub label: &'static str,
    /// One line shown beside the control: what the setting does in this family.
    #[cfg(not(target_arch = "wasm32"))]
    pub help: &'static str,
}

/// Shorthand for a family's settings table (on wasm32 the help is dropped: see [`SettingUse`]).
pub const fn setting(key: Control, label: &'static str, help: &'static str) -> SettingUse {
    #[cfg(target_arch = "wasm32")]
    let _ = help;
    SettingUse {
        key,
        label,
        #[cfg(not(target_arch = "wasm32"))]
        help,
    }
}

/// The fewest records a run needs at a lane's settings (see [`Need::MinRecords`]): a function
/// of the settings and declared constants only. Two are equal when they are the same function.
#[derive(Debug, Clone, Copy)]
pub struct RecordsAt(pub fn(&Settings, &ProblemDeclaration) -> usize);

impl PartialEq for RecordsAt {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::fn_addr_eq(self.0, other.0)
    }
}

/// What a family needs of the problem and its settings before it can run. Checked before any data
/// are read; picking the family from the menu sets each unmet need and says so
/// (`config::needs`, which checks and meets them on a whole configuration), so that every
/// algorithm runs as picked.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Need {
    /// A ridge `l2` > 0 (a strongly convex objective); picking sets `l2 = value`.
    Ridge {
        /// The `l2` picking sets, > 0.
        value: f64,
        /// Why the family needs it, shown in the error at the field and in the adjustment note.
        why: &'static str,
    },
    /// One of these constraint sets; picking sets the first.
    Domains {
        /// The constraint sets the family runs on (the first is the one picking sets).
        allowed: &'static [DomainChoice],
        /// Why the family needs it, shown in the error at the field and in the adjustment note.
        why: &'static str,
    },
    /// A base solver certified on smooth objectives (not a subgradient method); picking sets AGD.
    SmoothSolver {
        /// Why the family needs it, shown in the error at the field and in the adjustment note.
        why: &'static str,
    },
    /// The logistic loss.
    Logistic {
        /// Why the family needs it, shown in the error at the field and in the adjustment note.
        why: &'static str,
    },
    /// A smooth loss; picking sets the logistic loss.
    SmoothLoss {
        /// Why the family needs it, shown in the error at the field and in the adjustment note.
        why: &'static str,
    },
    /// A polyhedral loss (absolute value or hinge); picking sets the absolute value.
    PolyhedralLoss {
        /// Why the family needs it, shown in the error at the field and in the adjustment note.
        why: &'static str,
    },
    /// Plain ERM (no tilt, no adversarial loss).
    PlainErm {
        /// Why the family needs it, shown in the error at the field and in the adjustment note.
        why: &'static str,
    },
    /// ERM or the adversarial loss, not tilted ERM.
    NotTilted {
        /// Why the family needs it, shown in the error at the field and in the adjustment note.
        why: &'static str,
    },
    /// At most `max` steps (epochs); picking sets `steps = pick` when above.
    MaxSteps {
        /// The largest `steps` the family accepts.
        max: usize,
        /// The `steps` picking sets when above `max` (≤ `max`).
        pick: usize,
        /// Why the family needs it, shown in the error at the field and in the adjustment note.
        why: &'static str,
    },
    /// Dimension d ≤ `max`; picking sets `d = max` when above.
    MaxDimension {
        /// The largest d the family accepts; picking sets d to it (not for a loaded file).
        max: usize,
        /// Why the family needs it, shown in the error at the field and in the adjustment note.
        why: &'static str,
    },
    /// At least `min` records; picking sets `n` to the larger of `min` and `at_settings` when
    /// below (not for a loaded file).
    MinRecords {
        /// The fewest records the family accepts.
        min: usize,
        /// The fewest records with which a run at these settings (ε, δ, the game) does more than
        /// release its public start, from declared constants alone: picking raises n to it, so a
        /// newcomer's pick runs; below it the plan refuses at ε and names both remedies.
        #[serde(skip)]
        at_settings: RecordsAt,
        /// Why the family needs it, shown in the error at the field and in the adjustment note.
        why: &'static str,
    },
    /// No lasso term (`l1` = 0).
    NoLasso {
        /// Why the family needs it, shown in the error at the field and in the adjustment note.
        why: &'static str,
    },
    /// A game strongly convex in x (`mu_x` > 0) when `x` says so, and strongly concave in y
    /// (`mu_y` > 0); picking sets each that is 0 to `value`.
    GameModuli {
        /// Whether μₓ > 0 is needed too (not only μᵧ > 0).
        x: bool,
        /// The μ picking sets, > 0.
        value: f64,
        /// Why the family needs it, shown in the error at the field and in the adjustment note.
        why: &'static str,
    },
}

/// An algorithm's card: what the page shows about it. `summary` quotes the module's own
/// paragraph, kept beside the code it describes.
///
/// Only `name` (menus, legends, error messages) and `module` are compiled into the wasm module:
/// the prose is authored here, read by the native tests, and served to the page as
/// `pkg/cards.json`, which the native binary writes at build time (`dp-playground cards`,
/// `catalog::prose`); the page fetches it when it first shows a card. It was most of the
/// module's data section (docs/benchmarks.md, "Keeping the wasm small"). Families build it with
/// the `card_text!` macro, which drops the prose on wasm32.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CardText {
    /// Short name for menus and legends.
    pub name: &'static str,
    /// Paper (authors, title, year), algorithm and theorem.
    #[cfg(not(target_arch = "wasm32"))]
    pub source: &'static str,
    /// What F, the data and the domain must satisfy for the guarantee and the bound.
    #[cfg(not(target_arch = "wasm32"))]
    pub assumptions: &'static str,
    /// How the guarantee is obtained: the mechanism and how its releases compose.
    #[cfg(not(target_arch = "wasm32"))]
    pub privacy: &'static str,
    /// The paper's utility bound, with its theorem.
    #[cfg(not(target_arch = "wasm32"))]
    pub utility: &'static str,
    /// What the plots should show when it runs.
    #[cfg(not(target_arch = "wasm32"))]
    pub watch: &'static str,
    /// The module with the full statement and every correction to the paper.
    pub module: &'static str,
    /// The module's own one-paragraph card (quoted, not restated).
    #[cfg(not(target_arch = "wasm32"))]
    pub summary: &'static str,
}

/// A family's [`CardText`], its fields in declaration order. On wasm32 the prose is still
/// type-checked (a `let _`, evaluated at compile time) but not stored, so none of its text is
/// in the module.
macro_rules! card_text {
    (
        name: $name:expr,
        source: $source:expr,
        assumptions: $assumptions:expr,
        privacy: $privacy:expr,
        utility: $utility:expr,
        watch: $watch:expr,
        module: $module:expr,
        summary: $summary:expr $(,)?
    ) => {{
        #[cfg(target_arch = "wasm32")]
        let _: [&'static str; 6] = [$source, $assumptions, $privacy, $utility, $watch, $summary];
        $crate::algo::family::CardText {
            name: $name,
            #[cfg(not(target_arch = "wasm32"))]
            source: $source,
            #[cfg(not(target_arch = "wasm32"))]
            assumptions: $assumptions,
            #[cfg(not(target_arch = "wasm32"))]
            privacy: $privacy,
            #[cfg(not(target_arch = "wasm32"))]
            utility: $utility,
            #[cfg(not(target_arch = "wasm32"))]
            watch: $watch,
            module: $module,
            #[cfg(not(target_arch = "wasm32"))]
            summary: $summary,
        }
    }};
}
pub(crate) use card_text;

/// One algorithm family, declared once in its own file and listed in
/// [`crate::algo::registry::FAMILIES`].
pub struct Family {
    /// The menu entry it implements: one family per [`AlgorithmKind`], the registry's key.
    pub kind: AlgorithmKind,
    /// What the page shows about it.
    pub card: CardText,
    /// The run settings it reads (the page shows only these), with their labels and help.
    pub settings: &'static [SettingUse],
    /// What it needs of the problem; picking the family meets each need.
    pub needs: &'static [Need],
    /// The problem kinds it solves.
    pub solves: &'static [ProblemKind],
    /// Which statements it can make; picking an `Approximate` family at δ = 0 sets the default δ.
    pub purity: Purity,
    /// Its leaky demonstration (a pitfall shown on purpose), if it has one.
    pub demonstration: Demonstration,
    /// Whether its length (steps, gradient evaluations) is fixed by the settings or measured on
    /// the data, which decides whether the page labels its step counter NOT PRIVATE.
    pub length: RunLength,
    /// The data-free plan of a run of this family.
    pub plan: fn(&Settings, &ProblemDeclaration) -> Result<Planned>,
}

/// Whether a run's length — its steps, its gradient evaluations, so its step counter and the
/// extent of its ε-spent curve — is fixed by the settings. It is not for a solver run until its
/// certificate holds (output perturbation's base solvers, BYOA, Zhang et al.'s minimax
/// algorithms, Lowy & Razaviyayn's Algorithm 8, the heavy-tail families' certified solvers), a
/// privacy filter or a gradient budget that stops the run (González et al.'s Algorithms 3 and 4),
/// or minibatches drawn by Poisson subsampling (DP-SGD: the gradient count is the batch sizes'
/// sum, which the accountant keeps secret and which counts the records under add/remove). Such
/// readouts are NOT PRIVATE and the page labels them so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunLength {
    /// The counter advances by the same amount on every dataset and every noise draw of the
    /// settings (tests/data_dependent_readouts.rs checks it for every family it names).
    Fixed,
    /// The counter depends on the data: **non-private**.
    DataDependent,
}

/// A family's "demonstrate the pitfall" variant (the run is then NOT private).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Demonstration {
    /// It has none.
    None,
    /// It skips a step of the private algorithm on the clipped data.
    OnClippedData,
    /// It skips a gradient clip and leaves the features unclipped too: skipping a clip changes
    /// nothing when the features are clipped to the declared bound.
    Unclipped,
    /// It stops the base solver after `steps` iterations, certified or not.
    IterationCap,
    /// It calibrates its noise to a paper's misprinted sensitivity (Lowy & Razaviyayn 2021, Algorithm 8).
    Misprint,
}

/// The bounded constraint sets, the ℓ2 ball first (what picking sets).
pub const BOUNDED: &[DomainChoice] = &[
    DomainChoice::L2Ball,
    DomainChoice::L1Ball,
    DomainChoice::Box,
    DomainChoice::Simplex,
];

/// The problem kinds of a family that solves minimisation problems only.
pub const MINIMISATION: &[ProblemKind] = &[ProblemKind::Minimisation];

impl Family {
    /// Whether it reads `key`.
    pub fn takes(&self, key: Control) -> bool {
        self.settings.iter().any(|s| s.key == key)
    }

    /// Whether a lane of this family with the pitfall demonstration `leak` on leaves the
    /// features unclipped.
    pub fn unclipped_features(&self, leak: bool) -> bool {
        leak && self.demonstration == Demonstration::Unclipped
    }
}

/// How a run of one family proceeds, beyond its [`Preview`]: known before any data are read,
/// computed once per family and run, shared by every repeat. A family's `plan` pairs it with the
/// preview in a [`crate::algo::registry::Planned`].
pub trait Plan: Send + Sync {
    /// The theory bound as a curve, when the family's theory covers the setting. Some bounds are
    /// stated through F(w₀) − F* or ‖w*‖: a plot ingredient read from the problem (non-private),
    /// never a noise setting.
    fn theory(&self, _problem: &Posed, _preview: &Preview) -> Option<Curve> {
        None
    }
    /// Where [`Plan::theory`] draws no bound, what would make one apply: one line naming the
    /// missing condition and the control that meets it (the page shows it under the excess
    /// plot). `None`: the family does not say (its card's assumptions do).
    fn theory_missing(&self, _problem: &Posed, _preview: &Preview) -> Option<String> {
        None
    }
    /// The Rényi-DP curve of the whole run under the guarantee's own relation, when the family
    /// accounts in RDP (a series of runs then composes curves, not (ε, δ) statements).
    fn rdp(&self) -> Option<Rdp> {
        None
    }
    /// The running algorithm, on `problem` (a minimisation family takes [`Posed::min`], a saddle
    /// family [`Posed::saddle`]), drawing its noise from `noise` (`seeded` says the
    /// stream came from the seed, so the ledger can say the run is a demonstration).
    fn build(&self, problem: &Posed, noise: DpRng, seeded: bool) -> Result<Box<dyn Run>>;
}

/// What is known before any data are touched: the promise and the noise that buys it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Preview {
    /// Which algorithm ([`AlgorithmKind`], snake_case) — the key of its card.
    pub kind: AlgorithmKind,
    /// The algorithm and where it comes from, in words.
    pub algorithm: &'static str,
    /// The statement the release carries (ε, δ, relation; ρ when zCDP), fixed before the data.
    pub guarantee: Guarantee,
    /// The scale of each noise draw: per-coordinate σ (Gaussian), the ℓ2-Laplace scale, or the
    /// exponential mechanism's sensitivity.
    pub sigma: f64,
    /// The noise law of each release, in the units the run reports its noise norms in.
    pub noise: NoiseShape,
    /// How many noisy releases the run makes (T for DP-GD, 1 for output perturbation).
    pub releases: usize,
    /// The whole noise law: every draw's kind, scale and sensitivity, in order. The running
    /// algorithm reports its own ([`crate::algo::PrivateAlgorithm::draws`]) and `Session` refuses
    /// to run unless the two agree.
    pub draws: Vec<Draws>,
    /// Declared per-sample Lipschitz constant G.
    pub lipschitz: f64,
    /// ℓ2-sensitivity of one noisy release (for output perturbation Δ_T = Δ_F + 2ρ, which
    /// includes the solver's certified error ρ).
    pub sensitivity: f64,
    /// For one-release methods: the radius around the non-private solution within which a
    /// neighbouring dataset's solution may lie (the sensitivity ball of the parameter view).
    pub sensitivity_ball: Option<f64>,
    /// The step size of iterative methods.
    pub step_size: Option<f64>,
    /// For teaching: σ of a *single* Gaussian release of the same sensitivity at the whole
    /// (ε, δ), by the classical, ZWB+19 and analytic calibrations side by side (empty for pure ε).
    pub single_release: Vec<GaussianRow>,
    /// Why this run is NOT private (a leaky demonstration, DP-SVRG's as-printed noise): the very
    /// sentences its ledger's `leaks` will carry, so the page can say so before Play. Empty for
    /// an honest run.
    pub leaks: Vec<String>,
    /// What the session measures on this run's problem ([`ProblemKind::metric`]).
    pub metric: &'static str,
    /// The values the family's optional settings take when left blank (e.g. Algorithm 3's
    /// gradient budget U from Theorem 3.14), so the page can show them in the empty field.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub defaults: Vec<(Control, f64)>,
}

impl Preview {
    /// A preview of `releases` identical draws of `noise` (scale `sigma`), each of ℓ2-sensitivity
    /// `sensitivity`; the optional parts are filled in by the plan that needs them.
    pub fn new(
        kind: AlgorithmKind,
        algorithm: &'static str,
        guarantee: Guarantee,
        noise: (f64, NoiseShape),
        releases: usize,
        sensitivity: f64,
        lipschitz: f64,
    ) -> Self {
        let (sigma, noise) = noise;
        Preview {
            kind,
            algorithm,
            guarantee,
            sigma,
            noise,
            releases,
            draws: vec![Draws {
                noise,
                count: releases,
                sensitivity,
            }],
            lipschitz,
            sensitivity,
            sensitivity_ball: None,
            step_size: None,
            single_release: Vec::new(),
            leaks: Vec::new(),
            metric: ProblemKind::Minimisation.metric(),
            defaults: Vec::new(),
        }
    }

    /// False when a demonstration voids the guarantee (see [`Preview::leaks`]).
    pub fn is_private(&self) -> bool {
        self.leaks.is_empty()
    }

    /// With the "NOT PRIVATE" sentences: the same `describe()` texts the ledger's leaks carry.
    pub fn leaking<const N: usize>(mut self, sentences: [Option<&'static str>; N]) -> Self {
        self.leaks = sentences.into_iter().flatten().map(String::from).collect();
        self
    }
}

/// Whether two statements promise the same: ε, δ and relation (the accounting text may differ).
pub fn same_promise(a: &Guarantee, b: &Guarantee) -> bool {
    a.epsilon == b.epsilon && a.delta == b.delta && a.relation == b.relation
}

/// Neighbouring relations, one rule: every algorithm honours the `relation`
/// asked for, with a calibration that uses it, or refuses it here, at that field, saying why and
/// which relation it supports. It never states another relation than the one asked for.
pub fn replace_one_only(relation: Relation, why: &str) -> Result<()> {
    match relation {
        Relation::ReplaceOne => Ok(()),
        Relation::AddRemove => Err(Error::invalid(
            "relation",
            format!(
                "choose replace one record (same n, one record swapped), the only neighbours it \
                 is proved for: {why}"
            ),
            "add or remove one record",
        )),
    }
}

/// The (ε, δ) statement of an algorithm whose calibration is fixed for `relation` (checked by the
/// caller: [`replace_one_only`] or a sensitivity that depends on it).
pub fn statement(epsilon: f64, delta: f64, relation: Relation, what: &str) -> Guarantee {
    Guarantee {
        epsilon,
        delta,
        relation,
        rho: None,
        accounting: what.to_string(),
    }
}

/// The theory step size: 1/β for smooth objectives, D/(G√T) (the subgradient method's) otherwise.
pub fn default_step(declared: &ProblemDeclaration, steps: usize) -> f64 {
    let beta = declared.smoothness();
    if beta.is_finite() {
        return 1.0 / beta;
    }
    let diameter = declared.domain.diameter_in(declared.d);
    let scale = if diameter.is_finite() { diameter } else { 1.0 };
    scale / (declared.lipschitz() * (steps as f64).sqrt())
}
