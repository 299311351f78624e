//! Algorithm 3 as the certified solver of a localized call (Lowy 2026, Algorithm 3 on the joint
//! reformulation of Lemma 2.7, with Lemma 2.8's inexact projection onto W₀ = W ∩ B(w_loc, r₀)).
//!
//! # What it certifies
//! One stage of a call minimises F̂_{C,λ}(w) = (1/m)Σ f_C^W(w, zᵢ) + (l2/2)‖w‖² + (λ/2)‖w − w₀‖²
//! over W_w (W in stage 1, W₀ in stage 2), with the paper's W-constrained extension f_C^W. Its
//! joint form Φ over K = W_w × W^m ([`Joint`]) has the same minimum, and an α-minimiser of Φ gives
//! an α-minimiser of F̂_{C,λ} (Lemma 2.7), hence a point within √(2α/λ) of its argmin by
//! λ-strong convexity: C/(λm) at Algorithm 2's α_loc = C²/(2λm²) and C/(6λm) at Algorithm 4's
//! α = C²/(72λm²) — exactly the distances the sensitivity proofs use (Prop 3.2 / D.1). f_C^W is
//! convex and C-Lipschitz on W (Lemma 2.2), so the argmin's sensitivity is 2C/(λm), as for the
//! R^d extension the AGD path solves; the noise law does not depend on the solver.
//!
//! # Its iteration bound, before any data
//! Algorithm 3 stops by its deterministic certificate 3·D_K·√S_t ≤ α·t, and within
//! T_α = ⌈(3·D_K·L/α)²⌉ iterations when Φ is L-Lipschitz on K (Prop 2.9). With the records clipped
//! to the declared feature bound B, a subgradient of Φ has
//! ‖g^(w)‖ ≤ C + λD + l2·R and Σᵢ‖g^(yᵢ)‖² ≤ m·((sup|φ′|·B + C)/m)², so
//! L = √((C + λD + l2·R)² + (sup|φ′|·B + C)²/m) is declared ([`joint_lipschitz`]): T_α is known
//! from the config alone, the plan refuses the solver when Σ T_α·m over the run exceeds
//! [`WORK_ALLOWANCE`] record gradients (a data-free decision, docs/PRIVACY.md rule 6), and a run the plan
//! accepts cannot run out of iterations in exact arithmetic. (The paper's looser
//! L_Z = A_Z + 2C + λD, Lowy 2026, would need the data's A_Z = max A(zᵢ).) D_K is the joint
//! domain's diameter: D·√(m + 1) for stage 1, √(min(D, 2r₀)² + m·D²) for stage 2 (Lowy 2026).
//!
//! # Reference
//! A. Lowy, "Optimal Rates for Pure ε-Differentially Private Stochastic Convex Optimization with
//! Heavy Tails", 2026: Algorithm 3, Lemmas 2.7–2.8, Proposition 2.9.

use serde::{Deserialize, Serialize};

use super::localised::{Call, Phase, Region};
use super::subgradient::{Adaptive, Joint, inexact_projection, iteration_bound};
use crate::data::Dataset;
use crate::solver::work;

/// Record gradients (T_α·m summed over every stage of every call) a run of Algorithm 3 may need
/// at most; above it the plan refuses the solver. About a minute of the browser's time at d = 2.
pub const WORK_ALLOWANCE: f64 = 2e8;

/// The work of one Algorithm 3 iteration that reads no record, per coordinate of the joint point
/// (w and the m copies yᵢ, (m + 1)·d numbers): the running sum, the norm, the step and the
/// projection of every block. The inexact projection onto W₀'s bisection charges its own
/// ([`inexact_projection`]). A step of the page's run iterates until the records it read and
/// this work reach [`work::STEP_WORK`] (at least one iteration).
const JOINT_OVERHEAD: usize = 4;

/// The certified solver of the localized heavy-tail families (the `heavy_solver` control).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HeavySolver {
    /// The project's certified AGD on the R^d extension of a smooth loss (gradient-mapping
    /// certificate), the default.
    #[default]
    Agd,
    /// Lowy 2026's Algorithm 3 on the joint reformulation (Lemmas 2.7–2.8), the paper's solver,
    /// for the W-constrained extension; only where its iteration bound fits the allowance.
    AdaptiveSubgradient,
    /// Lemma D.5's projected subgradient on the extended objective for a step count fixed before
    /// the data (Theorem D.4), for polyhedral losses: only
    /// [`super::deterministic`]'s family sets it (never a link: not serialised).
    #[serde(skip)]
    ProjectedSubgradient,
}

impl HeavySolver {
    /// The words the guarantee and the ledger use for it.
    pub fn describe(self) -> &'static str {
        match self {
            HeavySolver::Agd => "certified AGD on the R^d extension (gradient-mapping certificate)",
            HeavySolver::AdaptiveSubgradient => {
                "Algorithm 3 on the joint reformulation with the W-constrained f_C (Lemmas 2.7–2.8)"
            }
            HeavySolver::ProjectedSubgradient => {
                "projected subgradient on the R^d extension for T = ⌈(4DL/α)²⌉ steps fixed before the data, its closed-form subgradient exact (Lemma D.5, Theorem D.4)"
            }
        }
    }
}

/// The declared Lipschitz constant of Φ on K for one block (see the module doc): C, λ, D, l2, R,
/// sup|φ′|, B and m, all from the config.
pub fn joint_lipschitz(
    phase: &Phase,
    diameter: f64,
    ridge: (f64, f64),
    slope_bound: f64,
    feature_bound: f64,
) -> f64 {
    let (l2, radius) = ridge;
    let w_block = phase.clip + phase.lambda * diameter + l2 * radius;
    let y_blocks = (slope_bound * feature_bound + phase.clip) / (phase.m as f64).sqrt();
    (w_block * w_block + y_blocks * y_blocks).sqrt()
}

/// The joint diameters D_K and gap targets α of a call's stages: stage 1 (W × W^m, α_loc) and,
/// for Algorithm 4, stage 2 (W₀ × W^m, α).
pub fn stages(call: Call, phase: &Phase, diameter: f64) -> Vec<(f64, f64)> {
    let m = phase.m as f64;
    let first = (diameter * (m + 1.0).sqrt(), phase.alpha_loc);
    match call {
        Call::Localise => vec![first],
        Call::Double => {
            let w0 = diameter.min(2.0 * phase.r0);
            vec![
                first,
                ((w0 * w0 + m * diameter * diameter).sqrt(), phase.alpha),
            ]
        }
    }
}

/// Prop 2.9's iteration bounds T_α of a call's stages, or `None` when one overflows.
pub fn stage_bounds(
    call: Call,
    phase: &Phase,
    diameter: f64,
    lipschitz: f64,
) -> Option<Vec<usize>> {
    stages(call, phase, diameter)
        .into_iter()
        .map(|(dk, alpha)| iteration_bound(dk, lipschitz, alpha))
        .collect()
}

/// One stage of a call solved by Algorithm 3 on Φ: non-private (its iterates read the block).
#[derive(Debug, Clone)]
pub struct JointRun {
    state: Adaptive,
    d: usize,
    start: usize,
    m: usize,
    budget: usize,
    alpha: f64,
    strong_convexity: f64,
    radius: f64,
    certified: Option<Vec<f64>>,
    failed: bool,
    passes: f64,
}

impl JointRun {
    /// Stage on the block `start..start + m`, from w = `start_w` (the public centre, or w_loc in
    /// stage 2) with every yᵢ = w, on a K of diameter `diameter`, to the gap `alpha` within
    /// `budget` iterations (Prop 2.9's T_α). `strong_convexity` (λ + l2) turns the gap into the
    /// certified distance √(2α/μ) the status reports against `radius`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        start_w: &[f64],
        start: usize,
        m: usize,
        diameter: f64,
        alpha: f64,
        budget: usize,
        strong_convexity: f64,
        radius: f64,
    ) -> Self {
        let d = start_w.len();
        let point: Vec<f64> = start_w.iter().copied().cycle().take(d * (m + 1)).collect();
        Self {
            state: Adaptive::new(&point, diameter, alpha),
            d,
            start,
            m,
            budget: budget.max(1),
            alpha,
            strong_convexity,
            radius,
            certified: None,
            failed: false,
            passes: 0.0,
        }
    }

    /// Runs up to a slice of iterations on `joint` over the block of `data`, projecting w onto
    /// `region` (exactly onto W, or by Lemma 2.8's ξ-inexact bisection onto W₀) and each yᵢ onto
    /// W = B(0, `w_radius`). Returns the certified distance bound √(2·3D_K√S_t/(t·μ)).
    pub fn step(&mut self, joint: &Joint, data: &Dataset, region: &Region, w_radius: f64) -> f64 {
        if self.certified.is_some() || self.failed {
            return self.distance_bound();
        }
        let records: Vec<(&[f64], f64)> = (self.start..self.start + self.m)
            .map(|i| (data.features(i), data.label(i)))
            .collect();
        let d = self.d;
        let ball = Region::Ball(w_radius);
        // Records read show in the passes; the joint point's own work is charged. The step
        // stops once both together reach the step's work (the bisection's steps vary).
        let reads = (self.m * d) as u64;
        let since = work::charged();
        let mut read = 0u64;
        while read + (work::charged() - since) < work::STEP_WORK as u64 {
            let outcome = self.state.iterate(
                |x, g| {
                    joint.value_and_subgradient(x, &records, g);
                },
                |x, xi| {
                    let (w, ys) = x.split_at_mut(d);
                    project_w(region, w, w_radius, xi);
                    ys.chunks_exact_mut(d).for_each(|y| ball.project(y));
                },
            );
            self.passes += 1.0;
            read += reads;
            work::charge(JOINT_OVERHEAD * (self.m + 1) * d);
            if let Some(point) = outcome {
                self.certified = Some(point[..d].to_vec());
                break;
            }
            if self.state.iterations() >= self.budget {
                self.failed = true;
                break;
            }
        }
        self.distance_bound()
    }

    /// √(2·gap/μ): the distance to the argmin the current gap bound certifies.
    pub fn distance_bound(&self) -> f64 {
        (2.0 * self.state.gap_bound() / self.strong_convexity).sqrt()
    }

    /// The distance the stage must certify, √(2α/μ).
    pub fn target(&self) -> f64 {
        (2.0 * self.alpha / self.strong_convexity).sqrt()
    }

    /// The radius the sensitivity proof uses (≥ [`JointRun::target`]).
    pub fn radius(&self) -> f64 {
        self.radius
    }

    /// Whether the certificate held.
    pub fn is_certified(&self) -> bool {
        self.certified.is_some()
    }

    /// Whether T_α iterations passed without it (floating point only: Prop 2.9).
    pub fn failed(&self) -> bool {
        self.failed
    }

    /// The certified w (the w-block of x̄_t), once certified.
    pub fn certified_point(&self) -> &[f64] {
        self.certified.as_deref().unwrap_or(&[])
    }

    /// The current iterate's w-block (non-private).
    pub fn current(&self) -> &[f64] {
        &self.state.current()[..self.d]
    }

    /// Iterations so far, each one pass over the block.
    pub fn passes(&self) -> f64 {
        self.passes
    }
}

/// w ← Π_W(w) exactly, or Lemma 2.8's ξ-inexact projection onto W ∩ B(w_loc, r₀).
fn project_w(region: &Region, w: &mut [f64], w_radius: f64, xi: f64) {
    match region {
        Region::Ball(_) => region.project(w),
        Region::Localised { centre, r, .. } => {
            let ball = Region::Ball(w_radius);
            let out = inexact_projection(w, |v| ball.project(v), centre, *r, xi);
            w.copy_from_slice(&out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loss::Glm;

    /// Five records x = 1 with labels −0.3, 0, 0, 0, 0.3 under the absolute loss on W = [−2, 2],
    /// C = 0.5 < 1 = A(z): f_C^W(w, zᵢ) = C|w − yᵢ| exactly (the inner minimiser is yᵢ ∈ W), so
    /// F̂_{C,λ}(w) = (C/5)Σ|w − yᵢ| + (λ/2)(w − 1)² with λ = 0.2 and centre w₀ = 1.
    fn problem() -> (Dataset, impl Fn(f64) -> f64) {
        let ys = vec![-0.3, 0.0, 0.0, 0.0, 0.3];
        let data = Dataset::from_samples(1, vec![1.0; 5], ys.clone()).unwrap();
        let f = move |w: f64| {
            ys.iter().map(|y| 0.5 * (w - y).abs()).sum::<f64>() / 5.0 + 0.1 * (w - 1.0) * (w - 1.0)
        };
        (data, f)
    }

    fn solve(region: &Region, start: f64, alpha: f64) -> (JointRun, usize) {
        let (data, _) = problem();
        let centre = [1.0];
        let joint = Joint {
            glm: Glm::absolute(),
            threshold: 0.5,
            lambda: 0.2,
            l2: 0.0,
            centre: &centre,
        };
        // D_K = 4·√6 (w and five yᵢ in [−2, 2]); L from ‖g^(w)‖ ≤ C + λD, ‖g^(yᵢ)‖ ≤ (1 + C)/m.
        let diameter = 4.0 * 6f64.sqrt();
        let lipschitz = ((0.5 + 0.2 * 4.0f64).powi(2) + 1.5f64.powi(2) / 5.0).sqrt();
        let bound = iteration_bound(diameter, lipschitz, alpha).unwrap();
        let mut run = JointRun::new(&[start], 0, 5, diameter, alpha, bound, 0.2, 1.0);
        while !run.is_certified() && !run.failed() {
            run.step(&joint, &data, region, 2.0);
        }
        (run, bound)
    }

    #[test]
    fn algorithm_3_on_the_joint_reformulation_certifies_its_gap_on_a_known_minimum() {
        // Over W: the subdifferential of the mean at 0 is C·[−3/5, 3/5] ∋ 0.2 = −λ(0 − 1), so the
        // minimum is at w = 0, F̂ = C·0.6/5 + λ/2 = 0.16 (Lemma 2.7: min Φ = min F̂).
        let (_, f) = problem();
        let alpha = 1e-2;
        let (run, bound) = solve(&Region::Ball(2.0), 1.0, alpha);
        assert!(run.is_certified(), "within Prop 2.9's T_α = {bound}");
        assert!(run.passes() as usize <= bound);
        let w = run.certified_point()[0];
        let gap = f(w) - 0.16;
        println!(
            "W: w = {w:.4}, gap {gap:.2e} ≤ α = {alpha} after {} iterations",
            run.passes()
        );
        assert!((-1e-12..=alpha).contains(&gap), "{gap}");
        // The certificate's distance √(2α/λ) holds by strong convexity.
        assert!(w.abs() <= run.target() + 1e-12, "{w}");
        // Not vacuous: the start's gap is 0.1 = 10α.
        assert!(f(1.0) - 0.16 > 9.0 * alpha);
    }

    #[test]
    fn inside_the_localisation_ball_the_projection_keeps_w_in_w0_and_the_gap_holds() {
        // W₀ = W ∩ B(0.5, 0.2) = [0.3, 0.7]: F̂ increases on it (slope C·3/5 − λ·0.7 > 0), so its
        // minimum is F̂(0.3) = C·1.5/5 + λ/2·0.49 = 0.199. Lemma 2.8's bisection projects w.
        let (_, f) = problem();
        let region = Region::Localised {
            radius: 2.0,
            centre: vec![0.5],
            r: 0.2,
        };
        let alpha = 1e-2;
        let (run, _) = solve(&region, 0.5, alpha);
        assert!(run.is_certified());
        let w = run.certified_point()[0];
        assert!((0.3 - 1e-12..=0.7 + 1e-12).contains(&w), "{w}");
        let gap = f(w) - 0.199;
        assert!((-1e-12..=alpha).contains(&gap), "{gap}");
    }

    #[test]
    fn the_iteration_bound_is_props_formula_and_refuses_overflow() {
        assert_eq!(iteration_bound(2.0, 1.0, 0.5), Some(144));
        assert_eq!(iteration_bound(1.0, 1.0, 3.0), Some(1));
        assert_eq!(iteration_bound(1e200, 1.0, 1e-200), None);
        assert_eq!(iteration_bound(1.0, f64::INFINITY, 1.0), None);
    }
}
