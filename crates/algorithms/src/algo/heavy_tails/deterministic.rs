//! The structured deterministic variant of Lowy 2026 (§3.1, Appendix D.3, Theorem D.4): Localized
//! Double Output Perturbation for **polyhedral** GLM losses (absolute value, hinge; Corollary
//! D.7), whose certified solves are Lemma D.5's projected subgradient method run directly on
//! G(w) = F̂_{C,λ}(w) for a number of iterations fixed before the data — no joint reformulation.
//!
//! # Algorithm
//! Algorithm 1 (Pop-Localize) with Algorithm 4 (Double-OutputPert) as its ERM solver, exactly as
//! [`super::localised`] runs it (the same phases, thresholds C_t, ridges λ_t, draws and W₀); only
//! the two certified solves differ. Each is projected subgradient descent on
//! G(w) = (1/m)Σ f_C(w, zᵢ) + (l2/2)‖w‖² + (λ/2)‖w − w̄_t‖² over K (W in stage 1, W₀ in stage 2)
//! with the oracle g(w) = (1/m)Σ g̃ᵢ + l2·w + λ(w − w̄_t), the constant step η = D_K/(L√T) and the
//! average x̄_T of x₁…x_T, for T = ⌈(4·D_K·L/α)²⌉ iterations (Lemma D.5), α = C²/(2λm²) in stage 1
//! and C²/(72λm²) in stage 2 (Algorithm 4), D_K = D for W and min(D, 2r₀) for W₀.
//!
//! # The oracle, and why the R^d extension
//! Definition D.3 asks for a B-approximate subgradient oracle of f_C with ‖g̃‖ ≤ 2C. For a GLM the
//! R^d extension f_C^Rd(w, z) = φ_c(⟨x, w⟩), c = C/‖x‖, has the exact subgradient
//! clip_C(∂f(w, z)) (checked numerically; the identity holds **for the R^d
//! extension only**): for absolute value and hinge that is min(1, c)·φ′·x, in closed form, so the
//! oracle is exact (B = 0) with ‖g̃‖ ≤ C. The paper's W-constrained f_C^W needs Proposition D.6's
//! second-order cone program per record and iteration (an interior-point solve whose dual
//! multiplier is the subgradient): far too slow in a tab, and only B-approximate. What using
//! f_C^Rd costs: it is a different objective (f_C^Rd ≤ f_C^W ≤ f on W; they differ when a record's
//! inner minimiser would leave W), so the paper's bias lemmas for f_C^W
//! (Lemma C.1, Prop 2.5) do not apply as stated; we bound the extension's pull
//! on the argmin by G_k^k/((k−1)λC^(k−1)) instead, which is what [`super::localised`]'s λ₁ uses.
//! Privacy is unaffected: f_C^Rd is convex and C-Lipschitz for every record, all the argmin's
//! sensitivity 2C/(λm) needs.
//!
//! # Privacy
//! Pure ε, replace-one, as [`super::localised`]: the certificates are Lemma D.5's, deterministic —
//! after T iterations the gap is ≤ D_K·L/√T ≤ α/4 < α whatever the records, because L is declared:
//! ‖g‖ ≤ C + l2·R + λD ≤ 2C + λD + l2·R = L (the paper's L = 2C + λD, plus our ridge's l2·R). Hence
//! ‖x̄_T − argmin‖ ≤ √(2α/λ), the distances C/(λm) and C/(6λm) Algorithm 4's sensitivity uses. T
//! is known before the data, so neither the release nor the run time reads the records (no
//! timing channel, unlike the AGD and Algorithm 3's adaptive stop).
//!
//! # The cost, measured in iterations
//! T = ⌈(4·D_K·L/α)²⌉ grows as (λm²D/C)²: Theorem D.4 is polynomial, not practical. With the
//! localisation's λ₁ it is 10¹²–10²⁰ iterations at the page's sizes, so the plan lowers the default
//! λ₁ to the largest whose Σ T·m over the run fits [`WORK_ALLOWANCE`] (λ₁ is utility only: every
//! phase's noise follows its own λ_t) and says so; the noise 12C/(λmε) then dominates the release.
//! A declared λ₁ above that is refused at its control, with the count.
//!
//! # Reference
//! A. Lowy, "Optimal Rates for Pure ε-Differentially Private Stochastic Convex Optimization with
//! Heavy Tails", 2026: Definition D.3, Theorem D.4, Lemma D.5, Proposition D.6, Corollary D.7.

use super::extension::declared_moments;
use super::family::planned_localised;
use super::joint::HeavySolver;
use super::localised::{Call, Declared, LocalisedPlan, Phase, calibrated_lambda, schedule};
use crate::algo::choices::DomainChoice;
use crate::algo::family::{
    Demonstration, Family, MINIMISATION, Need, Purity, RunLength, card_text, replace_one_only,
    setting,
};
use crate::algo::kinds::AlgorithmKind;
use crate::algo::problem::ProblemDeclaration;
use crate::algo::registry::Planned;
use crate::algo::settings::Settings;
use crate::controls::Control;
use crate::domain::Domain;
use crate::error::{Error, Result};
use crate::linalg::axpy;
use crate::solver::FiniteSum;
use crate::solver::work;

/// Record gradients (Σ T·m over every stage of every call) a run may need; above it a declared λ₁
/// is refused, and the default λ₁ is lowered until it fits. A few seconds in the tab at d = 2.
pub const WORK_ALLOWANCE: f64 = 2e7;

/// The work of one iteration that reads no record, in record gradients of the same dimension:
/// the running sum and the step (two axpys), the ridge and the centring term, and the exact
/// projection onto W or W₀ = W ∩ B(w_loc, r₀) (two distances, up to three candidate points).
/// On the blocks of ten records a large J leaves, it is a large part of the iteration's cost, so
/// the slice counts it ([`FixedSubgradient::slice`]).
pub const ITERATION_OVERHEAD: usize = 16;

/// Lemma D.5's iteration count T = ⌈(4·D·L/α)²⌉ for a set of diameter D, a Lipschitz bound L and
/// the gap α (at least 1); `None` when it overflows or a number is not positive and finite.
pub fn lemma_iterations(diameter: f64, lipschitz: f64, alpha: f64) -> Option<usize> {
    let t = libm::ceil(libm::pow(4.0 * diameter * lipschitz / alpha, 2.0));
    ((0.0..1e18).contains(&t) && alpha > 0.0).then(|| (t as usize).max(1))
}

/// The declared Lipschitz constant of G on W for phase `p`: L = 2C + λD (Theorem D.4) + l2·R.
pub fn lemma_lipschitz(p: &Phase, diameter: f64, l2: f64, radius: f64) -> f64 {
    2.0 * p.clip + p.lambda * diameter + l2 * radius
}

/// Lemma D.5's T for the two stages of phase `p`'s calls: (W, α_loc) and (W₀, α).
pub fn lemma_bounds(plan: &LocalisedPlan, p: &Phase) -> Option<[usize; 2]> {
    let diameter = plan.declared.diameter;
    let lipschitz = lemma_lipschitz(p, diameter, plan.l2, plan.radius);
    Some([
        lemma_iterations(diameter, lipschitz, p.alpha_loc)?,
        lemma_iterations(diameter.min(2.0 * p.r0), lipschitz, p.alpha)?,
    ])
}

/// Σ J·(T₁ + T₂)·m over the run's phases, the record gradients it reads (∞ on overflow).
pub fn lemma_work(plan: &LocalisedPlan) -> f64 {
    plan.phases
        .iter()
        .map(|p| match lemma_bounds(plan, p) {
            Some([a, b]) => (a as f64 + b as f64) * (p.m * plan.declared.repetitions) as f64,
            None => f64::INFINITY,
        })
        .sum()
}

/// One stage solved by Lemma D.5's projected subgradient method: constant step, T iterations
/// fixed in advance, the average of x₁…x_T. Non-private (its iterates read the block).
#[derive(Debug, Clone, PartialEq)]
pub struct FixedSubgradient {
    x: Vec<f64>,
    sum: Vec<f64>,
    g: Vec<f64>,
    t: usize,
    total: usize,
    eta: f64,
    diameter: f64,
    lipschitz: f64,
    strong_convexity: f64,
    radius: f64,
    average: Option<Vec<f64>>,
}

impl FixedSubgradient {
    /// From `start` ∈ K, on a K of diameter `diameter` where the oracle's norm is at most
    /// `lipschitz`, for `total` = T iterations; `strong_convexity` (λ + l2) turns Lemma D.5's gap
    /// into the distance the status reports against `radius` (the sensitivity proof's).
    pub fn new(
        start: &[f64],
        diameter: f64,
        lipschitz: f64,
        total: usize,
        strong_convexity: f64,
        radius: f64,
    ) -> Self {
        let total = total.max(1);
        Self {
            x: start.to_vec(),
            sum: vec![0.0; start.len()],
            g: vec![0.0; start.len()],
            t: 0,
            total,
            eta: diameter / (lipschitz * (total as f64).sqrt()),
            diameter,
            lipschitz,
            strong_convexity,
            radius,
            average: None,
        }
    }

    /// Runs up to `slice` iterations on `objective` (its `value_and_gradient` is the oracle, its
    /// `project` the exact projection onto K); returns the distance bound Lemma D.5 certifies for
    /// the average so far.
    pub fn run(&mut self, objective: &impl FiniteSum, slice: usize) -> f64 {
        for _ in 0..slice {
            if self.average.is_some() {
                break;
            }
            axpy(1.0, &self.x, &mut self.sum);
            self.t += 1;
            if self.t == self.total {
                let t = self.t as f64;
                self.average = Some(self.sum.iter().map(|v| v / t).collect());
                break;
            }
            objective.value_and_gradient(&self.x, &mut self.g);
            axpy(-self.eta, &self.g, &mut self.x);
            objective.project(&mut self.x);
            // The records read show in the passes; the rest of the iteration is charged.
            work::charge(ITERATION_OVERHEAD * self.x.len());
        }
        self.distance_bound()
    }

    /// Lemma D.5's gap bound after the t iterations so far, D²/(2ηt) + ηL²/2 (B = 0, ξ = 0).
    pub fn gap_bound(&self) -> f64 {
        if self.t == 0 {
            return f64::INFINITY;
        }
        self.diameter * self.diameter / (2.0 * self.eta * self.t as f64)
            + self.eta * self.lipschitz * self.lipschitz / 2.0
    }

    /// √(2·gap/μ): the distance to the argmin the gap bound certifies.
    pub fn distance_bound(&self) -> f64 {
        (2.0 * self.gap_bound() / self.strong_convexity).sqrt()
    }

    /// The radius the sensitivity proof uses.
    pub fn radius(&self) -> f64 {
        self.radius
    }

    /// Whether the T iterations are done (the certificate is the count itself).
    pub fn is_certified(&self) -> bool {
        self.average.is_some()
    }

    /// The average x̄_T once done.
    pub fn certified_point(&self) -> &[f64] {
        self.average.as_deref().unwrap_or(&[])
    }

    /// The current iterate (non-private).
    pub fn current(&self) -> &[f64] {
        &self.x
    }

    /// Iterations so far, each one pass over the block.
    pub fn passes(&self) -> f64 {
        self.t as f64
    }

    /// Iterations per step of the page's run on a block of `m` records of dimension `d`: as
    /// many as fit [`work::STEP_WORK`] at (m + [`ITERATION_OVERHEAD`])·d numbers each, at least
    /// one. Counting records alone ignored both d and the work of the iteration beside its reads.
    pub fn slice(m: usize, d: usize) -> usize {
        work::per_step(
            (m + ITERATION_OVERHEAD).saturating_mul(d.max(1)),
            usize::MAX,
        )
    }
}

/// Needs: the ℓ2 ball (its diameter enters T, its projection is exact), a polyhedral loss (the
/// closed-form oracle), plain ERM without a lasso.
const NEEDS: &[Need] = &[
    Need::Domains {
        allowed: &[DomainChoice::L2Ball],
        why: "the localisation needs W's diameter D and an exact projection onto W ∩ a ball",
    },
    Need::PolyhedralLoss {
        why: "Theorem D.4 needs a polyhedral loss (Lowy 2026, Corollary D.7)",
    },
    Need::PlainErm {
        why: "the Lipschitz extension is of one record's loss",
    },
    Need::NoLasso {
        why: "the subgradient steps project onto W (no ℓ1 prox)",
    },
];

/// The page's card.
pub const CARD: &str = "Deterministic Localized Double Output Perturbation (Lowy 2026, Theorem \
D.4): for polyhedral losses (absolute value, hinge) the Lipschitz extension has a closed-form \
subgradient, so Algorithm 4's two certified solves are plain projected subgradient descent on the \
extended objective for a number of steps T = ⌈(4DL/α)²⌉ fixed before the data (Lemma D.5), with \
L = 2C + λD declared: no joint reformulation, no data-dependent stop. The same phases, thresholds \
and noise as Localized Double Output Perturbation. T is polynomial but huge: the default λ₁ is \
lowered until the run fits the tab, and the noise then dominates the release.";

/// The family's entry in the registry.
pub static FAMILY: Family = Family {
    kind: AlgorithmKind::DeterministicDoubleOutputPerturbation,
    card: card_text! {
        name: "deterministic double output perturbation",
        source: "Lowy 2026, “Optimal Rates for Pure ε-Differentially Private Stochastic Convex Optimization with Heavy Tails”, Theorem D.4 (Algorithms 1 and 4 with Lemma D.5's solver; Corollary D.7)",
        assumptions: "A polyhedral loss (absolute value or hinge) with E[A(z)^k] ≤ G_k^k, k ≥ 2, G_k declared from the generating distribution; W an ℓ2 ball.",
        privacy: "Pure ε, replace-one: two ℓ2-Laplace output perturbations (ε/2 each, Δ = 6C/(λm)) per call after T = ⌈(4DL/α)²⌉ projected subgradient steps, a count fixed before the data; calls on disjoint blocks compose in parallel.",
        utility: "Theorem D.4: the rate of Theorem 3.1, G_k·D·(d·log(1/δ)/(nε))^(1−1/k) + G₂·D·√(log(1/δ)/n), in deterministic polynomial time — at the λ₁ the paper's localisation asks for; the λ₁ that fits the tab leaves the noise dominant.",
        watch: "The same phase jumps as Localized Double Output Perturbation, each stage a fixed number of subgradient steps; with the lowered λ₁ the releases land near the boundary of W.",
        module: "algo::heavy_tails::deterministic",
        summary: CARD,
    },
    settings: &[
        setting(
            Control::MomentK,
            "moment order k",
            "G_k is declared from the data's distribution; it sets the threshold C",
        ),
        setting(
            Control::Clip,
            "threshold C",
            "empty: C_t = G_k (m_t ε/d)^(1/k) per phase; set, the same C everywhere",
        ),
        setting(
            Control::Repetitions,
            "calls per phase J",
            "J disjoint blocks per phase, aggregated by the median trick (utility only)",
        ),
        setting(
            Control::Lambda1,
            "base ridge λ₁",
            "empty: the localisation's λ₁, lowered to the largest whose Lemma D.5 step count T = ⌈(4DL/α)²⌉ fits the tab (utility only: the noise follows λ_t)",
        ),
    ],
    needs: NEEDS,
    solves: MINIMISATION,
    purity: Purity::Pure,
    demonstration: Demonstration::None,
    length: RunLength::DataDependent,
    plan: plan_deterministic,
};

/// The localized plan of the settings at λ₁ = `lambda1` with Lemma D.5 as the solver.
pub fn plan_at(
    settings: &Settings,
    declared: &ProblemDeclaration,
    lambda1: Option<f64>,
) -> Result<LocalisedPlan> {
    let (moment_k, moment_2) = declared_moments(settings, declared)?;
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
        lambda1,
    };
    let mut plan = LocalisedPlan {
        declared: schedule_of_declared,
        phases: Vec::new(),
        extension_loss: declared.loss.glm,
        l2: declared.regulariser.l2,
        radius: declared.radius(),
        curvature: f64::INFINITY,
        feature_bound: declared.feature_bound,
        call: Call::Double,
        solver: HeavySolver::ProjectedSubgradient,
    };
    plan.phases = schedule(&schedule_of_declared, |p| lemma_bounds(&plan, p).is_some());
    Ok(plan)
}

/// The plan: the localized schedule at the declared or the affordable λ₁, Lemma D.5's counts
/// within the allowance, all from the config alone.
fn plan_deterministic(settings: &Settings, declared: &ProblemDeclaration) -> Result<Planned> {
    replace_one_only(
        settings.budget.relation,
        "n is public and the blocks are a fixed partition of it",
    )?;
    let plan = match settings.lambda1 {
        Some(lambda1) => {
            let plan = plan_at(settings, declared, Some(lambda1))?;
            let work = lemma_work(&plan);
            if work > WORK_ALLOWANCE {
                let fits = affordable_lambda(settings, declared, lambda1)?;
                return Err(Error::invalid(
                    Control::Lambda1.id(),
                    format!(
                        "lower it to at most {fits:.3e} or leave it empty: Lemma D.5's step counts T = ⌈(4DL/α)²⌉ read {work:.1e} record gradients at this λ₁, above the allowance of {WORK_ALLOWANCE:.0e}"
                    ),
                    lambda1,
                ));
            }
            plan
        }
        None => {
            let localisation = calibrated_lambda(&plan_at(settings, declared, None)?.declared);
            let lambda1 = affordable_lambda(settings, declared, localisation)?;
            plan_at(settings, declared, Some(lambda1))?
        }
    };
    let Some(first) = plan.phases.first().copied() else {
        let (field, got) = if settings.repetitions > 1 {
            ("repetitions", settings.repetitions.to_string())
        } else {
            ("n", declared.n.to_string())
        };
        return Err(Error::invalid(
            field,
            format!(
                "n/(2J) ≥ max(10, d) records for the first phase's calls (n = {}, J = {}, d = {})",
                declared.n, settings.repetitions, declared.d
            ),
            got,
        ));
    };
    Ok(planned_localised(
        settings,
        plan,
        first,
        "Deterministic Localized Double Output Perturbation (Lowy 2026, Theorem D.4)",
    ))
}

/// The largest λ₁ ≤ `at_most` whose run fits [`WORK_ALLOWANCE`] (T grows with λ), by bisection
/// on log λ₁: data-free, so choosing it costs no privacy.
pub fn affordable_lambda(
    settings: &Settings,
    declared: &ProblemDeclaration,
    at_most: f64,
) -> Result<f64> {
    let work = |lambda1: f64| plan_at(settings, declared, Some(lambda1)).map(|p| lemma_work(&p));
    if work(at_most)? <= WORK_ALLOWANCE {
        return Ok(at_most);
    }
    let (mut lo, mut hi) = (libm::log(at_most) - 200.0, libm::log(at_most));
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if work(libm::exp(mid))? <= WORK_ALLOWANCE {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(libm::exp(lo))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::heavy_tails::joint::JointRun;
    use crate::algo::heavy_tails::localised::{Region, Surrogate};
    use crate::algo::heavy_tails::subgradient::{Joint, iteration_bound};
    use crate::data::Dataset;
    use crate::loss::Glm;
    use crate::rng::{Stream, seeded};
    use rand::RngExt;

    /// A seeded one-dimensional problem where the R^d and the W-constrained extensions coincide:
    /// x = 1 and labels in W = [−2, 2] (the inner minimiser is the label, inside W), C = 0.5 < A.
    fn seeded_problem() -> Dataset {
        let mut rng = seeded(31, Stream::Data);
        let ys: Vec<f64> = (0..7).map(|_| rng.random::<f64>() - 0.5).collect();
        Dataset::from_samples(1, vec![1.0; 7], ys).unwrap()
    }

    #[test]
    fn lemma_d5_agrees_with_algorithm_3_on_the_joint_reformulation_to_their_accuracy() {
        let data = seeded_problem();
        let (clip, lambda, centre, alpha) = (0.5, 0.2, [1.0], 2e-2);
        let region = Region::Ball(2.0);
        let g = |w: f64| {
            data.labels()
                .iter()
                .map(|y| clip * (w - y).abs())
                .sum::<f64>()
                / 7.0
                + 0.5 * lambda * (w - 1.0) * (w - 1.0)
        };
        // The minimum by a fine grid (G is 1-D, convex, piecewise quadratic).
        let minimum = (0..=400_000)
            .map(|i| g(-2.0 + 4.0 * i as f64 / 400_000.0))
            .fold(f64::INFINITY, f64::min);
        // Lemma D.5: D = 4, L = 2C + λD, T = ⌈(4DL/α)²⌉ steps of the closed-form oracle.
        let q = Surrogate {
            data: &data,
            start: 0,
            m: 7,
            extension: crate::algo::heavy_tails::Extension {
                glm: Glm::absolute(),
                threshold: clip,
            },
            l2: 0.0,
            lambda,
            centre: &centre,
            region: &region,
        };
        let lipschitz = 2.0 * clip + lambda * 4.0;
        let total = lemma_iterations(4.0, lipschitz, alpha).unwrap();
        assert_eq!(total, 2_073_600);
        let mut fixed = FixedSubgradient::new(&centre, 4.0, lipschitz, total, lambda, 1.0);
        while !fixed.is_certified() {
            fixed.run(&q, 1 << 16);
        }
        assert_eq!(fixed.passes() as usize, total);
        assert!(fixed.gap_bound() <= alpha / 4.0 + 1e-15);
        let a = fixed.certified_point()[0];
        // Algorithm 3 on Φ over W × W^m (D_K = 4√8), to the same α.
        let joint = Joint {
            glm: Glm::absolute(),
            threshold: clip,
            lambda,
            l2: 0.0,
            centre: &centre,
        };
        let diameter = 4.0 * 8f64.sqrt();
        let joint_lipschitz = ((clip + lambda * 4.0).powi(2) + (1.0 + clip).powi(2) / 7.0).sqrt();
        let bound = iteration_bound(diameter, joint_lipschitz, alpha).unwrap();
        let mut run = JointRun::new(&centre, 0, 7, diameter, alpha, bound, lambda, 1.0);
        while !run.is_certified() && !run.failed() {
            run.step(&joint, &data, &region, 2.0);
        }
        assert!(run.is_certified());
        let b = run.certified_point()[0];
        println!(
            "Lemma D.5: w = {a:.5} after {total} steps, gap {:.2e}; Algorithm 3: w = {b:.5} after {} iterations, gap {:.2e}; α = {alpha}",
            g(a) - minimum,
            run.passes(),
            g(b) - minimum
        );
        // Both within α of the minimum (the grid's own error is below 1e-9), so within α of
        // each other, and within √(2α/λ) of the argmin each.
        for w in [a, b] {
            assert!((-1e-9..=alpha).contains(&(g(w) - minimum)), "{w}");
        }
        assert!((g(a) - g(b)).abs() <= alpha);
        assert!((a - b).abs() <= 2.0 * (2.0 * alpha / lambda).sqrt());
        // Not vacuous: the start's gap is many α.
        assert!(g(1.0) - minimum > 5.0 * alpha);
    }

    #[test]
    fn lemma_d5s_count_is_the_formula() {
        assert_eq!(lemma_iterations(1.0, 1.0, 4.0), Some(1));
        assert_eq!(lemma_iterations(2.0, 1.0, 0.5), Some(256));
        assert_eq!(lemma_iterations(1e200, 1.0, 1e-200), None);
        assert_eq!(lemma_iterations(1.0, 1.0, 0.0), None);
    }
}
