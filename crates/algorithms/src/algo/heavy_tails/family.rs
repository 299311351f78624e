//! The heavy-tail families in [`crate::algo::registry`]: Localized Double Output Perturbation
//! (Lowy 2026, Algorithms 1 and 4) and the pure-ε noisy clipped GD baseline. Cards, settings,
//! needs and the data-free plans: every constant from the config (the declared G_k of the
//! generating distribution), never from the sample.

use super::call_declared::CallDeclared;
use super::clipped_gd::{ClippedGdPlan, PureClippedGd};
use super::extension::{declared_moments, derivative_bounds, threshold};
use super::joint::{HeavySolver, WORK_ALLOWANCE};
use super::localised::{Call, Declared, LocalisedPlan, Phase, PopLocalise, schedule_of};
use super::rates::schedule_rates;
use super::single_stage::{SingleStage, SingleStagePlan, calibrated_ridge, check_records};
use crate::algo::choices::DomainChoice;
use crate::algo::family::{
    Demonstration, Family, MINIMISATION, Need, Plan, Preview, Purity, RunLength, SettingUse,
    card_text, replace_one_only, setting,
};
use crate::algo::kinds::AlgorithmKind;
use crate::algo::problem::{Posed, ProblemDeclaration};
use crate::algo::registry::Planned;
use crate::algo::run::{MinRun, Run};
use crate::algo::settings::Settings;
use crate::algo::{NoiseShape, PrivateAlgorithm};
use crate::controls::Control;
use crate::domain::Domain;
use crate::error::{Error, Result};
use crate::rng::DpRng;
use crate::theory::curve::Curve;
use crate::theory::heavy_tails::pure_upper;

/// The needs both families share: the ℓ2 ball W (its diameter D enters λ₁, its projection is
/// exact), a smooth loss with a bounded derivative (certified solves of the extension), plain ERM
/// without a lasso (the extension is of one record's loss).
pub(super) const NEEDS: &[Need] = &[
    Need::Domains {
        allowed: &[DomainChoice::L2Ball],
        why: "the localisation needs W's diameter D and an exact projection onto W ∩ a ball",
    },
    Need::SmoothLoss {
        why: "the certified solves run on the smooth Lipschitz extension of the loss",
    },
    Need::PlainErm {
        why: "the Lipschitz extension is of one record's loss",
    },
    Need::NoLasso {
        why: "the certified solves project onto W (no ℓ1 prox)",
    },
];

/// The page's card for Localized Double Output Perturbation.
pub const CARD: &str = "Localized Double Output Perturbation (Lowy 2026, Algorithms 1 and 4, \
Theorem 3.1): pure ε-DP for heavy-tailed data, where only the k-th moment G_k of the per-record \
gradient bound is finite. Each record's loss is replaced by its Lipschitz extension f_C (for these \
losses its gradient is the clipped gradient), with C = G_k (mε/d)^(1/k) from the declared G_k. \
Phases take disjoint halves of the remaining data with a ridge growing 32-fold around the last \
released centre; each of the J calls per phase releases twice (ε/2 each) by output perturbation: \
first to localise, then inside the small ball it found. Excess risk ≈ G_k·D·(d/(nε))^(1−1/k) + \
G₂·D/√n, against the √T-worse clipped GD.";

/// The moment order k as the families that clip at C* read it.
const MOMENT_SETS_THRESHOLD: SettingUse = setting(
    Control::MomentK,
    "moment order k",
    "G_k is declared from the data's distribution; it sets the threshold C",
);

/// The certified solver as the localized families read it (utility and run time only).
pub const HEAVY_SOLVER: SettingUse = setting(
    Control::HeavySolver,
    "certified solver",
    "AGD on the smooth R^d extension, or the paper's Algorithm 3 on the joint reformulation (W-constrained f_C), refused before the run where its iteration bound ⌈(3·D_K·L/α)²⌉ exceeds the work allowance (small n and λ₁ only); the noise is the same",
);

/// Localized Double Output Perturbation's entry in the registry.
pub static FAMILY_LOCALISED: Family = Family {
    kind: AlgorithmKind::LocalisedDoubleOutputPerturbation,
    card: card_text! {
        name: "localized double output perturbation",
        source: "Lowy 2026, “Optimal Rates for Pure ε-Differentially Private Stochastic Convex Optimization with Heavy Tails”, Algorithms 1 and 4, Theorem 3.1",
        assumptions: "Convex loss with E[A(z)^k] ≤ G_k^k for the per-record Lipschitz constant A(z) (L may be infinite), k ≥ 2; G_k declared from the generating distribution; W an ℓ2 ball; a smooth loss with a bounded derivative.",
        privacy: "Pure ε, replace-one: two ℓ2-Laplace output perturbations (ε/2 each, Δ = 6C/(λm)) per call, after certified solves; calls on disjoint blocks compose in parallel.",
        utility: "With probability ≥ 1 − δ (a failure probability): G_k·D·(d·log(1/δ)/(nε))^(1−1/k) + G₂·D·√(log(1/δ)/n) (Theorem 3.1); the pure-DP lower bound matches up to logs.",
        watch: "The centre jumps once per phase, each jump smaller (the noise shrinks about 20-fold per phase at k = 3); phase 1 is mostly noise by design.",
        module: "algo::heavy_tails::localized",
        summary: CARD,
    },
    settings: &[
        setting(
            Control::MomentK,
            "moment order k",
            "G_k is declared from the data's distribution; larger k means lighter tails and a larger C",
        ),
        setting(
            Control::Clip,
            "threshold C",
            "empty: C_t = G_k (m_t ε/d)^(1/k) per phase, the bias–noise balance; set, the same C everywhere",
        ),
        setting(
            Control::Repetitions,
            "calls per phase J",
            "J disjoint blocks per phase, aggregated by the median trick (utility only: privacy is ε for any J)",
        ),
        setting(
            Control::Lambda1,
            "base ridge λ₁",
            "empty: the λ₁ that minimises the localisation bound with the proofs' constants (the noise's 12·d, the 32-fold growth), about 100 times (G_k (d/(nε))^(1−1/k) + G₂/√n)/D; λ_t = 32^(t−1)·λ₁ (utility only: the noise follows λ_t)",
        ),
        HEAVY_SOLVER,
    ],
    needs: NEEDS,
    solves: MINIMISATION,
    purity: Purity::Pure,
    demonstration: Demonstration::None,
    length: RunLength::DataDependent,
    plan: plan_localised,
};

/// The page's card for the clipped GD baseline.
pub const CARD_CLIPPED_GD: &str = "Pure-ε noisy clipped gradient descent, the baseline of Lowy \
2026's lesson. T full-batch steps of the clipped gradient (the gradient of the Lipschitz extension \
f_C) plus ℓ2-Laplace noise at ε/T each (Δ = 2C/n, scale 2CT/(nε)); the release is the average \
iterate. Pure DP has no advanced composition, so the noise grows with T and the excess risk pays \
a √T factor that Double-OutputPert avoids: compare the two at the same ε.";

/// The clipped GD baseline's entry in the registry.
pub static FAMILY_CLIPPED_GD: Family = Family {
    kind: AlgorithmKind::PureClippedGd,
    card: card_text! {
        name: "pure-ε clipped GD",
        source: "Baseline from Lowy 2026, “Optimal Rates for Pure ε-Differentially Private Stochastic Convex Optimization with Heavy Tails”, §1 (clipping plus composition)",
        assumptions: "Convex loss with declared G_k (k ≥ 2); W an ℓ2 ball; a smooth loss with a bounded derivative.",
        privacy: "Pure ε, replace-one: T steps, each ε/T-DP by ℓ2-Laplace noise of scale 2CT/(nε) on the clipped mean gradient (basic composition).",
        utility: "Up to constants: D·√((G₂ + l2·R)² + d(d+1)β²)/√T + D·G_k^k/((k−1)C^(k−1)), β = 2CT/(nε).",
        watch: "A noisy path whose noise grows with T: more steps do not help under pure ε.",
        module: "algo::heavy_tails::clipped_gd",
        summary: CARD_CLIPPED_GD,
    },
    settings: &[
        MOMENT_SETS_THRESHOLD,
        setting(
            Control::Clip,
            "threshold C",
            "empty: C = G_k (n(ε/T)/d)^(1/k), the balance at the per-step budget",
        ),
        setting(
            Control::Steps,
            "steps T",
            "each step spends ε/T: the noise scale grows with T",
        ),
        setting(
            Control::StepSize,
            "step size η",
            "empty: D/(G√T) with G² the noisy gradient's second moment",
        ),
    ],
    needs: NEEDS,
    solves: MINIMISATION,
    purity: Purity::Pure,
    demonstration: Demonstration::None,
    length: RunLength::Fixed,
    plan: plan_clipped_gd,
};

/// The localized run's plan: the schedule, its noise law and the guarantee.
pub(super) struct LocalisedFamilyPlan {
    pub(super) plan: LocalisedPlan,
}

fn plan_localised(settings: &Settings, declared: &ProblemDeclaration) -> Result<Planned> {
    plan_pop_localise(
        settings,
        declared,
        Call::Double,
        "Localized Double Output Perturbation (Lowy 2026, Algorithms 1 and 4)",
    )
}

/// The schedule Algorithm 1 follows when `config`'s algorithm runs: Algorithm 2's for localized
/// output perturbation and for the grid families (whose calls are one ε-DP release each,
/// [`super::em_phases`]), Algorithm 4's (Double-OutputPert) otherwise.
pub fn call_of(settings: &Settings) -> Call {
    match settings.kind {
        AlgorithmKind::LocalisedOutputPerturbation
        | AlgorithmKind::EmPgm
        | AlgorithmKind::LocalisedApproxEm => Call::Localise,
        _ => Call::Double,
    }
}

/// The schedule, threshold and noise law of a localized run on `config` (Algorithm 1 with `call`
/// as its ERM solver), from the config alone: the plan the localized families run, and what the
/// page's ledger per phase shows (`session::heavy_explorer`, with [`call_of`]). Refuses a config whose
/// first phase cannot run.
pub fn localised_plan(
    settings: &Settings,
    declared: &ProblemDeclaration,
    call: Call,
) -> Result<LocalisedPlan> {
    replace_one_only(
        settings.budget.relation,
        "n is public and the blocks are a fixed partition of it",
    )?;
    let (moment_k, moment_2) = declared_moments(settings, declared)?;
    let (_, curvature) = derivative_bounds(declared.loss.glm).unwrap_or((1.0, f64::INFINITY));
    let schedule_of_declared = Declared {
        n: declared.n,
        d: declared.d,
        epsilon: settings.budget.epsilon,
        k: settings.moment_k,
        moment_k,
        moment_2,
        diameter: declared.domain.diameter_in(declared.d),
        repetitions: settings.repetitions,
        clip: settings.clip,
        lambda1: settings.lambda1,
    };
    let mut plan = LocalisedPlan {
        declared: schedule_of_declared,
        phases: Vec::new(),
        extension_loss: declared.loss.glm,
        l2: declared.regulariser.l2,
        radius: declared.radius(),
        curvature,
        feature_bound: declared.feature_bound,
        call,
        solver: settings.heavy_solver,
    };
    plan.phases = schedule_of(call, &schedule_of_declared, |p| plan.budgets(p).is_some());
    if plan.phases.is_empty() {
        let (field, got) = if settings.repetitions > 1 {
            ("repetitions", settings.repetitions.to_string())
        } else {
            ("n", declared.n.to_string())
        };
        return Err(Error::invalid(
            field,
            format!(
                "n/(2J) ≥ max(10, d) records for the first phase's calls (n = {}, J = {}, d = {}), and a certificate radius C/(6λm) above the rounding of the solver",
                declared.n, settings.repetitions, declared.d
            ),
            got,
        ));
    }
    Ok(plan)
}

/// The plan of Algorithm 1 (Pop-Localize) with `call` as its ERM solver: the schedule, its noise
/// law, the guarantee and, for Algorithm 3 as the solver, its iteration bound against the work
/// allowance, all before any data.
pub(super) fn plan_pop_localise(
    settings: &Settings,
    declared: &ProblemDeclaration,
    call: Call,
    name: &'static str,
) -> Result<Planned> {
    let plan = localised_plan(settings, declared, call)?;
    // localized_plan refuses an empty schedule.
    let Some(first) = plan.phases.first().copied() else {
        return Err(Error::invalid(
            "n",
            "enough records for one phase",
            declared.n,
        ));
    };
    if settings.heavy_solver == HeavySolver::AdaptiveSubgradient {
        affordable(&plan)?;
    }
    Ok(planned_localised(settings, plan, first, name))
}

/// The registry's entry for a localized schedule whose first phase is `first` (Algorithm 4 or 2
/// in every call, with any certified solver): its preview, from the plan alone.
pub(super) fn planned_localised(
    settings: &Settings,
    plan: LocalisedPlan,
    first: Phase,
    name: &'static str,
) -> Planned {
    let releases = plan.call.draws() * settings.repetitions * plan.phases.len();
    let mut preview = Preview::new(
        settings.kind,
        name,
        plan.guarantee(),
        (
            first.beta,
            NoiseShape::L2Laplace {
                scale: first.beta,
                d: plan.declared.d,
            },
        ),
        releases,
        first.sensitivity(),
        first.clip,
    );
    preview.draws = plan.draws();
    // Phase 1's argmin moves by at most 2C/(λm) between neighbours (before the certificates).
    preview.sensitivity_ball = Some(2.0 * first.stage1_radius());
    Planned::new(preview, LocalisedFamilyPlan { plan })
}

/// Refuses Algorithm 3 as the solver when Prop 2.9's bound Σ J·⌈(3·D_K·L/α)²⌉·m over the run
/// exceeds [`WORK_ALLOWANCE`] record gradients: decided from the declared constants alone, so a
/// run never stops for lack of iterations (docs/PRIVACY.md rule 6).
fn affordable(plan: &LocalisedPlan) -> Result<()> {
    let count = |v: f64| {
        if v.is_finite() {
            format!("{v:.1e}")
        } else {
            "more than 1e19".to_string()
        }
    };
    let work = plan.joint_work();
    if work <= WORK_ALLOWANCE {
        return Ok(());
    }
    let (t, worst) = plan
        .phases
        .iter()
        .map(|p| {
            let most = plan
                .joint_bounds(p)
                .and_then(|b| b.into_iter().max())
                .map_or(f64::INFINITY, |b| b as f64);
            (p.t, most)
        })
        .fold((1, 0.0), |a, b| if b.1 > a.1 { b } else { a });
    Err(Error::invalid(
        Control::HeavySolver.id(),
        format!(
            "choose the certified AGD: Algorithm 3 needs up to {} iterations in phase {t} ({} \
             record gradients), above the allowance of {WORK_ALLOWANCE:.0e} (Prop 2.9's bound \
             from the declared constants); a smaller n, λ₁ or ‖x‖ bound lowers it",
            count(worst),
            count(work)
        ),
        "adaptive_subgradient",
    ))
}

impl Plan for LocalisedFamilyPlan {
    /// Theorem 3.1's bound with the constants set to 1, at the failure probability δ = 0.1 the
    /// sweep's lower bound is drawn at ([`super::rates`]).
    fn theory(&self, _problem: &Posed, _preview: &Preview) -> Option<Curve> {
        Curve::flat(
            pure_upper(&schedule_rates(&self.plan.declared)),
            match self.plan.call {
                Call::Double => {
                    "Lowy 2026, Theorem 3.1, with probability ≥ 0.9, up to constants: G_k·D·(d·ln 10/(nε))^(1−1/k) + G₂·D·√(ln 10/n)"
                }
                Call::Localise => {
                    "Lowy 2026's rate through Theorem 2.1 with Algorithm 2 as the ERM solver (derived, not a theorem of the paper), with probability ≥ 0.9, up to constants: G_k·D·(d·ln 10/(nε))^(1−1/k) + G₂·D·√(ln 10/n)"
                }
            },
        )
    }

    fn build(&self, posed: &Posed, noise: DpRng, seeded: bool) -> Result<Box<dyn Run>> {
        let problem = posed.min()?;
        if problem.data.n() != self.plan.declared.n {
            return Err(Error::invalid(
                "n",
                format!("the number of records, {} (n is public)", problem.data.n()),
                self.plan.declared.n,
            ));
        }
        let algorithm = PopLocalise::new(self.plan.clone(), noise, seeded)?;
        Ok(MinRun::on(problem, algorithm))
    }
}

/// The baseline's plan.
struct ClippedGdFamilyPlan {
    plan: ClippedGdPlan,
    /// (G_k, k, G₂), declared.
    moment: (f64, f64, f64),
    diameter: f64,
    ridge: f64,
}

fn plan_clipped_gd(settings: &Settings, declared: &ProblemDeclaration) -> Result<Planned> {
    replace_one_only(
        settings.budget.relation,
        "the step's sensitivity 2C/n is for a replaced record",
    )?;
    let (moment_k, moment_2) = declared_moments(settings, declared)?;
    let steps = settings.steps;
    let clip = settings.clip.unwrap_or_else(|| {
        threshold(
            moment_k,
            declared.n,
            settings.budget.epsilon / steps as f64,
            declared.d,
            settings.moment_k,
        )
    });
    let diameter = declared.domain.diameter_in(declared.d);
    let mut plan = ClippedGdPlan {
        epsilon: settings.budget.epsilon,
        steps,
        n: declared.n,
        d: declared.d,
        clip,
        step_size: 0.0,
        moment: (moment_k, settings.moment_k),
    };
    plan.step_size = settings.step_size.unwrap_or_else(|| {
        ClippedGdPlan::default_step(
            moment_2,
            plan.scale(),
            declared.d,
            steps,
            diameter,
            declared.regulariser.l2,
        )
    });
    let mut preview = Preview::new(
        AlgorithmKind::PureClippedGd,
        "pure-ε noisy clipped GD (baseline of Lowy 2026)",
        plan.guarantee(),
        (
            plan.scale(),
            NoiseShape::L2Laplace {
                scale: plan.scale(),
                d: declared.d,
            },
        ),
        steps,
        plan.sensitivity(),
        clip,
    );
    preview.step_size = Some(plan.step_size);
    Ok(Planned::new(
        preview,
        ClippedGdFamilyPlan {
            plan,
            moment: (moment_k, settings.moment_k, moment_2),
            diameter,
            ridge: declared.regulariser.l2,
        },
    ))
}

impl Plan for ClippedGdFamilyPlan {
    /// The subgradient method's bound with the noisy gradient's second moment, plus the clipping
    /// bias D·G_k^k/((k−1)C^(k−1)), up to constants.
    fn theory(&self, _problem: &Posed, _preview: &Preview) -> Option<Curve> {
        let p = &self.plan;
        let (g_k, k, g_2) = self.moment;
        let radius = self.diameter / 2.0;
        let beta = p.scale();
        let g = g_2 + self.ridge * radius;
        let g2 = g * g + (p.d * (p.d + 1)) as f64 * beta * beta;
        let bound = self.diameter * g2.sqrt() / (p.steps as f64).sqrt()
            + self.diameter * libm::pow(g_k, k) / ((k - 1.0) * libm::pow(p.clip, k - 1.0));
        Curve::flat(
            bound,
            "noisy subgradient method at ε/T per step plus the clipping bias, up to constants",
        )
    }

    fn build(&self, posed: &Posed, noise: DpRng, seeded: bool) -> Result<Box<dyn Run>> {
        let problem = posed.min()?;
        let algorithm = PureClippedGd::new(self.plan, &problem.objective, noise, seeded)?;
        debug_assert!(algorithm.release().is_none());
        Ok(MinRun::on(problem, algorithm))
    }
}

/// The page's card for the single-stage variant.
pub const CARD_SINGLE_STAGE: &str = "Single-stage output perturbation on the Lipschitz extension: \
a variant we derived from Lowy 2026's Lipschitz extension, not an algorithm of the \
paper. One certified solve of the ridge-regularised objective with every record's loss replaced \
by f_C (C = G_k (nε/d)^(1/k) from the declared G_k), then one ℓ2-Laplace draw calibrated to \
Δ = 2C/(λn) + 2r_acc. Pure ε-DP for every dataset; no localisation, so the ridge λ's bias and the \
noise d·Δ/ε stay coupled: compare it with Localized Double Output Perturbation.";

/// The single-stage variant's entry in the registry.
pub static FAMILY_SINGLE_STAGE: Family = Family {
    kind: AlgorithmKind::OutputPerturbationLipschitzExtension,
    card: card_text! {
        name: "output perturbation on f_C",
        source: "Variant derived from Lowy 2026, “Optimal Rates for Pure ε-Differentially Private Stochastic Convex Optimization with Heavy Tails”, Lemma 2.2 (the Lipschitz extension); not in the paper",
        assumptions: "Convex loss with declared G_k (k ≥ 2); W an ℓ2 ball; a smooth loss with a bounded derivative.",
        privacy: "Pure ε, replace-one: one ℓ2-Laplace draw for Δ = 2C/(λn) + 2r_acc after a certified solve (λ-strong convexity, C-Lipschitz extended losses).",
        utility: "E‖out − ŵ_λ‖ ≤ d·Δ/ε + r_acc + G_k^k/((k−1)λC^(k−1)), plus the ridge's bias λD²/2 in F.",
        watch: "One jump at the end: the certified point, then the noise.",
        module: "algo::heavy_tails::single_stage",
        summary: CARD_SINGLE_STAGE,
    },
    settings: &[
        MOMENT_SETS_THRESHOLD,
        setting(
            Control::Clip,
            "threshold C",
            "empty: C = G_k (nε/d)^(1/k), the bias–noise balance",
        ),
        setting(
            Control::Lambda1,
            "ridge λ",
            "empty: √(2G₂·a)/R, the ridge that balances its bias λR²/2 against the noise, certificate, clipping bias and sampling error a/λ (the proofs' constants)",
        ),
    ],
    needs: NEEDS,
    solves: MINIMISATION,
    purity: Purity::Pure,
    demonstration: Demonstration::None,
    length: RunLength::DataDependent,
    plan: plan_single_stage,
};

/// The single-stage plan.
struct SingleStageFamilyPlan {
    plan: SingleStagePlan,
    moment_2: f64,
    diameter: f64,
}

fn plan_single_stage(settings: &Settings, declared: &ProblemDeclaration) -> Result<Planned> {
    replace_one_only(
        settings.budget.relation,
        "the argmin's sensitivity 2C/(λn) is for a replaced record",
    )?;
    let (moment_k, moment_2) = declared_moments(settings, declared)?;
    let (_, curvature) = derivative_bounds(declared.loss.glm).unwrap_or((1.0, f64::INFINITY));
    let diameter = declared.domain.diameter_in(declared.d);
    let clip = settings.clip.unwrap_or_else(|| {
        threshold(
            moment_k,
            declared.n,
            settings.budget.epsilon,
            declared.d,
            settings.moment_k,
        )
    });
    let lambda = settings.lambda1.unwrap_or_else(|| {
        calibrated_ridge(
            declared.n,
            declared.d,
            settings.budget.epsilon,
            settings.moment_k,
            moment_k,
            moment_2,
            declared.radius(),
            clip,
        )
    });
    let plan = SingleStagePlan::new(
        CallDeclared {
            epsilon: settings.budget.epsilon,
            n: declared.n,
            d: declared.d,
            clip,
            lambda,
            l2: declared.regulariser.l2,
            radius: declared.radius(),
            loss: declared.loss.glm,
            moment: (moment_k, settings.moment_k),
        },
        curvature,
        declared.feature_bound,
    )?;
    let mut preview = Preview::new(
        AlgorithmKind::OutputPerturbationLipschitzExtension,
        "output perturbation on the Lipschitz extension (single stage)",
        plan.guarantee(),
        (
            plan.scale(),
            NoiseShape::L2Laplace {
                scale: plan.scale(),
                d: declared.d,
            },
        ),
        1,
        plan.sensitivity(),
        clip,
    );
    // The argmin moves by at most 2C/(λn) between neighbours (Δ less the certified 2r_acc).
    preview.sensitivity_ball = Some(plan.sensitivity() - 2.0 * plan.accuracy());
    Ok(Planned::new(
        preview,
        SingleStageFamilyPlan {
            plan,
            moment_2,
            diameter,
        },
    ))
}

impl Plan for SingleStageFamilyPlan {
    /// (G₂ + λD)·(d·β + r_acc + G_k^k/((k−1)λC^(k−1))) + λD²/2, up to constants (Lowy 2026).
    fn theory(&self, _problem: &Posed, _preview: &Preview) -> Option<Curve> {
        let p = &self.plan;
        let (g_k, k) = p.declared.moment;
        let distance = p.declared.d as f64 * p.scale()
            + p.accuracy()
            + libm::pow(g_k, k)
                / ((k - 1.0) * p.declared.lambda * libm::pow(p.declared.clip, k - 1.0));
        let bound = (self.moment_2 + p.declared.lambda * self.diameter) * distance
            + p.declared.lambda * self.diameter * self.diameter / 2.0;
        Curve::flat(
            bound,
            "derived from Lowy 2026 (not a theorem of the paper): noise, certified accuracy and clipping bias, plus the ridge's bias, up to constants",
        )
    }

    fn build(&self, posed: &Posed, noise: DpRng, seeded: bool) -> Result<Box<dyn Run>> {
        let problem = posed.min()?;
        check_records(&problem.objective, self.plan.declared.n)?;
        Ok(MinRun::on(
            problem,
            SingleStage::new(self.plan, noise, seeded),
        ))
    }
}
