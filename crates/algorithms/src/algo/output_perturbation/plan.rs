//! The plan: everything fixed before the data are touched (Δ_F, α, ρ, Δ_T, the noise law, the
//! solver budgets and the guarantee), from [`ObjectiveDeclaration`] and the user's [`Settings`], and the theory
//! curve drawn from it.

use serde::{Deserialize, Serialize};

use crate::algo::NoiseShape;
use crate::error::{Error, Result};
use crate::privacy::calibration::{
    GaussianMethod, analytic_gaussian_sigma, classical_gaussian_sigma, laplace_scale, zwb_c_delta,
    zwb_gaussian_sigma,
};
use crate::privacy::{Guarantee, Relation, check_epsilon};
use crate::solver::{CertificateConstants, SolverKind};

use super::declared::{Form, ObjectiveDeclaration};
pub use crate::theory::output_perturbation::NoiseLaw;

/// Safety margin on the GD iteration bound: it is computed for 0.9ρ, leaving 0.1ρ for the
/// certificate's rounding allowance (checked in [`plan`]).
pub(crate) const ROUNDING_SHARE: f64 = 0.1;

/// The default budget of Lowy & Razaviyayn 2021, Algorithm 3, in multiples of Cor 3.2's in-expectation count
/// T = ⌈2L_F²/(μα)⌉: the duality gap at the weighted average must fall below α for sure, which
/// typically needs a few times the count that bounds its expectation by α.
const SGD_BUDGET_FACTOR: usize = 8;

/// The user's choices for a run (all data-independent).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// ε > 0.
    pub epsilon: f64,
    /// δ = 0 (ℓ2-Laplace, pure ε-DP) or δ ∈ (0, ½) (Gaussian).
    pub delta: f64,
    /// Must be replace-one.
    pub relation: Relation,
    /// The Gaussian calibration for δ > 0.
    pub gaussian: GaussianMethod,
    /// Solver accuracy α (F(w_T) − F* ≤ α ⇒ ‖w_T − w*‖ ≤ √(2α/μ)); `None` takes the paper's recipe
    /// ([`default_alpha`]).
    pub alpha: Option<f64>,
    /// The base solver.
    pub solver: SolverKind,
    /// Iterations the base solver may take before the GD safeguard takes over; `None` takes
    /// [`gd_iteration_bound`].
    pub max_iters: Option<usize>,
    /// Project the release onto W (post-processing; the paper projects for the non-smooth classes).
    pub project_release: bool,
    /// `Some` turns Algorithm 1 into Lowy & Razaviyayn 2021 **Algorithm 6**: F is merely convex and the objective
    /// carries the added ridge (λ/2)‖w‖² (see [`Regularised`]).
    pub regularised: Option<Regularised>,
}

/// Lowy & Razaviyayn 2021, Algorithm 6 (classes G and J: convex, not strongly convex): output perturbation of
/// F_λ = F + (λ/2)‖w‖² over B(0, R).
///
/// The caller builds the objective with ridge λ (e.g. λ = [`paper_lambda`], Thm 3.4/3.5) and the
/// plan checks that the objective's μ is exactly this λ, so the noise is calibrated for the
/// objective actually solved. Differences from Algorithm 1:
/// - Δ_λ = 2(L + λR)/(λn) (ERM) or 2(L + λR)/λ as printed (Section 2.4, Algorithm 6).
///   2L/(λn) is also valid (the ridge cancels in Lemma B.2); `paper_sensitivity = false`
///   selects it (an optional deviation, stated in the ledger).
/// - Δ_T = Δ_λ + 2√(2α/λ), and the Gaussian is σ = K_δΔ_T/(√2ε). **The paper's Algorithm 6 prints
///   exp(−2ε²‖z‖²/(Δ_T²K_δ²)), i.e. σ smaller by √2, which is not (ε, δ)-DP** (computed: the true
///   δ is 7.4e-5 at ε = 1, δ = 1e-5); we use the correct scale.
/// - The default α is Theorem 3.4's (Lipschitz class) or Theorem 3.5's (smooth class).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Regularised {
    /// λ > 0, the ridge the objective carries.
    pub lambda: f64,
    /// Which theorem's α (and λ) recipe.
    pub class: ConvexClass,
    /// Use the paper's Δ_λ = 2(L + λR)/(λn) (true) or the tighter 2L/(λn) (false).
    pub paper_sensitivity: bool,
}

/// The merely convex classes of Lowy & Razaviyayn 2021.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConvexClass {
    /// G_{L,R}: convex, L-Lipschitz (Theorem 3.4).
    Lipschitz,
    /// J_{β,L,R}: convex, β-smooth, L-Lipschitz (Theorem 3.5).
    Smooth,
}

/// The privacy ratio r of Lowy & Razaviyayn 2021: d/ε (δ = 0) or √d·K_δ/ε (δ > 0), divided by n for ERM.
pub fn privacy_ratio(d: usize, n: usize, form: Form, epsilon: f64, delta: f64) -> f64 {
    let d = d as f64;
    let r = if delta == 0.0 {
        d / epsilon
    } else {
        libm::sqrt(d) * k_delta(epsilon, delta) / epsilon
    };
    match form {
        Form::Erm => r / n as f64,
        Form::NonErm | Form::MaxLoss => r,
    }
}

/// The paper's λ for Algorithm 6 from the declared constants of the *unregularised* F (L over
/// B(0, R), β its smoothness for the smooth class), r = [`privacy_ratio`]:
/// - Theorem 3.4 (Lipschitz): λ = L/(R·√(1 + 1/r)) (ERM: 1/r = εn/d or εn/(√d K_δ));
/// - Theorem 3.5 (smooth): λ = (βL²/R²)^{1/3}·r^{2/3}.
pub fn paper_lambda(
    class: ConvexClass,
    lipschitz: f64,
    smoothness: f64,
    radius: f64,
    ratio: f64,
) -> f64 {
    match class {
        ConvexClass::Lipschitz => lipschitz / (radius * libm::sqrt(1.0 + 1.0 / ratio)),
        ConvexClass::Smooth => {
            libm::cbrt(smoothness * lipschitz * lipschitz / (radius * radius))
                * libm::pow(ratio, 2.0 / 3.0)
        }
    }
}

/// The paper's α for Algorithm 6: Theorem 3.4 (Lipschitz: LR·r^{3/2}, and for δ = 0 ERM
/// LR(d/(εn))^{3/2}/(1 + d/ε)²) or Theorem 3.5 (smooth: min{(L^{4/3}R^{2/3}/β^{1/3})·(1/r)^{2/3}/m^{2/3},
/// β^{1/3}L^{2/3}R^{4/3}·r^{2/3}} with m = n for ERM, 1 otherwise — the ERM form of Thm 3.5's first
/// term, (L^{4/3}R^{2/3}/β^{1/3})(ε/d)^{2/3}/n^{4/3}). Here L, β are the unregularised F's.
pub fn paper_alpha_regularised(
    class: ConvexClass,
    declared: &ObjectiveDeclaration,
    radius: f64,
    epsilon: f64,
    delta: f64,
) -> f64 {
    let (l, r_dom) = (declared.lipschitz, radius);
    let ratio = privacy_ratio(declared.d, declared.n, declared.form, epsilon, delta);
    match class {
        ConvexClass::Lipschitz => {
            let base = l * r_dom * libm::pow(ratio, 1.5);
            if delta == 0.0 && declared.form == Form::Erm {
                let d_over_eps = declared.d as f64 / epsilon;
                base / ((1.0 + d_over_eps) * (1.0 + d_over_eps))
            } else {
                base
            }
        }
        ConvexClass::Smooth => {
            // β of the data term: the declared smoothness minus the ridge λ the objective carries.
            let beta = (declared.smoothness - declared.strong_convexity).max(f64::MIN_POSITIVE);
            let m = match declared.form {
                Form::Erm => declared.n as f64,
                Form::NonErm | Form::MaxLoss => 1.0,
            };
            let first = libm::pow(l, 4.0 / 3.0) * libm::pow(r_dom, 2.0 / 3.0) / libm::cbrt(beta)
                * libm::pow(ratio, -2.0 / 3.0)
                / (m * m);
            let second = libm::cbrt(beta)
                * libm::pow(l, 2.0 / 3.0)
                * libm::pow(r_dom, 4.0 / 3.0)
                * libm::pow(ratio, 2.0 / 3.0);
            first.min(second)
        }
    }
}

impl Settings {
    /// ZWB Gaussian (δ > 0), the paper's α, AGD, default budget, no projection.
    pub fn new(epsilon: f64, delta: f64) -> Self {
        Self {
            epsilon,
            delta,
            relation: Relation::ReplaceOne,
            gaussian: GaussianMethod::Zwb,
            alpha: None,
            solver: SolverKind::Agd,
            max_iters: None,
            project_release: false,
            regularised: None,
        }
    }
}

/// [`NoiseLaw`] (in `theory`, below the algorithms) as the algorithms' [`NoiseShape`]: a trait,
/// since a method on a type of the core crate cannot be defined here.
pub trait LawShape {
    /// The law of one draw in dimension d, as the preview and
    /// [`PrivateAlgorithm::draws`](crate::algo::PrivateAlgorithm::draws) state it.
    fn shape(&self, d: usize) -> NoiseShape;
}

impl LawShape for NoiseLaw {
    fn shape(&self, d: usize) -> NoiseShape {
        match *self {
            NoiseLaw::Gaussian { sigma, .. } => NoiseShape::Gaussian { sigma, d },
            NoiseLaw::L2Laplace { scale } => NoiseShape::L2Laplace { scale, d },
        }
    }
}

/// Everything fixed before the data are touched.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReleasePlan {
    /// The declared problem.
    pub declared: ObjectiveDeclaration,
    /// The user's choices.
    pub settings: Settings,
    /// Δ_F.
    pub sensitivity: f64,
    /// α actually used.
    pub alpha: f64,
    /// ρ = √(2α/μ): the certified distance the release waits for.
    pub radius: f64,
    /// Δ_T = Δ_F + 2ρ.
    pub total_sensitivity: f64,
    /// The noise.
    pub noise: NoiseLaw,
    /// Worst-case iterations of the safeguard, from the declared constants: projected GD's
    /// [`gd_iteration_bound`] for the certified solvers, the subgradient method's Prop 3.2 count
    /// for [`SolverKind::Subgradient`] and for the fallback of [`SolverKind::StochasticSubgradient`].
    pub gd_bound: usize,
    /// The base solver's budget before the GD safeguard.
    pub max_iters: usize,
    /// The guarantee of the release.
    pub guarantee: Guarantee,
    /// Which algorithm of which seed the plan implements (for the ledger).
    pub label: &'static str,
}

/// K_δ = c_δ + √(c_δ² + ε) (Lowy & Razaviyayn 2021).
pub fn k_delta(epsilon: f64, delta: f64) -> f64 {
    let c = zwb_c_delta(delta);
    c + libm::sqrt(c * c + epsilon)
}

/// The paper's α (Lowy & Razaviyayn 2021), r = d/ε (δ = 0) or √d·K_δ/ε (δ > 0): for the smooth class H
/// (Cor 3.3 non-ERM, Cor 3.4 ERM) (L²/μ)·min{κ r², 1}, divided by n² for ERM; for a non-smooth
/// loss (class F, Cor 3.1/3.2) (L²/μ)·r, or (L²/(μn))·min{1/n, r} for ERM (Cor 3.2; T = 2L²/(μα) = 2n·max{n, 1/r}).
pub fn default_alpha(declared: &ObjectiveDeclaration, epsilon: f64, delta: f64) -> f64 {
    let d = declared.d as f64;
    let r = if delta == 0.0 {
        d / epsilon
    } else {
        libm::sqrt(d) * k_delta(epsilon, delta) / epsilon
    };
    let l = declared.lipschitz;
    let n = declared.n as f64;
    if !declared.smoothness.is_finite() {
        // Class F (non-smooth), Cor 3.1/3.2: (L²/μ)·r (non-ERM) or (L²/(μn))·min{1/n, r}.
        let base = l * l / declared.strong_convexity;
        return match declared.form {
            Form::Erm => base / n * (1.0 / n).min(r),
            Form::NonErm | Form::MaxLoss => base * r,
        };
    }
    let base = l * l / declared.strong_convexity * (declared.condition() * r * r).min(1.0);
    match declared.form {
        Form::Erm => base / (n * n),
        Form::NonErm | Form::MaxLoss => base,
    }
}

/// Projected GD with step 1/β from P_W(0) certifies ‖x⁺ − w*‖ ≤ `target` within this many
/// iterations on **every** dataset: ‖x_t − w*‖ ≤ (1 − 1/κ)^t·D₀ (the contraction of
/// [`crate::solver`]), so r_t ≤ (2 − 1/κ)(1 − 1/κ)^t·D₀ and the bound (κ − 1)·r_t ≤ target once
/// t ≥ ln((κ − 1)(2 − 1/κ)D₀/target) / (−ln(1 − 1/κ)); plus one for the certifying step.
pub fn gd_iteration_bound(kappa: f64, initial_distance: f64, target: f64) -> usize {
    if kappa <= 1.0 {
        return 1;
    }
    let start = (kappa - 1.0) * (2.0 - 1.0 / kappa) * initial_distance;
    if start <= target {
        return 1;
    }
    let t = libm::log(start / target) / -libm::log1p(-1.0 / kappa);
    (libm::ceil(t) as usize).saturating_add(1)
}

/// The deterministic iteration count of the subgradient method (Lowy & Razaviyayn 2021, Prop 3.2):
/// T = ⌈2L_F²/(μα)⌉ with L_F = L + μR the subgradient bound of F on the bounded W (data term plus
/// ridge). The method needs a bounded W and no ℓ1 term.
pub fn subgradient_iterations(declared: &ObjectiveDeclaration, alpha: f64) -> Result<usize> {
    if !declared.bounded {
        return Err(Error::invalid(
            "domain",
            "a bounded domain for the subgradient method (its subgradient bound needs R)",
            "unbounded",
        ));
    }
    if declared.l1 != 0.0 {
        return Err(Error::invalid(
            "regularizer.l1",
            "0 for the subgradient method",
            declared.l1,
        ));
    }
    let mu = declared.strong_convexity;
    let l_f = declared.lipschitz + mu * declared.iterate_bound;
    let t = libm::ceil(2.0 * l_f * l_f / (mu * alpha));
    if !(t.is_finite() && t <= 1e8) {
        return Err(Error::invalid(
            "alpha",
            "choose a smooth solver, or raise ε or the ridge λ: the subgradient method would need more than 10⁸ iterations",
            alpha,
        ));
    }
    Ok((t as usize).max(1))
}

/// The GD bound and the base solver's budget for the certified solvers, after checking that the
/// loss is smooth and that ρ dwarfs the certificate's rounding allowance.
fn certified_budget(
    declared: &ObjectiveDeclaration,
    settings: &Settings,
    alpha: f64,
    radius: f64,
) -> Result<(usize, usize)> {
    if !declared.smoothness.is_finite() {
        return Err(Error::invalid(
            "loss",
            "a smooth loss for the certified GD/AGD/SGD/SVRG/Katyusha solvers (use the subgradient solver for non-smooth losses)",
            declared.smoothness,
        ));
    }
    let gd_bound = declared.certified_gd_budget(radius)
    .map_err(|allowance| {
        Error::invalid(
            "alpha",
            format!(
                "choose another solver, or raise ε or the ridge λ: its accuracy ρ = √(2α/μ) must exceed the certificate's rounding allowance {allowance:.2e} tenfold"
            ),
            alpha,
        )
    })?;
    Ok((gd_bound, settings.max_iters.unwrap_or(gd_bound).max(1)))
}

/// The GD budget ([`gd_iteration_bound`]) that certifies a distance `radius` on every dataset,
/// after checking that the certificate's rounding allowance at its worst, 4κ·ε_mach·(passes·G/β +
/// 2·iterate bound) with `passes` = n + d ([`crate::solver::certify`]), fits in the
/// [`ROUNDING_SHARE`] of the radius left for it; `Err(allowance)` otherwise (each caller names the
/// control that widens its radius). Shared by Lowy & Razaviyayn 2021's certified budget and both Zhang et al. 2022
/// algorithms.
pub(crate) fn certified_gd_bound(
    constants: &CertificateConstants,
    passes: usize,
    iterate_bound: f64,
    initial_distance: f64,
    radius: f64,
) -> std::result::Result<usize, f64> {
    let kappa = constants.condition();
    let allowance = 4.0
        * kappa
        * f64::EPSILON
        * (passes as f64 * constants.lipschitz / constants.smoothness + 2.0 * iterate_bound);
    if allowance.is_nan() || allowance > ROUNDING_SHARE * radius {
        return Err(allowance);
    }
    Ok(gd_iteration_bound(
        kappa,
        initial_distance,
        (1.0 - ROUNDING_SHARE) * radius,
    ))
}

/// Lowy & Razaviyayn 2021, Algorithm 3's budget and its fallback, from declared constants: (T₂, budget) with T₂
/// the deterministic count of the Algorithm 2 fallback ([`subgradient_iterations`]) and the budget
/// `max_iters` or [`SGD_BUDGET_FACTOR`]·⌈2L_F²/(μα)⌉ stochastic steps (Cor 3.2's count; the same
/// T as Algorithm 2's, but of one-sample steps). Class F^ERM only: a non-smooth ERM loss on a bounded
/// domain without an ℓ1 term.
fn stochastic_budget(
    declared: &ObjectiveDeclaration,
    settings: &Settings,
    alpha: f64,
) -> Result<(usize, usize)> {
    if declared.smoothness.is_finite() {
        return Err(Error::invalid(
            "solver",
            "choose SGD for a smooth loss: the stochastic subgradient method is for non-smooth ones",
            "stochastic subgradient",
        ));
    }
    if declared.form != Form::Erm {
        return Err(Error::invalid(
            "solver",
            "an ERM objective for the stochastic subgradient method (Lowy & Razaviyayn 2021, Algorithm 3 samples records)",
            "stochastic_subgradient",
        ));
    }
    let t = subgradient_iterations(declared, alpha)?;
    let budget = settings
        .max_iters
        .unwrap_or_else(|| t.saturating_mul(SGD_BUDGET_FACTOR))
        .max(1);
    Ok((t, budget))
}

/// Fixes Δ_F, α, ρ, Δ_T, the noise and the guarantee from the declared problem and the settings.
pub fn plan(declared: ObjectiveDeclaration, settings: Settings) -> Result<ReleasePlan> {
    declared.validate()?;
    check_epsilon(settings.epsilon)?;
    if settings.relation != Relation::ReplaceOne {
        return Err(Error::invalid(
            "relation",
            "replace_one (Lowy & Razaviyayn 2021 state their result for replace-one adjacency with public n)",
            "add_remove",
        ));
    }
    if !(settings.delta == 0.0 || (settings.delta > 0.0 && settings.delta < 0.5)) {
        return Err(Error::invalid(
            "delta",
            "0 (pure ε, ℓ2-Laplace) or a number in (0, 0.5) (Lowy & Razaviyayn 2021 assume δ < ½)",
            settings.delta,
        ));
    }
    let domain_radius = declared.iterate_bound;
    if let Some(reg) = settings.regularised {
        if !(reg.lambda.is_finite() && reg.lambda > 0.0) {
            return Err(Error::invalid("lambda", "a finite number > 0", reg.lambda));
        }
        if (declared.strong_convexity - reg.lambda).abs() > 1e-12 * reg.lambda {
            return Err(Error::invalid(
                "regularizer.l2",
                format!(
                    "exactly λ = {} for Algorithm 6 (the objective must carry the added ridge)",
                    reg.lambda
                ),
                declared.strong_convexity,
            ));
        }
        if !(declared.initial_distance.is_finite()
            && declared.initial_distance <= 2.0 * domain_radius * (1.0 + 1e-12))
        {
            return Err(Error::invalid(
                "domain",
                "a bounded domain B(0, R) for Algorithm 6",
                declared.initial_distance,
            ));
        }
    }
    let alpha = match (settings.alpha, settings.regularised) {
        (Some(a), _) if a.is_finite() && a > 0.0 => a,
        (Some(a), _) => return Err(Error::invalid("alpha", "a finite number > 0", a)),
        (None, None) => default_alpha(&declared, settings.epsilon, settings.delta),
        (None, Some(reg)) => paper_alpha_regularised(
            reg.class,
            &declared,
            domain_radius,
            settings.epsilon,
            settings.delta,
        ),
    };
    let sensitivity = match settings.regularised {
        Some(reg) if reg.paper_sensitivity => {
            let base = 2.0 * (declared.lipschitz + reg.lambda * domain_radius) / reg.lambda;
            match declared.form {
                Form::Erm => base / declared.n as f64,
                Form::NonErm | Form::MaxLoss => base,
            }
        }
        _ => declared.sensitivity(),
    };
    let radius = libm::sqrt(2.0 * alpha / declared.strong_convexity);
    let total = sensitivity + 2.0 * radius;
    let (gd_bound, max_iters) = match settings.solver {
        SolverKind::Subgradient => {
            let t = subgradient_iterations(&declared, alpha)?;
            (t, t)
        }
        SolverKind::StochasticSubgradient => stochastic_budget(&declared, &settings, alpha)?,
        _ => certified_budget(&declared, &settings, alpha, radius)?,
    };
    let (noise, accounting) = if settings.delta == 0.0 {
        let scale = laplace_scale(total, settings.epsilon)?;
        (
            NoiseLaw::L2Laplace { scale },
            format!(
                "one ℓ2-Laplace release of the certified minimiser: Δ_T = Δ_F + 2√(2α/μ) = {sensitivity:.3e} + 2·{radius:.3e}, scale Δ_T/ε = {scale:.3e} (Lowy & Razaviyayn 2021, Prop 2.1, 3.1)"
            ),
        )
    } else {
        let sigma = match settings.gaussian {
            GaussianMethod::Zwb => zwb_gaussian_sigma(total, settings.epsilon, settings.delta)?,
            GaussianMethod::Analytic => {
                analytic_gaussian_sigma(total, settings.epsilon, settings.delta)?
            }
            GaussianMethod::Classical => {
                classical_gaussian_sigma(total, settings.epsilon, settings.delta)?
            }
        };
        (
            NoiseLaw::Gaussian {
                sigma,
                method: settings.gaussian,
            },
            format!(
                "one Gaussian release of the certified minimiser: Δ_T = Δ_F + 2√(2α/μ) = {sensitivity:.3e} + 2·{radius:.3e}, σ = {sigma:.3e} ({:?} calibration; Lowy & Razaviyayn 2021, Prop 3.1, Thm B.1)",
                settings.gaussian
            ),
        )
    };
    let guarantee = Guarantee {
        epsilon: settings.epsilon,
        delta: settings.delta,
        relation: settings.relation,
        rho: None,
        accounting,
    };
    Ok(ReleasePlan {
        declared,
        settings,
        sensitivity,
        alpha,
        radius,
        total_sensitivity: total,
        noise,
        gd_bound,
        max_iters,
        guarantee,
        label: if settings.regularised.is_some() {
            "Lowy & Razaviyayn 2021, Algorithm 6"
        } else {
            "Lowy & Razaviyayn 2021, Algorithm 1"
        },
    })
}

/// The dashed theory curve for a configuration at another n and ε: re-plans from the declared
/// constants with `n` and `epsilon` replaced (α, ρ and the noise follow the paper's recipe unless
/// `settings.alpha` fixes α) and returns the expected excess risk bound of the release, from
/// declared constants alone (no data):
/// - smooth, unprojected release: (β/2)(ρ² + E‖z‖²), from F(w) − F* ≤ (β/2)‖w − w*‖² and
///   E‖x⁺ + z − w*‖² = ‖x⁺ − w*‖² + E‖z‖² (Thm 3.2 proof, Prop 2.6). It assumes ∇F(w*) = 0
///   (an interior optimum). We use the certified **distance** ρ, which every engine guarantees,
///   rather than the paper's α: the certificate bounds the distance, and (β/2)ρ² = κα ≥ α;
/// - otherwise (non-smooth or projected release): L_F(ρ + E‖z‖) with L_F = L + μR + λ₁√d the
///   Lipschitz constant of F on the bounded W (Thm 3.1 proof; projection is non-expansive);
/// - Algorithm 6 adds the bias λR²/2 (Thm 3.4/3.5 proofs), at the configuration's fixed λ.
pub fn theory_bound(
    declared: ObjectiveDeclaration,
    settings: Settings,
    n: usize,
    epsilon: f64,
) -> Result<f64> {
    let mut declared = declared;
    let mut settings = settings;
    declared.n = n;
    settings.epsilon = epsilon;
    if declared.form == Form::NonErm && declared.tilt_factor < 1.0 {
        // TERM's C_τ/n factor scales with n: C_τ = factor·n_old.
        return Err(Error::invalid(
            "form",
            "an ERM or max-loss configuration (TERM's factor depends on n through C_τ)",
            "tilted",
        ));
    }
    let p = plan(declared, settings)?;
    let d = declared.d;
    let rho = p.radius;
    let smooth = declared.smoothness.is_finite() && !settings.project_release;
    let release = if smooth {
        0.5 * declared.smoothness * (rho * rho + p.noise.mean_square_norm(d))
    } else {
        let l_f = declared.lipschitz
            + declared.strong_convexity * declared.iterate_bound
            + declared.l1 * libm::sqrt(d as f64);
        l_f * (rho + crate::theory::output_perturbation::mean_norm(&p.noise, d))
    };
    let bias = settings.regularised.map_or(0.0, |reg| {
        0.5 * reg.lambda * declared.iterate_bound * declared.iterate_bound
    });
    Ok(release + bias)
}
