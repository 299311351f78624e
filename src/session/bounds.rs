//! The theory bound of each algorithm as a curve against gradient evaluations, drawn dashed
//! beside the measured excess risk. The bounds are the proofs' explicit inequalities from
//! [`crate::theory`]; the only data-dependent input is the initial gap F(w₀) − F* of DP-GD's
//! bound, which is a plot ingredient (non-private), never a noise setting.

use serde::Serialize;

use super::prepare::{Prepared, Preview};
use super::problem::Problem;
use crate::algo::dp_accmd::Geometry;
use crate::algo::{exponential_grid, output_perturbation};
use crate::config::RunConfig;
use crate::loss::Wrap;
use crate::theory::{byoa, gradient_perturbation};

/// Points of DP-GD's curve at most (it is smooth: a few hundred suffice).
const CURVE_POINTS: usize = 200;
/// Where a one-release bound's horizontal line reaches (the page clips it to the data's range).
const FAR: f64 = 1e9;

/// A bound as a curve: y is an upper bound on the expected excess empirical risk after x full
/// passes of gradient evaluations.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Curve {
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    /// Which inequality, in words.
    pub source: &'static str,
}

fn flat(y: f64, source: &'static str) -> Option<Curve> {
    (y.is_finite() && y > 0.0).then(|| Curve {
        x: vec![1.0, FAR],
        y: vec![y, y],
        source,
    })
}

/// A bound after t = 0, s, 2s, … T steps of an iterative method (one full pass each), at most
/// [`CURVE_POINTS`] of them; t = 0 is drawn at x = 1 on the log axis.
fn over_steps(
    steps: usize,
    bound: impl Fn(usize) -> crate::error::Result<f64>,
    source: &'static str,
) -> Option<Curve> {
    let stride = steps.div_ceil(CURVE_POINTS).max(1);
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for t in (0..=steps).step_by(stride) {
        x.push(t.max(1) as f64);
        y.push(bound(t).ok()?);
    }
    Some(Curve { x, y, source })
}

/// The curve of the algorithm `prepared` configures, when its theory covers the setting.
pub fn curve(
    problem: &Problem,
    config: &RunConfig,
    preview: &Preview,
    prepared: &Prepared,
) -> Option<Curve> {
    let declared = &problem.declared;
    let (beta, mu, d) = (declared.smoothness(), declared.strong_convexity(), config.d);
    // Two bounds are stated through F(w₀) − F* or ‖w*‖: without a reference they are not drawn.
    let reference = problem.reference.as_ref().ok();
    match prepared {
        Prepared::NoisyGd(_, step) if mu > 0.0 && beta.is_finite() && *step == 1.0 / beta => {
            let mut start = vec![0.0; d];
            problem.objective.domain().project(&mut start);
            let gap = problem.objective.value(&start) - reference?.value;
            over_steps(
                config.steps,
                |t| gradient_perturbation::dp_gd_pl_bound(t, beta, mu, gap, d, preview.sigma),
                "Wang, Ye & Xu 2017, Thm 6.2 proof (eqs 80–81), with its geometric sum corrected",
            )
        }
        Prepared::DpAccMd(accmd) if beta.is_finite() => {
            let l_c = accmd.geometry.smoothness_in_norm(beta);
            // B_w(x*, x₀) in the normalised geometry: ½ (ℓ2 ball) or ln 2d (entropy from uniform).
            let bregman = match accmd.geometry {
                Geometry::L2 { .. } => 0.5,
                Geometry::L1 { .. } => (2.0 * d as f64).ln(),
            };
            let noise_sq =
                gradient_perturbation::noise_dual_norm_sq(accmd.geometry, d, preview.sigma).ok()?;
            over_steps(
                config.steps,
                |t| gradient_perturbation::dp_accmd_bound(t, l_c, bregman, noise_sq),
                "Wang, Ye & Xu 2017, Theorem 5.3 (eqs 71–76) with the noise term written out",
            )
        }
        Prepared::ObjectivePerturbation(_) => {
            let w_star = &reference?.w;
            flat(
                gradient_perturbation::objective_perturbation_bound(
                    config.n,
                    d,
                    config.epsilon,
                    config.feature_bound,
                    config.l2,
                    crate::linalg::dot(w_star, w_star),
                )
                .ok()?,
                "strong convexity of the perturbed objective (CMS11 Algorithm 2)",
            )
        }
        Prepared::OutputPerturbation(plan, _) => flat(
            output_perturbation::theory_bound(
                plan.declared,
                plan.settings,
                config.n,
                config.epsilon,
            )
            .ok()?,
            "Lowy & Razaviyayn 2021, Theorems 3.1/3.2 (and 3.4/3.5 for Algorithm 6) proofs, with the certified distance ρ",
        ),
        Prepared::Grid(settings, _) => {
            let radius = declared.radius();
            // The utility's sensitivity is 2LR under TERM (its F is not a mean), as the preview and
            // `GridExponential::new` read it; the curve must use the one the mechanism uses.
            let erm = !matches!(config.wrap, Wrap::Tilted { .. });
            let lipschitz_f =
                preview.lipschitz + mu * radius + declared.regularizer.l1 * (d as f64).sqrt();
            flat(
                exponential_grid::theory_bound(
                    preview.lipschitz,
                    lipschitz_f,
                    radius,
                    config.n,
                    d,
                    config.epsilon,
                    settings.resolution,
                    erm,
                ),
                "Lowy & Razaviyayn 2021, Proposition G.1 with the grid's spacing",
            )
        }
        Prepared::Byoa(_) if beta.is_finite() && mu > 0.0 => flat(
            byoa::algorithm_1_empirical(
                preview.lipschitz,
                beta,
                mu,
                config.n,
                d,
                config.epsilon,
                config.delta,
            ),
            "Zhang et al. 2022, Theorem 3.4 (empirical)",
        ),
        _ => None,
    }
}
