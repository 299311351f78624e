//! The audits of the heavy-tail families (Lowy 2026, "Optimal Rates for Pure ε-Differentially
//! Private Stochastic Convex Optimization with Heavy Tails"): each family as the page runs it, its
//! plan declared from the generating distribution, on a pair whose differing record is a huge
//! outlier; and the planted bug the paper's public G_k exists to prevent, a threshold C measured
//! from the sample.

use super::pairs::pair_1d;
use super::{Auditable, Bug, FamilyTarget, Side, claim_of};
use crate::algo::heavy_tails::threshold;
use crate::config::{AlgorithmKind, RunConfig};
use crate::data::{Dataset, Tail};
use crate::error::{Error, Result};
use crate::privacy::ApproxDp;
use crate::rng::DpRng;

/// The shared records' feature (label +1): small, so the sample's measured moment is small.
const SHARED_X: f64 = 0.1;
/// The outlier's feature in D′, within the declared feature bound (it is not clipped).
const OUTLIER_X: f64 = 1000.0;

/// A heavy-tail family on its pair: one [`FamilyTarget`] per side, so that the planted bug can
/// give each side the plan its own sample would measure; correct, both are the declared plan.
pub struct HeavyTailTarget {
    sides: [FamilyTarget; 2],
    claim: ApproxDp,
}

/// `config`'s heavy-tail family (`config.algorithm`: Localized Double Output Perturbation,
/// localized output perturbation (Algorithms 1 + 2), the pure-ε clipped GD baseline, the
/// single-stage output perturbation on f_C, EM-PGM, the localised exponential mechanism or the
/// deterministic variant of Theorem D.4) as the page runs it
/// at `config`'s n and ε, with G_k declared from `config`'s synthetic distribution (the page's
/// Pareto-radial features with α = 3, scale 0.5, k = 2), in one dimension on the ball of radius
/// 4 (feature bound 1000, ridge 0.01), under the logistic loss, or the hinge loss for the
/// deterministic variant, which takes polyhedral losses only (both have |φ′| ≤ 1, so the same
/// G_k and the same planted threshold).
///
/// The pair: n − 1 shared records (x = 0.1, y = +1), and the differing record (0.1, −1) in D,
/// the outlier (1000, −1) in D′, whose raw gradient is 10⁴ times as large. The extension at the
/// declared C bounds its pull by C: the correct run must pass.
///
/// [`Bug::MeasuredThreshold`]: each side's plan has C = Ĝ_k·(nε/d)^(1/k) with Ĝ_k =
/// ((1/n)Σ‖xᵢ‖^k)^(1/k) measured on that side's records (a declared threshold, the page's `clip`
/// control, set from the sample): on D′ the outlier makes C, and with it the noise, about 300
/// times larger at n = 200, and the spread of the release tells the datasets apart. Not for the
/// deterministic variant at the sizes its step counts allow: both sides' noise dwarfs W, every
/// release lands on W's boundary, and the spread cannot show (tests/algorithms/heavy_audit.rs says why).
pub fn heavy_tail_target(config: RunConfig, bug: Bug) -> Result<HeavyTailTarget> {
    if !matches!(
        config.algorithm,
        AlgorithmKind::LocalisedDoubleOutputPerturbation
            | AlgorithmKind::LocalisedOutputPerturbation
            | AlgorithmKind::PureClippedGd
            | AlgorithmKind::OutputPerturbationLipschitzExtension
            | AlgorithmKind::EmPgm
            | AlgorithmKind::LocalisedApproxEm
            | AlgorithmKind::DeterministicDoubleOutputPerturbation
    ) {
        return Err(Error::invalid(
            "algorithm",
            "a heavy-tail family of Lowy 2026",
            format!("{:?}", config.algorithm),
        ));
    }
    let config = RunConfig {
        data: crate::config::DataSource::Synthetic,
        d: 1,
        tail: Tail::ParetoRadial { alpha: 3.0 },
        feature_scale: 0.5,
        feature_bound: OUTLIER_X,
        radius: 4.0,
        l2: 0.01,
        moment_k: 2.0,
        delta: 0.0,
        loss: if config.algorithm == AlgorithmKind::DeterministicDoubleOutputPerturbation {
            crate::loss::Glm::Hinge
        } else {
            crate::loss::Glm::Logistic
        },
        ..config
    };
    let pair = pair_1d(
        [Some((SHARED_X, -1.0)), Some((OUTLIER_X, -1.0))],
        config.n,
        (SHARED_X, 1.0),
    )?;
    let claim = claim_of(&crate::config::menu::plan(&config)?);
    let side = |data: &Dataset| -> Result<FamilyTarget> {
        let declared = match bug {
            Bug::None => config.clone(),
            Bug::MeasuredThreshold => RunConfig {
                clip: Some(measured_threshold(data, &config)),
                ..config.clone()
            },
            _ => {
                return Err(Error::invalid(
                    "bug",
                    "none or measured_threshold for a heavy-tail family",
                    format!("{bug:?}"),
                ));
            }
        };
        FamilyTarget::declared_by(declared, pair.clone())
    };
    let sides = [side(&pair[0])?, side(&pair[1])?];
    Ok(HeavyTailTarget { sides, claim })
}

/// The planted bug's threshold: C* = Ĝ_k (nε/d)^(1/k) with Ĝ_k measured on `data` (for the
/// logistic and hinge losses A(z) ≤ ‖x‖).
fn measured_threshold(data: &Dataset, config: &RunConfig) -> f64 {
    let k = config.moment_k;
    let mean = data
        .samples()
        .map(|(x, _)| libm::pow(crate::linalg::norm2(x), k))
        .sum::<f64>()
        / data.n() as f64;
    threshold(
        libm::pow(mean, 1.0 / k),
        data.n(),
        config.epsilon,
        data.d(),
        k,
    )
}

impl Auditable for HeavyTailTarget {
    fn claim(&self) -> ApproxDp {
        self.claim
    }

    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64> {
        match side {
            Side::D => self.sides[0].run(side, rng),
            Side::DPrime => self.sides[1].run(side, rng),
        }
    }
}
