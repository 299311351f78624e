//! The controls of the page: one per [`super::RunConfig`] key, with its label and how errors
//! name it.

use serde::Serialize;

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
    /// `minimax_solver`: the base solver of seed 004's minimax algorithms.
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
