//! Output perturbation's two families (Lowy & Razaviyayn 2021, Algorithms 1 and 6): cards,
//! settings, needs and the data-free plans. The mechanism is in the sibling files.

use super::plan::LawShape;
use super::{
    self as op, CARD, CARD_REGULARISED, ConvexClass, Form, NoiseLaw, OutputPerturbation,
    Regularised, ReleasePlan, Settings,
};
use crate::algo::NoiseShape;
use crate::algo::family::{
    BOUNDED, Demonstration, Family, MINIMISATION, Need, Plan as RunPlan, Preview, Purity,
    RunLength, card_text, replace_one_only, setting,
};
use crate::algo::kinds::AlgorithmKind;
use crate::algo::problem::{Posed, ProblemDeclaration};
use crate::algo::registry::Planned;
use crate::algo::run::{MinRun, Run};
use crate::algo::settings::Settings as LaneSettings;
use crate::controls::Control;
use crate::error::Result;
use crate::loss::Wrap;
use crate::rng::DpRng;
use crate::theory::curve::Curve;

const RELATION_WHY: &str = "the sensitivity 2L/(μn) (Lowy & Razaviyayn 2021, Proposition 2.2) is \
    for one record replaced among a fixed, public n";

const OP_SETTINGS: &[crate::algo::family::SettingUse] = &[
    setting(
        Control::Solver,
        "base solver",
        "any solver: the release waits for a certificate that it is close enough to the optimum",
    ),
    setting(
        Control::Gaussian,
        "Gaussian calibration",
        "for δ > 0: ZWB+19 (the paper's), the exact analytic one, or the classical one",
    ),
];

/// Algorithm 1's entry in [`crate::algo::registry`].
pub static FAMILY: Family = Family {
    kind: AlgorithmKind::OutputPerturbation,
    card: card_text! {
        name: "output perturbation",
        source: "Lowy & Razaviyayn 2021, “Output Perturbation for Differentially Private Convex Optimization”, Algorithm 1, Propositions 2.1–3.2",
        assumptions: "μ-strongly convex F (ridge > 0), L-Lipschitz loss; any base solver certified to accuracy α.",
        privacy: "One noise draw calibrated to Δ_T = 2L/(μn) + 2√(2α/μ): ℓ2-Laplace for pure ε, the ZWB+19 Gaussian for (ε, δ). It releases only once a deterministic certificate shows ‖w − w*‖ ≤ √(2α/μ).",
        utility: "E F(w_priv) − F* ≤ α + (β/2)E‖z‖² = O(L²β d/(μ² n² ε²)): slope −2 in n and in ε (measured −1.99).",
        watch: "A non-private solver path to w*, then one jump: the red point, inside the noise cloud of R repeats around w*.",
        module: "algo::output_perturbation",
        summary: CARD,
    },
    settings: OP_SETTINGS,
    needs: &[Need::Ridge {
        value: 0.1,
        why: "output perturbation (Lowy & Razaviyayn 2021, Algorithm 1) needs a strongly convex objective",
    }],
    solves: MINIMISATION,
    purity: Purity::Either,
    demonstration: Demonstration::None,
    length: RunLength::DataDependent,
    plan: plan_algorithm_1,
};

/// Algorithm 6's entry in [`crate::algo::registry`].
pub static FAMILY_REGULARISED: Family = Family {
    kind: AlgorithmKind::RegularisedOutputPerturbation,
    card: card_text! {
        name: "regularised output perturbation",
        source: "Lowy & Razaviyayn 2021, “Output Perturbation for Differentially Private Convex Optimization”, Algorithm 6, Theorems 3.4–3.5",
        assumptions: "Merely convex F on a bounded domain: the algorithm adds the ridge λ of Theorem 3.4/3.5 itself.",
        privacy: "Output perturbation of F + (λ/2)‖w‖² with Δ_λ = 2(L + λR)/(λn); the Gaussian uses the CORRECTED scale K_δΔ_T/(√2 ε) (the paper's printed σ is √2 too small and not private).",
        utility: "O(LR·(√d/(nε))^{1/2}) for Lipschitz F, better for smooth F (Theorem 3.5).",
        watch: "The path goes to the regularised optimum, not w*: the bias λ buys stability.",
        module: "algo::output_perturbation",
        summary: CARD_REGULARISED,
    },
    settings: OP_SETTINGS,
    needs: &[Need::Domains {
        allowed: BOUNDED,
        why: "Algorithm 6's ridge λ is set from the domain's radius R",
    }],
    solves: MINIMISATION,
    purity: Purity::Either,
    demonstration: Demonstration::None,
    length: RunLength::DataDependent,
    plan: plan_algorithm_6,
};

/// Algorithm 1's or 6's plan, and the ridge the algorithm adds to the objective it solves
/// (Algorithm 6's λ; 0 for Algorithm 1).
struct OpRunPlan {
    plan: ReleasePlan,
    extra_ridge: f64,
}

fn settings_of(config: &LaneSettings) -> Settings {
    let mut settings = Settings::new(config.budget.epsilon, config.budget.delta);
    settings.relation = config.budget.relation;
    settings.solver = config.solver;
    settings.gaussian = config.gaussian;
    settings
}

fn plan_algorithm_1(config: &LaneSettings, declared: &ProblemDeclaration) -> Result<Planned> {
    replace_one_only(config.budget.relation, RELATION_WHY)?;
    planned(
        config,
        declared,
        settings_of(config),
        0.0,
        "output perturbation (Lowy–Razaviyayn 2021, Algorithm 1; certified solver)",
    )
}

fn plan_algorithm_6(config: &LaneSettings, declared: &ProblemDeclaration) -> Result<Planned> {
    replace_one_only(config.budget.relation, RELATION_WHY)?;
    let smoothness = declared.smoothness();
    // λ from Theorem 3.4 (Lipschitz class) or 3.5 (smooth class), computed from the
    // unregularised F's declared constants.
    let class = if smoothness.is_finite() {
        ConvexClass::Smooth
    } else {
        ConvexClass::Lipschitz
    };
    // TERM is Lowy & Razaviyayn 2021's non-ERM form (as `op::ObjectiveDeclaration::from_constants` reads it); the
    // unregularised F may have μ = 0, so its declaration cannot be validated here.
    let form = if matches!(declared.loss.wrap, Wrap::Tilted { .. }) {
        Form::NonErm
    } else {
        Form::Erm
    };
    let ratio = op::privacy_ratio(
        declared.d,
        declared.n,
        form,
        config.budget.epsilon,
        config.budget.delta,
    );
    let lambda = op::paper_lambda(
        class,
        declared.lipschitz(),
        smoothness - declared.regulariser.l2,
        declared.radius(),
        ratio,
    );
    let mut settings = settings_of(config);
    settings.regularised = Some(Regularised {
        lambda: declared.regulariser.l2 + lambda,
        class,
        paper_sensitivity: true,
    });
    planned(
        config,
        declared,
        settings,
        lambda,
        "regularised output perturbation (Lowy–Razaviyayn 2021, Algorithm 6)",
    )
}

fn planned(
    config: &LaneSettings,
    declared: &ProblemDeclaration,
    settings: Settings,
    extra_ridge: f64,
    words: &'static str,
) -> Result<Planned> {
    let plan = op::plan(op_declared(declared, extra_ridge)?, settings)?;
    let mut preview = Preview::new(
        config.kind,
        words,
        plan.guarantee.clone(),
        op_noise(&plan.noise, declared.d),
        1,
        plan.total_sensitivity,
        declared.lipschitz(),
    );
    preview.sensitivity_ball = Some(plan.total_sensitivity);
    Ok(Planned::new(preview, OpRunPlan { plan, extra_ridge }))
}

impl RunPlan for OpRunPlan {
    /// Theorems 3.1/3.2 (and 3.4/3.5 for Algorithm 6) proofs, with the certified distance ρ.
    fn theory(&self, posed: &Posed, _: &Preview) -> Option<Curve> {
        let problem = posed.min().ok()?;
        Curve::flat(
            op::theory_bound(
                self.plan.declared,
                self.plan.settings,
                problem.declared.n,
                self.plan.settings.epsilon,
            )
            .ok()?,
            "Lowy & Razaviyayn 2021, Theorems 3.1/3.2 (and 3.4/3.5 for Algorithm 6) proofs, with the certified distance ρ",
        )
        .map(|curve| {
            curve.with_lower(
                erm_floor(
                    &problem.declared,
                    self.plan.settings.epsilon,
                    self.plan.settings.delta,
                ),
                LOWER_SOURCE,
            )
        })
    }

    fn build(&self, posed: &Posed, noise: DpRng, seeded: bool) -> Result<Box<dyn Run>> {
        let problem = posed.min()?;
        if self.extra_ridge > 0.0 {
            let own = problem
                .declared
                .objective(&problem.data, self.extra_ridge)?;
            let run = OutputPerturbation::from_plan(self.plan.clone(), &own, noise, seeded)?;
            return Ok(MinRun::own(own, run));
        }
        let run =
            OutputPerturbation::from_plan(self.plan.clone(), &problem.objective, noise, seeded)?;
        Ok(MinRun::on(problem, run))
    }
}

/// The scale and law of output perturbation's one draw, in the units the run reports.
pub(crate) fn op_noise(noise: &NoiseLaw, d: usize) -> (f64, NoiseShape) {
    let scale = match *noise {
        NoiseLaw::Gaussian { sigma, .. } => sigma,
        NoiseLaw::L2Laplace { scale } => scale,
    };
    (scale, noise.shape(d))
}

/// Lowy & Razaviyayn 2021's declared constants of the objective the algorithm will solve (the problem's, plus
/// `extra_ridge`), read exactly as [`op::ObjectiveDeclaration::of`] reads them from that objective;
/// `OutputPerturbation::from_plan` checks the two agree.
pub(crate) fn op_declared(
    declared: &ProblemDeclaration,
    extra_ridge: f64,
) -> Result<op::ObjectiveDeclaration> {
    op::ObjectiveDeclaration::from_constants(op::ObjectiveConstants {
        n: declared.n,
        d: declared.d,
        lipschitz: declared.lipschitz(),
        strong_convexity: declared.strong_convexity() + extra_ridge,
        // Summed in the objective's order, β_loss + (λ₂ + λ), so that the plan carries the very
        // β the solver would read; `from_plan` compares the two up to a few ulps, not bit for bit
        // ((β_loss + λ₂) + λ can differ in the last bit).
        smoothness: declared.constants().smoothness + (declared.regulariser.l2 + extra_ridge),
        domain: &declared.domain,
        l1: declared.regulariser.l1,
        loss: Some(declared.loss),
        feature_bound: declared.feature_bound,
    })
}

/// What the lower bound drawn beside a Lowy & Razaviyayn 2021 family's upper bound says.
pub(crate) const LOWER_SOURCE: &str = "lower bound for every algorithm with this guarantee, worst case over the problem's ERM class, up to an absolute constant (drawn at 1): LR·min{1, s²} strongly convex (for L ≈ μR), LR·min{1, s} convex, s = d/(εn) (δ = 0) or √d/(εn) (δ < 1/n) (Bassily, Smith & Thakurta 2014, as Lowy & Razaviyayn 2021 state it)";

/// The ERM lower bound of Lowy & Razaviyayn 2021 (after Bassily, Smith & Thakurta 2014) for the
/// declared problem at (ε, δ): the strongly convex class when a ridge makes F μ-strongly convex,
/// else the convex class, with L the data term's declared constant and R the domain's radius.
/// `None` where no lower bound is stated: a non-ERM objective (tilted ERM, the adversarial
/// loss: the paper's open question), an unbounded domain, or δ ≥ 1/n (the bound asks δ = o(1/n)).
pub(crate) fn erm_floor(declared: &ProblemDeclaration, epsilon: f64, delta: f64) -> Option<f64> {
    use crate::theory::output_perturbation::{
        BoundConstants, Class, Regime, erm_lower, lower_ratio,
    };
    let radius = declared.radius();
    if !matches!(declared.loss.wrap, Wrap::None)
        || !radius.is_finite()
        || delta >= 1.0 / declared.n as f64
    {
        return None;
    }
    let regime = if delta == 0.0 {
        Regime::Pure
    } else {
        Regime::Approx
    };
    let class = if declared.strong_convexity() > 0.0 {
        Class::StronglyConvex
    } else {
        Class::Convex
    };
    let constants = BoundConstants {
        lipschitz: declared.lipschitz(),
        strong_convexity: declared.strong_convexity(),
        smoothness: declared.smoothness(),
        radius,
    };
    let s = lower_ratio(declared.d, declared.n, epsilon, regime);
    erm_lower(class, &constants, s, true)
}
