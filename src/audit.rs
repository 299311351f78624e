//! Empirical privacy audit: a statistical *lower bound* on the ε of a mechanism, from runs on a
//! neighbouring pair (D, D′), to catch implementations that do not deliver what they claim.
//!
//! # Method
//! In the style of StatDP (Ding et al. 2018) and the Clopper–Pearson audits of Jagielski et al.
//! (2020) and Nasr et al. (2021):
//!
//! 1. Run the mechanism N times on D and N times on D′ and reduce each release to a scalar
//!    statistic (for a vector release: its coordinate along D − D′).
//! 2. On the **first half** of the runs, choose a rejection region S = {x ≥ t} or {x ≤ t} and an
//!    ordering (D over D′ or D′ over D) that maximise the bound of step 3 computed on that half
//!    (with Wilson score intervals in place of Clopper–Pearson: the choice only has to be good,
//!    not valid, and Wilson is closed-form, which keeps hundreds of candidates cheap).
//!    Candidate thresholds are pooled order statistics at geometrically spaced ranks from each
//!    end, so the deep tails, where likelihood ratios are largest, are covered.
//! 3. On the **second half** (independent of the choice), count hits and compute one-sided
//!    Clopper–Pearson bounds p̲ ≤ P[M(D) ∈ S] and p̄ ≥ P[M(D′) ∈ S], each at level α/2, and report
//!
//!    ε̂ = ln((p̲ − δ)/p̄)   (0 if p̲ ≤ δ),
//!
//!    since (ε, δ)-DP demands P[M(D) ∈ S] ≤ e^ε P[M(D′) ∈ S] + δ for every S.
//!
//! With probability ≥ 1 − α over the runs, ε̂ ≤ the true ε of the mechanism (union bound over
//! the two Clopper–Pearson bounds; the region is chosen on independent data). So a correct
//! mechanism yields ε̂ ≤ claimed ε except with probability α, and ε̂ > claimed ε is evidence,
//! at confidence 1 − α, of a bug. An audit that passes proves nothing: it is a lower bound on
//! one pair and one statistic, not a proof of privacy.
//!
//! # Targets
//! [`Auditable`] is implemented by the standard targets below, each with planted bugs for the
//! audit tab and the tests: the Gaussian and Laplace mechanisms on a clipped mean (σ halved,
//! scale halved, clipping skipped), noisy gradient descent as a whole algorithm (clipping
//! skipped, replace-one; the skip is DP-GD's leaky toggle [`DpGdLeak::NoClipping`]), DP-SGD,
//! DP-SVRG, DP-AccMD (with its exact-gradient y-step leak) and objective perturbation as whole
//! algorithms, and
//! output perturbation (seed 000 Algorithm 1) with a certificate-skipping variant, and the grid
//! exponential mechanism on a pair with one huge target (issue 12). The pairs are worst cases for
//! the query at hand.
//!
//! Audits need fresh randomness even when a run is seeded (a fixed seed on both sides would
//! compare a distribution with itself shifted); they draw from their own stream.

#![deny(missing_docs)]

use std::sync::Arc;

use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::algo::PrivateAlgorithm;
use crate::algo::dp_accmd::{AccMdLeak, DpAccMd, DpAccMdConfig, Geometry};
use crate::algo::dp_sgd::{DpSgd, DpSgdCalibration, DpSgdConfig, DpSgdLeak};
use crate::algo::dp_svrg::{
    DpSvrg, DpSvrgCalibration, DpSvrgConfig, SvrgLeak, SvrgNoise, SvrgVariant,
};
use crate::algo::exponential_grid::{GridExponential, GridSettings};
use crate::algo::noisy_gd::{Calibration, DpGdLeak, NoisyGd};
use crate::algo::objective_perturbation::{ObjectivePerturbation, ObjectivePerturbationConfig};
use crate::algo::output_perturbation::{
    Declared, NoiseLaw, OutputPerturbation, Plan, Settings, plan,
};
use crate::data::Dataset;
use crate::domain::L2Ball;
use crate::error::{Error, Result};
use crate::loss::{Glm, Logistic, Loss, Regularizer};
use crate::noise::{Gaussian, L2Laplace, Laplace, fill_gaussian};
use crate::objective::Objective;
use crate::privacy::calibration::{
    GaussianMethod, analytic_gaussian_sigma, classical_gaussian_sigma, laplace_scale,
    zwb_gaussian_sigma,
};
use crate::privacy::{ApproxDp, Relation};
use crate::rng::DpRng;
use crate::solver::{BaseSolver, CertificateConstants, Sgd, SolverKind};
use crate::stats::{clopper_pearson, normal_quantile, wilson};

/// Which dataset of the neighbouring pair a run uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The dataset D.
    D,
    /// The neighbour D′.
    DPrime,
}

/// A mechanism or a whole algorithm, run on one side of a fixed neighbouring pair.
pub trait Auditable {
    /// The guarantee the mechanism claims, computed before any run.
    fn claim(&self) -> ApproxDp;
    /// One independent run on `side`, reduced to a scalar statistic.
    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64>;
}

/// Which tail the rejection region is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tail {
    /// S = {x ≥ t}.
    Upper,
    /// S = {x ≤ t}.
    Lower,
}

/// The outcome of an audit; serialisable for the page's audit tab.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditReport {
    /// What the mechanism claims.
    pub claimed: ApproxDp,
    /// ε̂: with confidence 1 − α the mechanism's true ε (at the claimed δ) is at least this.
    pub epsilon_lower: f64,
    /// True when ε̂ > claimed ε: a privacy violation detected at confidence 1 − α.
    pub violation: bool,
    /// α of the Clopper–Pearson bounds (split α/2 + α/2).
    pub alpha: f64,
    /// Runs per side (half chose the region, half measured it).
    pub runs_per_side: usize,
    /// The rejection region's threshold t.
    pub threshold: f64,
    /// The rejection region's tail.
    pub tail: Tail,
    /// The side whose probability is in the numerator of the ratio.
    pub numerator: Side,
    /// Hits of the numerator side in the measuring half.
    pub hits_numerator: u64,
    /// Hits of the other side in the measuring half.
    pub hits_denominator: u64,
}

/// The bound ln((p̲ − δ)/p̄) from hit counts out of `n` runs per side, at level α (α/2 each).
fn epsilon_bound(k_num: u64, k_den: u64, n: u64, delta: f64, alpha: f64) -> Result<f64> {
    let (p_lo, _) = clopper_pearson(k_num, n, alpha / 2.0)?;
    let (_, p_hi) = clopper_pearson(k_den, n, alpha / 2.0)?;
    if p_lo <= delta {
        return Ok(0.0);
    }
    Ok(libm::log((p_lo - delta) / p_hi).max(0.0))
}

/// The selection-phase proxy of [`epsilon_bound`], with Wilson intervals at quantile z.
fn epsilon_proxy(k_num: u64, k_den: u64, n: u64, delta: f64, z: f64) -> f64 {
    let (p_lo, _) = wilson(k_num, n, z);
    let (_, p_hi) = wilson(k_den, n, z);
    if p_lo <= delta || p_hi <= 0.0 {
        return 0.0;
    }
    libm::log((p_lo - delta) / p_hi).max(0.0)
}

/// Hits of the region (tail, t) in a sorted sample.
fn hits(sorted: &[f64], tail: Tail, t: f64) -> u64 {
    (match tail {
        Tail::Upper => sorted.len() - sorted.partition_point(|&x| x < t),
        Tail::Lower => sorted.partition_point(|&x| x <= t),
    }) as u64
}

/// Audits two samples of a statistic, `on_d` from runs on D and `on_d_prime` from runs on D′
/// (equal lengths ≥ 20), against `claim`, at confidence 1 − `alpha`. See the module docs.
pub fn audit_samples(
    on_d: &[f64],
    on_d_prime: &[f64],
    claim: ApproxDp,
    alpha: f64,
) -> Result<AuditReport> {
    if on_d.len() != on_d_prime.len() {
        return Err(Error::DimensionMismatch {
            what: "runs on D′",
            expected: on_d.len(),
            got: on_d_prime.len(),
        });
    }
    if on_d.len() < 20 {
        return Err(Error::invalid(
            "runs",
            "at least 20 runs per side",
            on_d.len(),
        ));
    }
    if !(alpha > 0.0 && alpha < 0.5) {
        return Err(Error::invalid("alpha", "a number in (0, 0.5)", alpha));
    }
    if on_d.iter().chain(on_d_prime).any(|x| x.is_nan()) {
        return Err(Error::NonFinite {
            what: "audit statistic",
        });
    }
    let half = on_d.len() / 2;
    let sorted = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v
    };
    let (a1, b1) = (sorted(&on_d[..half]), sorted(&on_d_prime[..half]));
    let (a2, b2) = (
        sorted(&on_d[half..2 * half]),
        sorted(&on_d_prime[half..2 * half]),
    );
    let mut pooled: Vec<f64> = a1.iter().chain(&b1).copied().collect();
    pooled.sort_by(f64::total_cmp);

    // Geometric ranks 1, 2, …, ×1.1 … up to the median, from each end.
    let mut ranks = Vec::new();
    let mut r = 1.0f64;
    while (r as usize) < pooled.len() / 2 {
        let i = r as usize;
        if ranks.last() != Some(&i) {
            ranks.push(i);
        }
        r *= 1.1;
        r = r.max(i as f64 + 1.0);
    }
    let n1 = half as u64;
    let z = normal_quantile(1.0 - alpha / 2.0);
    let mut best: Option<(f64, Tail, f64, Side)> = None;
    for &i in &ranks {
        for (tail, t) in [
            (Tail::Upper, pooled[pooled.len() - i]),
            (Tail::Lower, pooled[i - 1]),
        ] {
            let (ka, kb) = (hits(&a1, tail, t), hits(&b1, tail, t));
            for (num, k_num, k_den) in [(Side::D, ka, kb), (Side::DPrime, kb, ka)] {
                let e = epsilon_proxy(k_num, k_den, n1, claim.delta, z);
                if best.is_none_or(|b| e > b.0) {
                    best = Some((e, tail, t, num));
                }
            }
        }
    }
    // `ranks` is non-empty because half ≥ 10, so `best` is set; fall back to a no-op region.
    let (_, tail, threshold, numerator) =
        best.unwrap_or((0.0, Tail::Upper, f64::INFINITY, Side::D));
    let (ka, kb) = (hits(&a2, tail, threshold), hits(&b2, tail, threshold));
    let (k_num, k_den) = match numerator {
        Side::D => (ka, kb),
        Side::DPrime => (kb, ka),
    };
    let epsilon_lower = epsilon_bound(k_num, k_den, n1, claim.delta, alpha)?;
    Ok(AuditReport {
        claimed: claim,
        epsilon_lower,
        violation: epsilon_lower > claim.epsilon,
        alpha,
        runs_per_side: on_d.len(),
        threshold,
        tail,
        numerator,
        hits_numerator: k_num,
        hits_denominator: k_den,
    })
}

/// Runs `target` `runs_per_side` times on each side with `rng` and audits the statistics.
pub fn audit(
    target: &mut dyn Auditable,
    runs_per_side: usize,
    alpha: f64,
    rng: &mut DpRng,
) -> Result<AuditReport> {
    let mut on_d = Vec::with_capacity(runs_per_side);
    let mut on_d_prime = Vec::with_capacity(runs_per_side);
    for _ in 0..runs_per_side {
        on_d.push(target.run(Side::D, rng)?);
        on_d_prime.push(target.run(Side::DPrime, rng)?);
    }
    audit_samples(&on_d, &on_d_prime, target.claim(), alpha)
}

/// Bugs that can be planted in a target, to show the audit catching them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bug {
    /// The correct mechanism.
    None,
    /// Gaussian σ (or the Laplace scale) divided by two after calibration.
    NoiseHalved,
    /// Records are not clipped to the declared bound before the query.
    ClippingSkipped,
    /// Output perturbation releases its base solver's point after a fixed number of steps
    /// ("ran T steps") without checking the accuracy certificate (DESIGN.md §5 rule 3).
    CertificateSkipped,
}

/// Only output perturbation has a certificate to skip.
fn refuse_certificate_bug(bug: Bug) -> Result<()> {
    if bug == Bug::CertificateSkipped {
        return Err(Error::invalid(
            "bug",
            "none, noise_halved or clipping_skipped for a mean mechanism",
            "certificate_skipped",
        ));
    }
    Ok(())
}

/// The worst-case pair for a clipped mean of n scalars with bound C under replace-one:
/// D = (C, 0, …, 0) and D′ = (−K·C, 0, …, 0) with K = 20. After clipping, the means differ by
/// exactly the sensitivity 2C/n; without clipping they differ by 21C/n. (Without clipping the
/// sensitivity is unbounded, so an auditor picks a far-out record; 20C is far enough to make
/// the violation unmistakable with 10⁴ runs.)
#[derive(Debug, Clone, PartialEq)]
struct MeanPair {
    n: usize,
    bound: f64,
}

impl MeanPair {
    const OUT_OF_BOUND: f64 = 20.0;

    fn new(n: usize, bound: f64) -> Result<Self> {
        if n == 0 {
            return Err(Error::invalid("n", "at least 1 record", 0));
        }
        crate::privacy::check_sensitivity(bound)
            .map_err(|_| Error::invalid("clip_bound", "a finite number > 0", bound))?;
        Ok(Self { n, bound })
    }

    fn sensitivity(&self) -> f64 {
        2.0 * self.bound / self.n as f64
    }

    /// The clipped (or, with the bug, unclipped) mean on one side. Only one record differs from
    /// 0, so the mean is that record over n.
    fn mean(&self, side: Side, bug: Bug) -> f64 {
        let x = match side {
            Side::D => self.bound,
            Side::DPrime => -Self::OUT_OF_BOUND * self.bound,
        };
        let x = if bug == Bug::ClippingSkipped {
            x
        } else {
            x.clamp(-self.bound, self.bound)
        };
        x / self.n as f64
    }
}

/// The Gaussian mechanism on a clipped mean of n scalars in [−C, C] (replace-one,
/// Δ = 2C/n), calibrated by one of the three Gaussian calibrations.
#[derive(Debug, Clone, PartialEq)]
pub struct GaussianMeanTarget {
    pair: MeanPair,
    claim: ApproxDp,
    noise: Gaussian,
    bug: Bug,
}

impl GaussianMeanTarget {
    /// n records, clip bound C, target (ε, δ), calibration method, planted bug.
    pub fn new(
        n: usize,
        clip_bound: f64,
        epsilon: f64,
        delta: f64,
        method: GaussianMethod,
        bug: Bug,
    ) -> Result<Self> {
        refuse_certificate_bug(bug)?;
        let pair = MeanPair::new(n, clip_bound)?;
        let s = pair.sensitivity();
        let sigma = match method {
            GaussianMethod::Classical => classical_gaussian_sigma(s, epsilon, delta)?,
            GaussianMethod::Zwb => zwb_gaussian_sigma(s, epsilon, delta)?,
            GaussianMethod::Analytic => analytic_gaussian_sigma(s, epsilon, delta)?,
        };
        let sigma = if bug == Bug::NoiseHalved {
            sigma / 2.0
        } else {
            sigma
        };
        Ok(Self {
            pair,
            claim: ApproxDp::new(epsilon, delta, Relation::ReplaceOne)?,
            noise: Gaussian::new(sigma)?,
            bug,
        })
    }
}

impl Auditable for GaussianMeanTarget {
    fn claim(&self) -> ApproxDp {
        self.claim
    }

    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64> {
        Ok(self.pair.mean(side, self.bug) + self.noise.sample(rng))
    }
}

/// The Laplace mechanism on a clipped mean of n scalars in [−C, C] (replace-one, Δ = 2C/n,
/// scale Δ/ε), pure ε-DP. With `dimension` > 1 the records are C·e₁-type vectors and the
/// release uses the ℓ2-Laplace; the statistic is the first coordinate (the direction of D − D′).
#[derive(Debug, Clone, PartialEq)]
pub struct LaplaceMeanTarget {
    pair: MeanPair,
    claim: ApproxDp,
    scale: f64,
    dimension: usize,
    buffer: Vec<f64>,
    bug: Bug,
}

impl LaplaceMeanTarget {
    /// n records, clip bound C, target ε, dimension d ≥ 1, planted bug.
    pub fn new(
        n: usize,
        clip_bound: f64,
        epsilon: f64,
        dimension: usize,
        bug: Bug,
    ) -> Result<Self> {
        refuse_certificate_bug(bug)?;
        let pair = MeanPair::new(n, clip_bound)?;
        if dimension == 0 {
            return Err(Error::invalid("dimension", "d ≥ 1", 0));
        }
        let scale = laplace_scale(pair.sensitivity(), epsilon)?;
        let scale = if bug == Bug::NoiseHalved {
            scale / 2.0
        } else {
            scale
        };
        Ok(Self {
            pair,
            claim: ApproxDp::new(epsilon, 0.0, Relation::ReplaceOne)?,
            scale,
            dimension,
            buffer: vec![0.0; dimension],
            bug,
        })
    }
}

impl Auditable for LaplaceMeanTarget {
    fn claim(&self) -> ApproxDp {
        self.claim
    }

    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64> {
        let mean = self.pair.mean(side, self.bug);
        if self.dimension == 1 {
            Ok(mean + Laplace::new(self.scale)?.sample(rng))
        } else {
            L2Laplace::new(self.scale)?.fill(rng, &mut self.buffer)?;
            Ok(mean + self.buffer[0])
        }
    }
}

/// A one-dimensional neighbouring pair: D starts with `first[0]` (if any), D′ with `first[1]`
/// (if any), and both continue with `shared` copies of `record` (x, y). The whole-algorithm
/// targets below all use pairs of this shape, the differing record first.
fn pair_1d(
    first: [Option<(f64, f64)>; 2],
    shared: usize,
    record: (f64, f64),
) -> Result<[Dataset; 2]> {
    let make = |head: Option<(f64, f64)>| -> Result<Dataset> {
        let (mut xs, mut ys): (Vec<f64>, Vec<f64>) = head.into_iter().unzip();
        xs.resize(xs.len() + shared, record.0);
        ys.resize(ys.len() + shared, record.1);
        Dataset::new(nalgebra::DMatrix::from_row_slice(1, xs.len(), &xs), ys)
    };
    Ok([make(first[0])?, make(first[1])?])
}

/// The member of a pair that `side` names.
fn pick<T>(pair: &[T; 2], side: Side) -> &T {
    match side {
        Side::D => &pair[0],
        Side::DPrime => &pair[1],
    }
}

/// Runs `alg` to its release and returns the released first coordinate, the statistic of every
/// whole-algorithm target (the pairs are one-dimensional).
fn release_1d(alg: &mut dyn PrivateAlgorithm, objective: &Objective) -> f64 {
    while alg.step(objective).is_some() {}
    alg.current()[0]
}

/// Noisy gradient descent ([`NoisyGd`]) as a whole algorithm, on logistic regression in one
/// dimension with declared feature bound 1, released coordinate as the statistic.
///
/// The pair: n − 1 records (x = 1, y = +1) shared; the differing record is (1, +1) in D and
/// (K, −1) with K = 50 in D′. Clipped to the bound, D′'s record is (1, −1), whose gradient
/// points the other way: the largest change a record can make at w ≈ 0. Without clipping
/// ([`Bug::ClippingSkipped`]) its gradient is up to 50 times the declared bound.
pub struct NoisyGdTarget {
    calibration: Calibration,
    step_size: f64,
    radius: f64,
    data: [Arc<Dataset>; 2],
    leak: DpGdLeak,
}

impl NoisyGdTarget {
    /// n records, T steps, target (ε, δ), planted bug ([`Bug::NoiseHalved`] is not available:
    /// noisy GD keeps its σ private).
    pub fn new(n: usize, steps: usize, epsilon: f64, delta: f64, bug: Bug) -> Result<Self> {
        if n < 2 {
            return Err(Error::invalid("n", "at least 2 records", n));
        }
        if bug == Bug::NoiseHalved || bug == Bug::CertificateSkipped {
            return Err(Error::invalid(
                "bug",
                "none or clipping_skipped for noisy GD",
                format!("{bug:?}"),
            ));
        }
        let leak = if bug == Bug::ClippingSkipped {
            DpGdLeak::NoClipping
        } else {
            DpGdLeak::None
        };
        let [mut d, mut d_prime] =
            pair_1d([Some((1.0, 1.0)), Some((50.0, -1.0))], n - 1, (1.0, 1.0))?;
        leak.prepare(&mut d, 1.0);
        leak.prepare(&mut d_prime, 1.0);
        let calibration = Calibration {
            epsilon,
            delta,
            relation: Relation::ReplaceOne,
            steps,
            lipschitz: 1.0,
            n,
        };
        calibration.calibrate()?;
        Ok(Self {
            calibration,
            // η = 1 and a wide ball keep the noise from pinning the release to the boundary,
            // which would hide differences (post-processing can only help privacy, but it would
            // make the audit weak).
            step_size: 1.0,
            radius: 100.0,
            data: [Arc::new(d), Arc::new(d_prime)],
            leak,
        })
    }
}

impl Auditable for NoisyGdTarget {
    fn claim(&self) -> ApproxDp {
        ApproxDp {
            epsilon: self.calibration.epsilon,
            delta: self.calibration.delta,
            relation: self.calibration.relation,
        }
    }

    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64> {
        let objective = Objective::new(
            Arc::clone(pick(&self.data, side)),
            Box::new(Logistic),
            0.0,
            Box::new(L2Ball {
                radius: self.radius,
            }),
            1.0,
        );
        let run_rng = DpRng::seed_from_u64(rng.next_u64());
        let mut alg = NoisyGd::new(self.calibration, self.step_size, &objective, run_rng, false)?
            .with_leak(self.leak);
        Ok(release_1d(&mut alg, &objective))
    }
}

/// Output perturbation ([`OutputPerturbation`], seed 000 Algorithm 1) on a pair where the
/// sensitivity bound of Prop 2.2 is attained exactly.
///
/// The pair (d = 1, Huber loss with threshold 1, ridge λ = 0.1, ball of radius 10, feature bound 1):
/// n − 1 shared records (x = 0, y = 0), which do not depend on w; the differing record is (1, +10)
/// in D and (1, −10) in D′. Its residual stays beyond the Huber threshold, so the gradient of its
/// loss is the constant ∓1 = ∓L and w* = ±1/(nλ): ‖w*(D) − w*(D′)‖ = 2L/(λn) = Δ_F exactly.
/// α is set so that 2ρ = Δ_F/100, so the release's true ε is within 1% of the claim. With the
/// subgradient solvers (seed 000 Algorithms 2 and 3) the loss is the absolute loss (the same
/// constant tail gradient, so the same tight pair) and 2ρ = Δ_F/10, keeping Prop 3.2's
/// deterministic count (the fallback of Algorithm 3) near 10⁷.
///
/// [`Bug::CertificateSkipped`] runs the one-sample SGD base solver for 5 steps and releases its
/// point with the same noise, as if it were certified. In the ≈ 5% of runs whose 5 samples hit
/// the differing record, its first steps (η_s = 2/(λ(s+1)) = 10, 6.7, …) move the point by
/// several Δ_F, which the noise calibrated to Δ_T cannot hide.
pub struct OutputPerturbationTarget {
    settings: Settings,
    data: [Arc<Dataset>; 2],
    bug: Bug,
}

impl OutputPerturbationTarget {
    /// Steps the planted bug runs the solver for.
    pub const PLANTED_STEPS: usize = 5;
    const LAMBDA: f64 = 0.1;

    /// n ≥ 2 records, target (ε, δ) (δ = 0: ℓ2-Laplace; δ > 0: ZWB Gaussian), base solver for
    /// the correct version, planted bug ([`Bug::None`] or [`Bug::CertificateSkipped`]).
    pub fn new(n: usize, epsilon: f64, delta: f64, solver: SolverKind, bug: Bug) -> Result<Self> {
        if n < 2 {
            return Err(Error::invalid("n", "at least 2 records", n));
        }
        if !matches!(bug, Bug::None | Bug::CertificateSkipped) {
            return Err(Error::invalid(
                "bug",
                "none or certificate_skipped for output perturbation",
                format!("{bug:?}"),
            ));
        }
        let make = |y: f64| -> Result<Arc<Dataset>> {
            let mut xs = vec![0.0; n];
            let mut ys = vec![0.0; n];
            xs[0] = 1.0;
            ys[0] = y;
            Ok(Arc::new(Dataset::new(
                nalgebra::DMatrix::from_row_slice(1, n, &xs),
                ys,
            )?))
        };
        let delta_f = 2.0 / (Self::LAMBDA * n as f64);
        // The subgradient methods' deterministic counts grow as 1/α: a coarser ρ keeps them short.
        let rho = delta_f
            / if Self::non_smooth(solver) {
                20.0
            } else {
                200.0
            };
        let mut settings = Settings::new(epsilon, delta);
        settings.solver = solver;
        settings.alpha = Some(0.5 * Self::LAMBDA * rho * rho);
        let target = Self {
            settings,
            data: [make(10.0)?, make(-10.0)?],
            bug,
        };
        plan(Declared::of(&target.objective(Side::D)?)?, settings)?;
        Ok(target)
    }

    /// The subgradient solvers (seed 000 Algorithms 2 and 3) run on the absolute loss, whose tail
    /// gradient equals Huber's, so the pair stays tight (Δ_F attained); the others on Huber.
    fn non_smooth(solver: SolverKind) -> bool {
        matches!(
            solver,
            SolverKind::Subgradient | SolverKind::StochasticSubgradient
        )
    }

    fn objective(&self, side: Side) -> Result<Objective> {
        let data = match side {
            Side::D => &self.data[0],
            Side::DPrime => &self.data[1],
        };
        let glm = if Self::non_smooth(self.settings.solver) {
            Glm::absolute()
        } else {
            Glm::huber(1.0)
        };
        Objective::with_loss(
            Arc::clone(data),
            Loss::erm(glm),
            Regularizer::ridge(Self::LAMBDA),
            Box::new(L2Ball { radius: 10.0 }),
            1.0,
        )
    }

    /// The plan (Δ_F, ρ, Δ_T, noise) both sides share.
    pub fn plan(&self) -> Result<Plan> {
        plan(Declared::of(&self.objective(Side::D)?)?, self.settings)
    }
}

impl Auditable for OutputPerturbationTarget {
    fn claim(&self) -> ApproxDp {
        ApproxDp {
            epsilon: self.settings.epsilon,
            delta: self.settings.delta,
            relation: self.settings.relation,
        }
    }

    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64> {
        let objective = self.objective(side)?;
        let run_rng = DpRng::seed_from_u64(rng.next_u64());
        if self.bug == Bug::None {
            let mut alg = OutputPerturbation::new(self.settings, &objective, run_rng, false)?;
            return Ok(alg.run(&objective)[0]);
        }
        let mut run_rng = run_rng;
        let plan = plan(Declared::of(&objective)?, self.settings)?;
        let constants = CertificateConstants::of(&objective);
        let mut sgd = Sgd::new(&objective, &constants, run_rng.next_u64(), &[0.0]);
        for _ in 0..Self::PLANTED_STEPS {
            sgd.iterate(&objective);
        }
        let mut z = [0.0];
        match plan.noise {
            NoiseLaw::L2Laplace { scale } => L2Laplace::new(scale)?.fill(&mut run_rng, &mut z)?,
            NoiseLaw::Gaussian { sigma, .. } => fill_gaussian(&mut run_rng, sigma, &mut z),
        }
        Ok(sgd.current()[0] + z[0])
    }
}

/// The exponential mechanism on a grid ([`GridExponential`], seed 000 Algorithm 9) on the pair of
/// issue 12, released point as the statistic.
///
/// The pair (d = 1, absolute loss, no ridge, ball of radius 2, feature bound 1, 41 grid points):
/// n − 1 shared records (x = 1, y = 1.5); the differing record is (1, 1.5) in D and (1, 10¹⁸) in
/// D′. The target is not clipped (the datasets are built directly), so the pair tests the scores
/// alone: scored by F values, F on D′ is constant to the last bit (the huge record absorbs the
/// others), the selection is uniform there and concentrated near 1.5 on D, far beyond e^ε. The
/// mechanism scores by per-record differences ([`Objective::rise`]) and must pass.
/// [`ExponentialGridTarget::objective`] and [`ExponentialGridTarget::settings`] let a test plant
/// the old scoring on the same pair.
pub struct ExponentialGridTarget {
    settings: GridSettings,
    data: [Arc<Dataset>; 2],
}

impl ExponentialGridTarget {
    /// The differing record's target in D′.
    pub const HUGE_LABEL: f64 = 1e18;

    /// n ≥ 2 records, pure ε.
    pub fn new(n: usize, epsilon: f64) -> Result<Self> {
        if n < 2 {
            return Err(Error::invalid("n", "at least 2 records", n));
        }
        let [d, d_prime] = pair_1d(
            [Some((1.0, 1.5)), Some((1.0, Self::HUGE_LABEL))],
            n - 1,
            (1.0, 1.5),
        )?;
        let target = Self {
            settings: GridSettings {
                epsilon,
                resolution: 41,
            },
            data: [Arc::new(d), Arc::new(d_prime)],
        };
        target.objective(Side::D)?;
        Ok(target)
    }

    /// The grid mechanism's settings (ε, resolution).
    pub fn settings(&self) -> GridSettings {
        self.settings
    }

    /// The objective on `side`'s dataset.
    pub fn objective(&self, side: Side) -> Result<Objective> {
        Objective::with_loss(
            Arc::clone(pick(&self.data, side)),
            Loss::erm(Glm::absolute()),
            Regularizer::default(),
            Box::new(L2Ball { radius: 2.0 }),
            1.0,
        )
    }
}

impl Auditable for ExponentialGridTarget {
    fn claim(&self) -> ApproxDp {
        ApproxDp {
            epsilon: self.settings.epsilon,
            delta: 0.0,
            relation: Relation::ReplaceOne,
        }
    }

    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64> {
        let objective = self.objective(side)?;
        let run_rng = DpRng::seed_from_u64(rng.next_u64());
        let mut alg = GridExponential::new(self.settings, &objective, run_rng, false)?;
        Ok(release_1d(&mut alg, &objective))
    }
}

/// DP-SGD ([`DpSgd`]) as a whole algorithm under **add/remove**, on logistic regression in one
/// dimension, released coordinate as the statistic.
///
/// The pair: D has n − 1 records with x = 0 (their gradients are 0, so they add no sampling
/// variance); D′ = D plus the canary (x = 50, y = −1), whose per-sample gradient at |w| ≤ 0.02
/// has norm ≈ 25 and is clipped to C = 1. So each step is exactly the Poisson-subsampled
/// Gaussian on a sensitivity-C query: the worst case the accountant is tight for. Without
/// clipping ([`Bug::ClippingSkipped`], i.e. [`DpSgdLeak::NoClipping`]) the canary moves the sum by
/// ≈ 25C.
pub struct DpSgdTarget {
    calibration: DpSgdCalibration,
    config: DpSgdConfig,
    data: [Arc<Dataset>; 2],
}

impl DpSgdTarget {
    /// n records in D′ (n − 1 in D), expected batch b (q = b/n), T steps, target (ε, δ), bug.
    pub fn new(
        n: usize,
        batch: usize,
        steps: usize,
        epsilon: f64,
        delta: f64,
        bug: Bug,
    ) -> Result<Self> {
        if n < 2 {
            return Err(Error::invalid("n", "at least 2 records", n));
        }
        if bug == Bug::NoiseHalved {
            return Err(Error::invalid(
                "bug",
                "none or clipping_skipped for DP-SGD",
                "noise_halved",
            ));
        }
        let mut config = DpSgdConfig::for_dataset(n, batch, 1.0, epsilon, delta, 1.0, 1e-3)?;
        config.steps = steps;
        if bug == Bug::ClippingSkipped {
            config.leak = DpSgdLeak::NoClipping;
        }
        let calibration = DpSgdCalibration::new(config)?;
        let [d, d_prime] = pair_1d([None, Some((50.0, -1.0))], n - 1, (0.0, 1.0))?;
        Ok(Self {
            calibration,
            config,
            data: [Arc::new(d), Arc::new(d_prime)],
        })
    }
}

impl Auditable for DpSgdTarget {
    fn claim(&self) -> ApproxDp {
        ApproxDp {
            epsilon: self.config.epsilon,
            delta: self.config.delta,
            relation: Relation::AddRemove,
        }
    }

    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64> {
        // A wide ball: the projection never binds, so nothing hides the difference.
        let objective = Objective::new(
            Arc::clone(pick(&self.data, side)),
            Box::new(Logistic),
            0.0,
            Box::new(L2Ball { radius: 100.0 }),
            50.0,
        );
        let run_rng = DpRng::seed_from_u64(rng.next_u64());
        let mut alg =
            DpSgd::from_calibration(self.calibration.clone(), &objective, run_rng, false)?;
        Ok(release_1d(&mut alg, &objective))
    }
}

/// Certified DP-SVRG ([`DpSvrg`]) as a whole algorithm under **add/remove** with public n, on
/// ridge logistic regression (λ = 0.1) in one dimension, released coordinate as the statistic.
///
/// The pair: D has n − 1 records with x = 0 (zero gradients); D′ adds the canary (x = 1 after
/// clipping to the declared bound 1, y = −1), which moves both the sampled differences and the
/// re-released anchor. [`Bug::ClippingSkipped`] leaves the canary at x = 50: its gradient is then
/// up to 50 G and the calibrated noise does not cover it.
///
/// [`DpSvrgTarget::svrg_bb`] runs DP-SVRG++ (no ridge) on the same pair to audit the SVRG-BB
/// leak ([`SvrgLeak::BbStepFromExactGradients`], digest P6).
pub struct DpSvrgTarget {
    calibration: DpSvrgCalibration,
    config: DpSvrgConfig,
    data: [Arc<Dataset>; 2],
    /// Ridge λ₂ of the objective.
    l2: f64,
}

impl DpSvrgTarget {
    /// Declared n (D′ has n records, D has n − 1), expected batch b, epochs T of length m,
    /// target (ε, δ), bug.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        n: usize,
        batch: usize,
        epochs: usize,
        epoch_length: usize,
        epsilon: f64,
        delta: f64,
        bug: Bug,
    ) -> Result<Self> {
        if n < 2 {
            return Err(Error::invalid("n", "at least 2 records", n));
        }
        if bug == Bug::NoiseHalved {
            return Err(Error::invalid(
                "bug",
                "none or clipping_skipped for DP-SVRG",
                "noise_halved",
            ));
        }
        let config = DpSvrgConfig {
            variant: SvrgVariant::Svrg,
            noise: SvrgNoise::Certified,
            epsilon,
            delta,
            lipschitz: 1.0,
            n,
            epochs,
            epoch_length,
            step_size: 1.0,
            batch_size: batch,
            leak: SvrgLeak::None,
        };
        let calibration = DpSvrgCalibration::new(config)?;
        let canary_x = if bug == Bug::ClippingSkipped {
            50.0
        } else {
            1.0
        };
        let [d, d_prime] = pair_1d([None, Some((canary_x, -1.0))], n - 1, (0.0, 1.0))?;
        Ok(Self {
            calibration,
            config,
            data: [Arc::new(d), Arc::new(d_prime)],
            l2: 0.1,
        })
    }

    /// The SVRG-BB audit: certified DP-SVRG++ on the same pair without ridge, declared η = 10⁻³,
    /// with or without the leak. On D every gradient is exactly 0, so the BB curvature estimate
    /// ⟨Δx̃, Δ∇F⟩ is 0, the BB step is undefined and η stays 10⁻³: the release sits within a few
    /// 10⁻³ of 0. On D′ the canary's curvature (≈ 1/(4n) near 0) makes η_BB ≈ 4n/m_s, a thousand
    /// times larger, and the same noise spreads the release over units: the step size alone tells
    /// the datasets apart. Without the leak both sides keep η = 10⁻³ (the correct mechanism).
    #[allow(clippy::too_many_arguments)]
    pub fn svrg_bb(
        n: usize,
        batch: usize,
        epochs: usize,
        epoch_length: usize,
        epsilon: f64,
        delta: f64,
        leak: SvrgLeak,
    ) -> Result<Self> {
        let mut target = Self::new(n, batch, epochs, epoch_length, epsilon, delta, Bug::None)?;
        target.config = DpSvrgConfig {
            variant: SvrgVariant::SvrgPlusPlus,
            step_size: 1e-3,
            leak,
            ..target.config
        };
        target.calibration = DpSvrgCalibration::new(target.config)?;
        target.l2 = 0.0;
        Ok(target)
    }
}

impl Auditable for DpSvrgTarget {
    fn claim(&self) -> ApproxDp {
        ApproxDp {
            epsilon: self.config.epsilon,
            delta: self.config.delta,
            relation: Relation::AddRemove,
        }
    }

    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64> {
        let objective = Objective::new(
            Arc::clone(pick(&self.data, side)),
            Box::new(Logistic),
            self.l2,
            Box::new(L2Ball { radius: 100.0 }),
            1.0,
        );
        let run_rng = DpRng::seed_from_u64(rng.next_u64());
        let mut alg =
            DpSvrg::from_calibration(self.calibration.clone(), &objective, run_rng, false)?;
        Ok(release_1d(&mut alg, &objective))
    }
}

/// DP-AccMD ([`DpAccMd`], seed 002 Algorithm 3 with the corrected coupling) as a whole
/// algorithm under replace-one, on a pair where the gradient sensitivity 2G/n is attained at
/// every point of the domain, released coordinate as the statistic.
///
/// The pair (d = 1, Huber loss with threshold 1 so G = 1 and β = 1, ball of radius 5): n − 1
/// shared records (x = 0, y = 0) with zero gradient; the differing record is (1, +10) in D and
/// (1, −10) in D′. On the ball its residual stays beyond the threshold, so its gradient is the
/// constant ∓1 and the two mean gradients differ by exactly 2/n everywhere. Both geometries run
/// on the same pair (in d = 1 the ℓ1 and ℓ2 balls coincide; the mirror maps differ).
///
/// [`Bug::ClippingSkipped`] is not available; the leak [`AccMdLeak::ExactGradientYStep`] is
/// planted through the `leak` argument. At T = 1 the leaky release is y₁ = P_C(−∇F(0)/β) =
/// ±1/n, a deterministic function of the data (REVIEW-002 §3's counterexample).
pub struct DpAccMdTarget {
    config: DpAccMdConfig,
    objectives: [Objective; 2],
}

impl DpAccMdTarget {
    /// n ≥ 2 records, T steps, target (ε, δ), geometry (ℓ2 or ℓ1 ball; its radius is set to 5),
    /// leaky toggle.
    pub fn new(
        n: usize,
        steps: usize,
        epsilon: f64,
        delta: f64,
        ball: Geometry,
        leak: AccMdLeak,
    ) -> Result<Self> {
        if n < 2 {
            return Err(Error::invalid("n", "at least 2 records", n));
        }
        const RADIUS: f64 = 5.0;
        let geometry = match ball {
            Geometry::L2 { .. } => Geometry::L2 { radius: RADIUS },
            Geometry::L1 { .. } => Geometry::L1 { radius: RADIUS },
        };
        let make = |data: Dataset| -> Result<Objective> {
            let domain: Box<dyn crate::domain::Domain> = match geometry {
                Geometry::L2 { radius } => Box::new(L2Ball { radius }),
                Geometry::L1 { radius } => Box::new(crate::domain::L1Ball { radius }),
            };
            Objective::with_loss(
                Arc::new(data),
                Loss::erm(Glm::huber(1.0)),
                Regularizer::ridge(0.0),
                domain,
                1.0,
            )
        };
        let [d, d_prime] = pair_1d([Some((1.0, 10.0)), Some((1.0, -10.0))], n - 1, (0.0, 0.0))?;
        let objectives = [make(d)?, make(d_prime)?];
        let config = DpAccMdConfig {
            epsilon,
            delta,
            relation: Relation::ReplaceOne,
            steps,
            lipschitz: objectives[0].lipschitz(),
            smoothness: objectives[0].smoothness(),
            n,
            geometry,
            leak,
        };
        config.calibrate()?;
        Ok(Self { config, objectives })
    }
}

impl Auditable for DpAccMdTarget {
    fn claim(&self) -> ApproxDp {
        ApproxDp {
            epsilon: self.config.epsilon,
            delta: self.config.delta,
            relation: self.config.relation,
        }
    }

    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64> {
        let objective = pick(&self.objectives, side);
        let run_rng = DpRng::seed_from_u64(rng.next_u64());
        let mut alg = DpAccMd::new(self.config, objective, run_rng, false)?;
        Ok(release_1d(&mut alg, objective))
    }
}

/// Objective perturbation ([`ObjectivePerturbation`]) as a whole algorithm under replace-one, on
/// ridge logistic regression (Λ = 0.1, unconstrained) in one dimension, released coordinate as
/// the statistic. The pair: n − 1 records with x = 0 shared; the differing record is
/// (x = 1, y = +1) in D and (x = 1, y = −1) in D′ (features at the declared bound 1).
/// [`Bug::NoiseHalved`] halves the drawn noise vector.
pub struct ObjectivePerturbationTarget {
    config: ObjectivePerturbationConfig,
    bug: Bug,
    objectives: [Objective; 2],
}

impl ObjectivePerturbationTarget {
    /// n records, target ε, planted bug ([`Bug::ClippingSkipped`] is not available).
    pub fn new(n: usize, epsilon: f64, bug: Bug) -> Result<Self> {
        if n < 2 {
            return Err(Error::invalid("n", "at least 2 records", n));
        }
        if bug == Bug::ClippingSkipped {
            return Err(Error::invalid(
                "bug",
                "none or noise_halved for objective perturbation",
                "clipping_skipped",
            ));
        }
        let make = |data: Dataset| -> Result<Objective> {
            Objective::with_loss(
                Arc::new(data),
                Loss::erm(Glm::Logistic),
                Regularizer::ridge(0.1),
                Box::new(crate::domain::Unconstrained),
                1.0,
            )
        };
        let [d, d_prime] = pair_1d([Some((1.0, 1.0)), Some((1.0, -1.0))], n - 1, (0.0, 1.0))?;
        let config = ObjectivePerturbationConfig {
            epsilon,
            tolerance: Some(1e-9),
            max_iters: 10_000,
        };
        Ok(Self {
            config,
            bug,
            objectives: [make(d)?, make(d_prime)?],
        })
    }
}

impl Auditable for ObjectivePerturbationTarget {
    fn claim(&self) -> ApproxDp {
        ApproxDp {
            epsilon: self.config.epsilon,
            delta: 0.0,
            relation: Relation::ReplaceOne,
        }
    }

    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64> {
        let objective = pick(&self.objectives, side);
        let run_rng = DpRng::seed_from_u64(rng.next_u64());
        let mut alg = ObjectivePerturbation::new(self.config, objective, run_rng, false)?;
        if self.bug == Bug::NoiseHalved {
            alg.scale_noise_for_audit(0.5);
        }
        Ok(release_1d(&mut alg, objective))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Stream, seeded};

    #[test]
    fn identical_samples_give_no_evidence() {
        let mut rng = seeded(1, Stream::Audit);
        let g = Gaussian::new(1.0).unwrap();
        let a: Vec<f64> = (0..2000).map(|_| g.sample(&mut rng)).collect();
        let claim = ApproxDp::new(0.1, 0.0, Relation::ReplaceOne).unwrap();
        let r = audit_samples(&a, &a, claim, 1e-3).unwrap();
        assert_eq!(r.epsilon_lower, 0.0);
        assert!(!r.violation);
    }

    #[test]
    fn disjoint_samples_give_a_large_bound() {
        // All of D's runs above all of D′'s: with 500 runs per half, CP gives p̲ ≈ 0.986 and
        // p̄ ≈ 0.0152 at α/2 = 5e-4, so ε̂ ≈ ln(65) ≈ 4.2.
        let a: Vec<f64> = (0..1000).map(|i| 10.0 + i as f64).collect();
        let b: Vec<f64> = (0..1000).map(|i| -(i as f64)).collect();
        let claim = ApproxDp::new(1.0, 0.0, Relation::ReplaceOne).unwrap();
        let r = audit_samples(&a, &b, claim, 1e-3).unwrap();
        assert!(r.violation && r.epsilon_lower > 4.0, "{r:?}");
    }

    #[test]
    fn invalid_audits_are_refused() {
        let claim = ApproxDp::new(1.0, 0.0, Relation::ReplaceOne).unwrap();
        assert!(audit_samples(&[0.0; 30], &[0.0; 31], claim, 1e-3).is_err());
        assert!(audit_samples(&[0.0; 10], &[0.0; 10], claim, 1e-3).is_err());
        assert!(audit_samples(&[0.0; 30], &[0.0; 30], claim, 0.0).is_err());
        assert!(audit_samples(&[f64::NAN; 30], &[0.0; 30], claim, 0.1).is_err());
        assert!(NoisyGdTarget::new(10, 3, 1.0, 1e-5, Bug::NoiseHalved).is_err());
        assert!(LaplaceMeanTarget::new(0, 1.0, 1.0, 1, Bug::None).is_err());
        assert!(LaplaceMeanTarget::new(10, 1.0, 1.0, 1, Bug::CertificateSkipped).is_err());
        assert!(NoisyGdTarget::new(10, 3, 1.0, 1e-5, Bug::CertificateSkipped).is_err());
        assert!(
            OutputPerturbationTarget::new(10, 1.0, 0.0, SolverKind::Gd, Bug::NoiseHalved).is_err()
        );
        assert!(OutputPerturbationTarget::new(1, 1.0, 0.0, SolverKind::Gd, Bug::None).is_err());
        assert!(
            GaussianMeanTarget::new(10, 1.0, 2.0, 1e-5, GaussianMethod::Classical, Bug::None)
                .is_err()
        );
    }
}
