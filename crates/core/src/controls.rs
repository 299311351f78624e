//! The table of the page's controls: one row per `RunConfig` key, giving its label, its
//! kind and range, its default and one line of help. The rows generate [`Control`] and its
//! lookups, the range checks of validation ([`Control::check`]), and the table the page builds
//! its field lists from (the wasm's `controls()`).
//!
//! Adding a setting: a `RunConfig` field with its default, one row here (in the field's order),
//! and its input in index.html. Cross-field rules stay as code in `validate.rs`.
//!
//! It sits at the bottom of the layers and imports nothing of the crate: the error type names a
//! control by its label from here, the algorithms name the settings they read, and `config`
//! checks values against the rows. A choice whose options are the algorithm menu says so
//! ([`Kind::Algorithm`]) and the config fills the options.

use serde::Serialize;

/// The smallest δ > 0 accepted (see `RunConfig::validate`).
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

/// What a control holds, and its range where it is a number (closed, [min, max], unless said).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// A whole number in [min, max].
    Integer {
        /// The least value.
        min: f64,
        /// The largest value.
        max: f64,
    },
    /// A finite number in [min, max].
    Number {
        /// The least value.
        min: f64,
        /// The largest value.
        max: f64,
    },
    /// 0, or a number in [min, max) (δ: 0 asks for pure ε-DP).
    ZeroOr {
        /// The least value above 0.
        min: f64,
        /// The bound, itself refused.
        max: f64,
    },
    /// A number in [min, max], or blank (`null`) for the theory's value.
    Optional {
        /// The least value.
        min: f64,
        /// The largest value.
        max: f64,
    },
    /// On or off.
    Flag,
    /// One of a menu's options (their serialised keys, in menu order).
    Choice(&'static [&'static str]),
    /// One of a menu's options, each with its own parameters (`{"kind": "huber", "delta": 1}`).
    WithParameters(&'static [&'static str]),
    /// One of the algorithm menu's entries, which the config fills from the algorithm registry.
    Algorithm,
    /// A list of the algorithm menu's entries.
    Algorithms,
}

/// Where the page holds a control.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Page {
    /// The element whose id is the key, read and written by its kind from this table.
    Plain,
    /// Elements of its own, read by code of its own (the ε slider, a menu with parameters, …).
    Own,
    /// No control: only a link sets it, and its errors show in the run's error line.
    Link,
}

/// A control's default, as its JSON value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Initial {
    /// A whole number.
    Int(u64),
    /// A number.
    Num(f64),
    /// On or off.
    Flag(bool),
    /// A menu option's key (for a choice with parameters, its `kind`).
    Choice(&'static str),
    /// Blank: the theory's value (an optional number), or an empty list.
    Blank,
}

/// One row of the table: everything the crate and the page know about a control.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    /// The `RunConfig` key, also the id of the control's element on the page.
    pub key: &'static str,
    /// The words of the control's label on the page (without help in parentheses): errors name
    /// the control by them, since a person finds the control by what it says.
    pub label: &'static str,
    /// What it holds, and its range.
    pub kind: Kind,
    /// Its default (the one of `RunConfig::default`, which a test compares).
    pub initial: Initial,
    /// Where the page holds it.
    pub page: Page,
    /// One line of help.
    pub help: &'static str,
}

/// The table: `Variant: "key", "label", kind, default, page, "help";` in `RunConfig`'s
/// field order. Generates [`Control`], [`Control::ALL`] and [`Control::ROWS`].
macro_rules! controls {
    ($($variant:ident: $key:literal, $label:literal, $kind:expr, $initial:expr, $page:ident,
        $help:literal;)*) => {
        /// A control on the page: a `RunConfig` key whose element id is the key itself,
        /// and beside which the page shows an error in `<p id="<id>-error">`. Every error the
        /// session's entry points raise (`RunConfig::check`,
        /// `algo::registry::plan`, `session::preview`,
        /// `session::Lab::new`) names one of these (a `.sub` suffix, as in
        /// `loss.label_bound`, names a part of the control), so that it lands next to something
        /// the user can change.
        ///
        /// `wrap` is the one key without a control of its own: the aggregation sits under the
        /// loss, whose error line shows both, so its errors are named at [`Control::Loss`]
        /// (`config::at_control`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Control {
            $(#[doc = concat!("`", $key, "`: ", $help)] $variant,)*
        }

        impl Control {
            /// Every control, in `RunConfig`'s field order.
            pub const ALL: [Control; [$($key),*].len()] = [$(Control::$variant),*];

            /// The table's rows, in the order of [`Control::ALL`].
            pub const ROWS: [Row; [$($key),*].len()] = [$(Row {
                key: $key,
                label: $label,
                kind: $kind,
                initial: $initial,
                page: Page::$page,
                help: $help,
            }),*];
        }
    };
}

use Initial::{Blank, Choice as Opt, Flag as On, Int, Num};
use Kind::{
    Algorithm, Algorithms, Choice, Flag, Integer, Number, Optional, WithParameters, ZeroOr,
};

controls! {
    Seed: "seed", "seed", Integer { min: 0.0, max: 4_294_967_295.0 }, Int(1), Own,
        "every random stream of the run (data and noise are separate streams)";
    UnseededNoise: "unseeded_noise", "fresh noise from the OS", Flag, On(false), Own,
        "privacy noise from the operating system: a private release, not reproducible";
    NoiseDraw: "noise_draw", "noise draw", Integer { min: 0.0, max: MAX_NOISE_DRAW as f64 },
        Int(0), Plain, "which noise draw of the seed (the data stay); each one is a release";
    Data: "data", "data source", Choice(&["synthetic", "sparse", "csv"]), Opt("synthetic"), Plain,
        "synthetic, sparse high-dimensional, or the loaded CSV file";
    Problem: "problem", "problem", Choice(&["minimisation", "saddle"]), Opt("minimisation"), Plain,
        "a minimisation or a saddle point";
    Game: "game", "game", Choice(&["rock_paper_scissors", "random_matrix", "ball_game",
        "query_release", "l1_system_fit", "group_dro_logistic", "group_dro_squares",
        "group_dro_logistic_simplex", "group_dro_squares_simplex", "auc_maximisation"]),
        Opt("rock_paper_scissors"), Plain, "the saddle problem's game";
    Records: "records", "records", Choice(&["bounded", "heavy"]), Opt("bounded"), Plain,
        "bounded ±c or heavy-tailed game records";
    EntryBound: "entry_bound", "declared entry bound c", Number { min: 1e-3, max: 1e3 }, Num(1.0),
        Plain, "the declared bound c on a game record's entries";
    MuX: "mu_x", "strong convexity μx", Number { min: 0.0, max: 1e3 }, Num(0.0), Plain,
        "the game's strong convexity in x";
    MuY: "mu_y", "strong concavity μy", Number { min: 0.0, max: 1e3 }, Num(0.0), Plain,
        "the game's strong concavity in y";
    ClipRecords: "clip_records", "clip heavy-tailed records to ±c", Flag, On(true), Own,
        "heavy game records clipped to ±c (off: a NOT PRIVATE demonstration)";
    N: "n", "samples n", Integer { min: 10.0, max: 1e6 }, Int(2000), Plain,
        "the number of samples";
    D: "d", "dimension d", Integer { min: 1.0, max: 1000.0 }, Int(2), Plain, "the dimension";
    Tail: "tail", "feature tails", WithParameters(&["gaussian", "student_t", "pareto_radial",
        "log_normal", "contaminated", "rare_outlier"]), Opt("gaussian"), Own,
        "the features' distribution and its parameters (`tail.nu`, …)";
    FeatureScale: "feature_scale", "feature scale", Number { min: 1e-6, max: 1e3 }, Num(0.6),
        Plain, "the synthetic features' scale";
    Signal: "signal", "the link's signal ‖w₀‖", Number { min: 0.0, max: 1e3 }, Num(4.0), Link,
        "‖w₀‖ of the planted parameter (only a link sets it)";
    LabelNoise: "label_noise", "label noise", Number { min: 0.0, max: 1e3 }, Num(0.0), Plain,
        "label flips (at most 0.5) or the regression noise's scale";
    NoiseTail: "noise_tail", "regression noise", WithParameters(&["gaussian", "student_t",
        "pareto_radial"]), Opt("gaussian"), Own,
        "the regression noise's law and its parameter (`noise_tail.nu`, …)";
    Sparsity: "sparsity", "non-zeros of w₀", Integer { min: 1.0, max: 1000.0 }, Int(5), Plain,
        "non-zeros of the sparse data's w₀ (at most d)";
    Loss: "loss", "loss", WithParameters(&["logistic", "hinge", "smoothed_hinge", "squared",
        "huber", "absolute"]), Opt("logistic"), Own,
        "the per-sample loss, its parameters (`loss.delta`, …) and the aggregation (`wrap`)";
    FeatureBound: "feature_bound", "declared ‖x‖ bound", Number { min: 1e-6, max: 1e6 }, Num(1.0),
        Plain, "the declared ‖x‖ bound (and so the Lipschitz constant)";
    Domain: "domain", "domain W", Choice(&["l2_ball", "l1_ball", "box", "simplex",
        "unconstrained"]), Opt("l2_ball"), Plain, "the constraint set W";
    Radius: "radius", "radius r of W", Number { min: 1e-6, max: 1e6 }, Num(4.0), Plain,
        "the radius of W (the box's half-width)";
    L2: "l2", "ridge λ", Number { min: 0.0, max: 1e3 }, Num(0.1), Plain,
        "the ridge λ, the declared strong convexity μ";
    L1: "l1", "lasso λ₁", Number { min: 0.0, max: 1e3 }, Num(0.0), Plain, "the lasso λ₁";
    Epsilon: "epsilon", "privacy ε", Number { min: 1e-4, max: 100.0 }, Num(1.0), Own,
        "the privacy budget ε of the whole run";
    Delta: "delta", "δ", ZeroOr { min: MIN_DELTA, max: 0.5 }, Num(1e-6), Plain,
        "δ (0 asks for pure ε-DP)";
    Relation: "relation", "neighbouring datasets", Choice(&["replace_one", "add_remove"]),
        Opt("replace_one"), Plain, "which datasets are neighbours";
    Algorithm: "algorithm", "algorithm", Algorithm, Opt("noisy_gd"), Plain, "the main algorithm";
    Compare: "compare", "compare with", Algorithms, Blank, Own,
        "up to three more algorithms on the same data and ε";
    Steps: "steps", "steps T", Integer { min: 1.0, max: 1e5 }, Int(200), Plain,
        "iterations T, or epochs";
    StepSize: "step_size", "step size η", Optional { min: 1e-9, max: 1e6 }, Blank, Plain,
        "the step size η (blank: the theory's)";
    Batch: "batch", "batch b", Integer { min: 1.0, max: 1e6 }, Int(64), Plain,
        "the expected minibatch size (at most n)";
    Clip: "clip", "gradient clip C", Optional { min: 1e-9, max: 1e6 }, Blank, Plain,
        "the per-sample gradient clip C (blank: the Lipschitz bound)";
    SvrgNoise: "svrg_noise", "DP-SVRG noise", Choice(&["certified", "as_printed"]),
        Opt("certified"), Plain, "DP-SVRG's certified or printed noise";
    GdOutput: "gd_output", "released iterate", Choice(&["last_iterate", "random_iterate"]),
        Opt("last_iterate"), Plain,
        "DP-GD's release: the last iterate, or w_J with J drawn before the run (non-convex)";
    Solver: "solver", "base solver", Choice(&["gd", "agd", "sgd", "svrg", "katyusha",
        "subgradient", "stochastic_subgradient"]), Opt("agd"), Plain,
        "the base solver of output perturbation, and its target accuracy α";
    Gaussian: "gaussian", "Gaussian calibration", Choice(&["zwb", "analytic", "classical"]),
        Opt("zwb"), Plain, "the Gaussian calibration of one release";
    GridResolution: "grid_resolution", "grid points per axis", Integer { min: 2.0, max: 400.0 },
        Int(64), Plain, "the exponential mechanism's grid";
    Repeats: "repeats", "repeats R", Integer { min: 1.0, max: 100.0 }, Int(1), Plain,
        "independent noise draws of the same run";
    Leak: "leak", "demonstrate the pitfall", Flag, On(false), Own,
        "the pitfall demonstration (NOT PRIVATE)";
    MomentK: "moment_k", "moment order k", Number { min: 2.0, max: 100.0 }, Num(2.0), Plain,
        "the moment order k of the heavy-tail algorithms";
    Repetitions: "repetitions", "calls per phase J", Integer { min: 1.0, max: 101.0 }, Int(1),
        Plain, "J, the calls per phase of localisation";
    Lambda1: "lambda1", "base ridge λ₁", Optional { min: 1e-9, max: 1e6 }, Blank, Plain,
        "the base ridge λ₁ of localisation (blank: the theory's)";
    MinimaxSolver: "minimax_solver", "minimax base solver", Choice(&["gda", "extragradient",
        "vr_extragradient"]), Opt("extragradient"), Plain,
        "the base solver of Zhang et al.'s minimax algorithms";
    HeavySolver: "heavy_solver", "certified solver", Choice(&["agd", "adaptive_subgradient"]),
        Opt("agd"), Plain, "the certified solver of the localized heavy-tail families";
    BudgetU: "budget_u", "gradient budget U", Optional { min: 4.0, max: 1e9 }, Blank, Plain,
        "the gradient budget U of González et al.'s Algorithm 3 (blank: the theory's)";
}

/// A row as the page reads it (the wasm's `controls()`): `kind` is `integer`, `number`, `flag`,
/// `choice` or `list`; a number has its range (`optional`: blank takes the theory's value;
/// `zero`: 0 is allowed besides the range; `max_open`: `max` itself is refused).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Described {
    /// The key, also the control's element id.
    pub key: &'static str,
    /// The label's words.
    pub label: &'static str,
    /// `integer`, `number`, `flag`, `choice` or `list`.
    pub kind: &'static str,
    /// The least value of a number.
    pub min: Option<f64>,
    /// The largest value of a number.
    pub max: Option<f64>,
    /// Whether `max` itself is refused.
    pub max_open: bool,
    /// Whether 0 is allowed besides [min, max].
    pub zero: bool,
    /// Whether blank (`null`) is allowed: the theory's value.
    pub optional: bool,
    /// The options of a choice or a list, in menu order.
    pub choices: Vec<String>,
    /// Whether each option carries parameters (`{"kind": …, …}`).
    pub parameters: bool,
    /// The default, as its JSON value (a choice with parameters: its `kind`).
    pub default: serde_json::Value,
    /// Where the page holds it.
    pub page: Page,
    /// One line of help.
    pub help: &'static str,
}

impl Row {
    /// The row as the page reads it, with `algorithms` (the algorithm menu's keys, which only
    /// the config level knows) as the options of [`Kind::Algorithm`] and [`Kind::Algorithms`].
    pub fn described(&self, algorithms: &[String]) -> Described {
        let owned = |options: &[&str]| options.iter().map(|o| o.to_string()).collect();
        let (kind, range, choices) = match self.kind {
            Integer { min, max } => ("integer", Some((min, max)), Vec::new()),
            Number { min, max } | ZeroOr { min, max } | Optional { min, max } => {
                ("number", Some((min, max)), Vec::new())
            }
            Flag => ("flag", None, Vec::new()),
            Choice(options) | WithParameters(options) => ("choice", None, owned(options)),
            Algorithm => ("choice", None, algorithms.to_vec()),
            Algorithms => ("list", None, algorithms.to_vec()),
        };
        Described {
            key: self.key,
            label: self.label,
            kind,
            min: range.map(|r| r.0),
            max: range.map(|r| r.1),
            max_open: matches!(self.kind, ZeroOr { .. }),
            zero: matches!(self.kind, ZeroOr { .. }),
            optional: matches!(self.kind, Optional { .. }),
            choices,
            parameters: matches!(self.kind, WithParameters(_)),
            default: self.initial.json(&self.kind),
            page: self.page,
            help: self.help,
        }
    }
}

impl Initial {
    /// The default as its JSON value in a config (a choice with parameters: `{"kind": …}`).
    pub fn json(self, kind: &Kind) -> serde_json::Value {
        match (self, kind) {
            (Int(v), _) => v.into(),
            (Num(v), _) => v.into(),
            (On(v), _) => v.into(),
            (Opt(key), WithParameters(_)) => serde_json::json!({ "kind": key }),
            (Opt(key), _) => key.into(),
            (Blank, Algorithms) => serde_json::json!([]),
            (Blank, _) => serde_json::Value::Null,
        }
    }
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
    /// The control's row of the table.
    pub fn row(self) -> &'static Row {
        &Control::ROWS[self as usize]
    }

    /// The `RunConfig` key, which is also the id of the control's element on the page.
    pub fn id(self) -> &'static str {
        self.row().key
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
        self.row().label
    }

    /// The row's range `[min, max]` (`None` for a control that is not a number).
    pub fn range(self) -> Option<(f64, f64)> {
        match self.row().kind {
            Integer { min, max }
            | Number { min, max }
            | ZeroOr { min, max }
            | Optional { min, max } => Some((min, max)),
            _ => None,
        }
    }

    /// The label of the control (or of the part of it) an error's `field` names: a loss's or a
    /// tail's parameter has a field of its own on the page (`loss.tau` is the tilt τ), labelled as
    /// www/page/controls.js labels it. `None` when the field is no control's.
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

    /// Whether the page shows this control (with its error line); a row at [`Page::Link`] is
    /// set by links alone.
    pub fn on_page(self) -> bool {
        self.row().page != Page::Link
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
