//! Neighbouring datasets side by side, for teaching: the page's chosen mechanism run many times
//! on a toy pair (D, D′) that differ in one record, and what the guarantee says about the two
//! clouds of releases.
//!
//! The runs are the family's own ([`FamilyTarget`]: the plan's guarantee,
//! [`Planned::build`](crate::algo::registry::Planned::build) on the problem the session builds),
//! on the one-dimensional pairs of the audits with the differing record chosen by the student
//! ([`Differing`]). Everything here is a non-private
//! diagnostic: thousands of releases of one toy pair, drawn to show a distribution, not a
//! private release of anyone's data.
//!
//! # What is computed
//! - The releases' first coordinate on each side. The pairs are one-dimensional, so this is the
//!   direction D − D′ separates them along.
//! - The privacy loss of each release o drawn on D, L(o) = ln p_D(o)/p_D′(o), where p_D and p_D′
//!   are the laws **fitted** to the two clouds: the plan's noise shape (Gaussian, or Laplace for
//!   the ℓ2-Laplace in one dimension) with the centres and the spread measured from the draws
//!   (pooled). It is set against the worst case the plan's noise law allows: for Gaussian noise,
//!   composed over its draws, L ~ N(μ, 2μ) with μ = Σ Δ²/(2σ²) (Dong, Roth & Su 2022, "Gaussian
//!   Differential Privacy"); for a Laplace release of scale b and sensitivity Δ, with ε = Δ/b, L
//!   has atoms ε (probability ½) and −ε (½e^{−ε}) and the density ¼e^{−(ε−L)/2} between.
//! - The privacy profile ε(δ): for a privacy-loss law, δ(ε) = E[(1 − e^{ε−L})₊] (the hockey-stick
//!   divergence of D over D′), inverted. The worst-case curve is the plan's noise law's exact
//!   profile, which its (ε, δ) statement lies on or above; the empirical one uses the fitted L.
//!   The Clopper–Pearson audit of the same draws ([`audit_samples`]) marks a lower bound at the
//!   claimed δ.
//!
//! The view exists for DP-GD and output perturbation (their pairs attain the sensitivity and
//! their noise laws have a privacy loss in closed form). Other families are refused with a
//! reason ([`neighbour_target`]).

use rand::RngExt;
use serde::{Deserialize, Serialize};

use super::noisy_gd::dp_gd_config;
use super::output_perturbation::output_perturbation_config;
use super::pairs::{base_config, pair_1d};
use super::sampler::PairDraws;
use super::{AuditReport, Auditable, FamilyTarget, audit_samples};
use crate::algo::{Draws, NoiseShape};
use crate::config::{AlgorithmKind, RunConfig};
use crate::error::{Error, Result};
use crate::loss::Glm;
use crate::privacy::ApproxDp;
use crate::privacy::calibration::gaussian_delta;
use crate::rng::{DpRng, Stream, seeded};

/// Most steps of an iterative family the view runs (the page's `steps`, capped here).
pub const MAX_STEPS: usize = 50;
/// Fewest and most runs per side.
pub const RUNS: std::ops::RangeInclusive<usize> = 200..=20_000;
/// α of the audit of the draws.
pub const ALPHA: f64 = 1e-3;
/// How far beyond the declared feature bound the outlier sits (the session clips it back).
const OUTLIER: f64 = 50.0;

/// Which record D′ has in place of D's first record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Differing {
    /// The feature moved to −50 times the declared bound: clipped to −B, the worst case.
    Outlier,
    /// A record drawn uniformly within the declared bounds (seeded by the page's seed).
    Random,
    /// The same feature with its label flipped.
    LabelFlip,
}

/// The families the view runs, and why the others are not offered (the refusal's words).
pub const UNAVAILABLE: &str = "pick DP-GD or output perturbation for the neighbouring view: \
     they have a toy pair that attains their sensitivity and noise whose privacy loss has a \
     closed form. Subsampled noise, sampling mechanisms and games would each need their own; \
     audit the others in the audit tab";

/// A toy pair: n records, n − 1 copies of `shared` and D's `first` record, in one dimension under
/// the Huber loss (threshold 1, declared feature bound 1, label bound 10, so G = 1). D's record
/// (1, +10) has its residual beyond the threshold wherever |w| < 9, so its gradient is the
/// constant −1; D′'s worst cases (the outlier clipped to (−1, 10), the flip (1, −10)) have the
/// constant gradient +1. The mean gradients differ by exactly 2G/n, the sensitivity, everywhere.
struct Toy {
    n: usize,
    shared: (f64, f64),
}

const FIRST: (f64, f64) = (1.0, 10.0);
const LABEL_BOUND: f64 = 10.0;

/// The toy of each family the view runs.
fn toy(algorithm: AlgorithmKind) -> Result<Toy> {
    match algorithm {
        // Shared records (0, 0) with zero gradient: DP-GD's releases differ by the sum of its
        // steps' differences and stay well inside |w| < 9 (n = 100 keeps the noise small), so
        // its privacy loss is close to the worst case N(μ, 2μ).
        AlgorithmKind::NoisyGd => Ok(Toy {
            n: 100,
            shared: (0.0, 0.0),
        }),
        // Shared records (0.5, 10), whose gradient is the constant −0.5 too: F is linear plus
        // the ridge λ/2 w², so the minimisers (9·0.5 ± 1)/(nλ) = 5.5 and 3.5 (n = 10, λ = 0.1)
        // sit exactly Δ_F = 2 apart, and both lie beyond the certified accuracy ρ ≈ 0.7 Δ_F of
        // the page's default α from the solver's start 0, so the certified points differ too.
        // (With a pair centred at 0, as in the audit's, the solver may certify at its start on
        // both sides and the two clouds coincide.)
        AlgorithmKind::OutputPerturbation => Ok(Toy {
            n: 10,
            shared: (0.5, 10.0),
        }),
        _ => Err(Error::invalid("algorithm", UNAVAILABLE, "")),
    }
}

/// Records in each dataset of `algorithm`'s toy pair (100 for DP-GD, 10 for output
/// perturbation; 0 for a family the view does not run).
pub fn toy_n(algorithm: AlgorithmKind) -> usize {
    toy(algorithm).map_or(0, |t| t.n)
}

/// The page's `config` as the view runs it: its family, ε, δ, steps (at most [`MAX_STEPS`]),
/// base solver, Gaussian calibration and demonstration switch, on the toy pair of [`toy_n`]
/// one-dimensional records (replace-one) whose first record is replaced as `differing` says.
/// DP-GD runs with the settings of its audit ([`super::dp_gd_target`]: η = 1, radius 100, ridge
/// 0.01) on the Huber loss, output perturbation with those of its own
/// ([`super::output_perturbation_target`]).
/// Errors name the control at fault (an algorithm the view does not run names `algorithm`).
pub fn neighbour_target(config: &RunConfig, differing: Differing) -> Result<FamilyTarget> {
    let toy = toy(config.algorithm)?;
    let n = toy.n;
    let base = RunConfig {
        steps: config.steps.min(MAX_STEPS),
        leak: config.leak,
        solver: config.solver,
        gaussian: config.gaussian,
        seed: config.seed,
        ..base_config(n, config.epsilon, config.delta)
    };
    let config = match config.algorithm {
        AlgorithmKind::NoisyGd => RunConfig {
            loss: Glm::huber(1.0),
            ..dp_gd_config(base)
        },
        _ => output_perturbation_config(base),
    };
    let (x, y) = FIRST;
    let other = match differing {
        Differing::Outlier => (-OUTLIER * x, y),
        Differing::LabelFlip => (x, -y),
        Differing::Random => {
            let mut rng = seeded(config.seed, Stream::Data);
            (
                rng.random_range(-1.0..=1.0),
                rng.random_range(-LABEL_BOUND..=LABEL_BOUND),
            )
        }
    };
    let pair = pair_1d([Some(FIRST), Some(other)], n, toy.shared)?;
    FamilyTarget::new(config, pair)
}

/// The worst-case privacy-loss law of a plan's noise.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LossLaw {
    /// Gaussian noise, composed: L ~ N(μ, 2μ).
    Gaussian {
        /// μ = Σ Δ²/(2σ²) over every draw.
        mu: f64,
    },
    /// One Laplace release in one dimension with Δ/b = ε.
    Laplace {
        /// ε = Δ/b: the atoms of L sit at ±ε.
        epsilon: f64,
    },
}

impl LossLaw {
    /// The law of a plan's noise (`draws`), when it has one of the two closed forms.
    pub fn of(draws: &[Draws]) -> Result<Self> {
        let gaussian: Option<f64> = draws.iter().try_fold(0.0, |mu, d| match d.noise {
            NoiseShape::Gaussian { sigma, .. } => {
                Some(mu + d.count as f64 * (d.sensitivity / sigma).powi(2) / 2.0)
            }
            _ => None,
        });
        match (gaussian, draws) {
            (Some(mu), _) if mu > 0.0 => Ok(Self::Gaussian { mu }),
            (
                _,
                [
                    Draws {
                        noise: NoiseShape::L2Laplace { scale, d: 1 },
                        count: 1,
                        sensitivity,
                    },
                ],
            ) => Ok(Self::Laplace {
                epsilon: sensitivity / scale,
            }),
            _ => Err(Error::invalid("algorithm", UNAVAILABLE, "")),
        }
    }

    /// δ(ε) = E[(1 − e^{ε−L})₊] of this law (D over D′), for ε ≥ 0.
    pub fn delta(self, epsilon: f64) -> f64 {
        match self {
            // N(μ, 2μ) is the loss of one Gaussian release with Δ/σ = √(2μ).
            Self::Gaussian { mu } => {
                gaussian_delta(epsilon, 1.0 / (2.0 * mu).sqrt(), 1.0).unwrap_or(1.0)
            }
            // The atom at ε gives ½(1 − e^{ε′−ε}), the density between ½(1 − e^{(ε′−ε)/2})².
            Self::Laplace { epsilon: e } if epsilon < e => {
                let x = libm::exp((epsilon - e) / 2.0);
                0.5 * (1.0 - x * x) + 0.5 * (1.0 - x) * (1.0 - x)
            }
            Self::Laplace { .. } => 0.0,
        }
    }

    /// The density of L's continuous part at `loss` (the Laplace law's atoms are apart:
    /// [`LossLaw::atoms`]).
    pub fn density(self, loss: f64) -> f64 {
        match self {
            Self::Gaussian { mu } => {
                let var = 2.0 * mu;
                libm::exp(-(loss - mu).powi(2) / (2.0 * var))
                    / (2.0 * std::f64::consts::PI * var).sqrt()
            }
            Self::Laplace { epsilon } if loss.abs() < epsilon => {
                0.25 * libm::exp(-(epsilon - loss) / 2.0)
            }
            Self::Laplace { .. } => 0.0,
        }
    }

    /// The atoms of L: (value, probability).
    pub fn atoms(self) -> Vec<(f64, f64)> {
        match self {
            Self::Gaussian { .. } => Vec::new(),
            Self::Laplace { epsilon } => {
                vec![(epsilon, 0.5), (-epsilon, 0.5 * libm::exp(-epsilon))]
            }
        }
    }
}

/// The ε at which a decreasing δ(ε) falls to `delta` (0 if it is already below), by bisection.
fn epsilon_at(delta_of: impl Fn(f64) -> f64, delta: f64) -> f64 {
    if delta_of(0.0) <= delta {
        return 0.0;
    }
    let mut hi = 1.0;
    while delta_of(hi) > delta && hi < 1e4 {
        hi *= 2.0;
    }
    let mut lo = 0.0;
    for _ in 0..80 {
        let mid = 0.5 * (lo + hi);
        if delta_of(mid) > delta {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// The median of a sample (of a sorted copy).
fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        0.5 * (v[m - 1] + v[m])
    }
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// The privacy loss ln p_D(o)/p_D′(o) of each `o` in `on_d` when p_D and p_D′ are `law`'s shape
/// centred at `centres` (D, D′) with spread `spread` (the Gaussian's variance, the Laplace's
/// scale b).
pub fn losses(law: LossLaw, on_d: &[f64], centres: [f64; 2], spread: f64) -> Vec<f64> {
    let [m, m2] = centres;
    match law {
        LossLaw::Gaussian { .. } => on_d
            .iter()
            .map(|o| ((o - m2).powi(2) - (o - m).powi(2)) / (2.0 * spread))
            .collect(),
        LossLaw::Laplace { .. } => on_d
            .iter()
            .map(|o| ((o - m2).abs() - (o - m).abs()) / spread)
            .collect(),
    }
}

/// The fitted privacy loss of each draw in `on_d`: [`losses`] with the centres (means, or
/// medians for the Laplace) and the pooled spread measured from both samples.
pub fn fitted_losses(law: LossLaw, on_d: &[f64], on_d_prime: &[f64]) -> Vec<f64> {
    let pooled = (on_d.len() + on_d_prime.len()) as f64;
    match law {
        LossLaw::Gaussian { .. } => {
            let (m, m2) = (mean(on_d), mean(on_d_prime));
            let ss: f64 = on_d.iter().map(|x| (x - m).powi(2)).sum::<f64>()
                + on_d_prime.iter().map(|x| (x - m2).powi(2)).sum::<f64>();
            losses(law, on_d, [m, m2], ss / (pooled - 2.0))
        }
        LossLaw::Laplace { .. } => {
            let (m, m2) = (median(on_d), median(on_d_prime));
            let b = (on_d.iter().map(|x| (x - m).abs()).sum::<f64>()
                + on_d_prime.iter().map(|x| (x - m2).abs()).sum::<f64>())
                / pooled;
            losses(law, on_d, [m, m2], b)
        }
    }
}

/// Counts of `values` in `bins` equal bins over [lo, hi] (values outside are left out).
fn histogram(values: &[f64], lo: f64, hi: f64, bins: usize) -> Vec<u32> {
    let mut counts = vec![0; bins];
    let width = (hi - lo) / bins as f64;
    for &v in values {
        if v >= lo && v <= hi && width > 0.0 {
            let i = (((v - lo) / width) as usize).min(bins - 1);
            counts[i] += 1;
        }
    }
    counts
}

/// Bins of the histograms the view draws.
pub const BINS: usize = 40;

/// Two overlaid histograms on shared bins.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Overlaid {
    /// Left edge of the first bin.
    pub lo: f64,
    /// Right edge of the last bin.
    pub hi: f64,
    /// Counts of the draws on D.
    pub on_d: Vec<u32>,
    /// Counts of the draws on D′.
    pub on_d_prime: Vec<u32>,
}

/// The privacy-loss histogram against the worst case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LossView {
    /// Left edge of the first bin.
    pub lo: f64,
    /// Right edge of the last bin.
    pub hi: f64,
    /// Counts of the fitted losses of the draws on D.
    pub counts: Vec<u32>,
    /// Draws whose loss fell outside [lo, hi].
    pub outside: usize,
    /// Points (L, density) of the worst-case law's continuous part over [lo, hi].
    pub theory: Vec<(f64, f64)>,
    /// The worst-case law's atoms (L, probability).
    pub atoms: Vec<(f64, f64)>,
    /// Mean of the fitted losses (for Gaussian noise, μ̂; compare with the law's μ).
    pub mean: f64,
}

/// The ε(δ) curves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProfileView {
    /// δ values, log-spaced.
    pub delta: Vec<f64>,
    /// ε(δ) of the plan's noise law on a worst-case pair.
    pub worst_case: Vec<f64>,
    /// ε(δ) of the fitted losses (NaN where δ < 10/runs: too few draws to say).
    pub empirical: Vec<f64>,
}

/// Everything the neighbouring view draws, from the draws so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NeighbourView {
    /// The plan's statement.
    pub claim: ApproxDp,
    /// The plan's noise law's worst-case privacy loss.
    pub law: LossLaw,
    /// Runs per side.
    pub runs: usize,
    /// Mean release on D and on D′.
    pub means: [f64; 2],
    /// The two clouds of releases.
    pub releases: Overlaid,
    /// The privacy loss of the draws on D.
    pub loss: LossView,
    /// ε(δ) promised and measured.
    pub profile: ProfileView,
    /// The Clopper–Pearson audit of the same draws (a lower bound on ε at the claimed δ).
    pub audit: AuditReport,
    /// Why the run is NOT private, if it is a demonstration (empty otherwise).
    pub leaks: Vec<String>,
}

/// The view of `draws` (at least 20 per side) under `law` and `claim`.
pub fn view(
    draws: &PairDraws,
    law: LossLaw,
    claim: ApproxDp,
    leaks: Vec<String>,
) -> Result<NeighbourView> {
    let (d, dp) = (&draws.on_d, &draws.on_d_prime);
    let audit = audit_samples(d, dp, claim, ALPHA)?;
    let (lo, hi) = d
        .iter()
        .chain(dp)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else {
        (lo - 0.5, hi + 0.5)
    };
    let releases = Overlaid {
        lo,
        hi,
        on_d: histogram(d, lo, hi, BINS),
        on_d_prime: histogram(dp, lo, hi, BINS),
    };
    let losses = fitted_losses(law, d, dp);
    let spread = match law {
        LossLaw::Gaussian { mu } => 4.0 * (2.0 * mu).sqrt(),
        LossLaw::Laplace { epsilon } => 1.25 * epsilon,
    };
    let centre = match law {
        LossLaw::Gaussian { mu } => mu,
        LossLaw::Laplace { .. } => 0.0,
    };
    let fitted_mean = mean(&losses);
    // The window covers the worst case's mass and the fitted losses' centre (a leaky run's
    // losses can sit far beyond the worst case: that is what it shows).
    let (l_lo, l_hi) = (
        (centre - spread).min(fitted_mean - spread),
        (centre + spread).max(fitted_mean + spread),
    );
    let counts = histogram(&losses, l_lo, l_hi, BINS);
    let outside = losses.len() - counts.iter().map(|&c| c as usize).sum::<usize>();
    let theory = (0..=200)
        .map(|i| {
            let l = l_lo + (l_hi - l_lo) * i as f64 / 200.0;
            (l, law.density(l))
        })
        .collect();
    let runs = d.len();
    let delta: Vec<f64> = (0..=40)
        .map(|i| 10f64.powf(-8.0 + 7.7 * i as f64 / 40.0))
        .collect();
    let empirical_delta = |e: f64| {
        losses
            .iter()
            .map(|l| (1.0 - libm::exp(e - l)).max(0.0))
            .sum::<f64>()
            / runs as f64
    };
    let profile = ProfileView {
        worst_case: delta
            .iter()
            .map(|&x| epsilon_at(|e| law.delta(e), x))
            .collect(),
        empirical: delta
            .iter()
            .map(|&x| {
                if x * (runs as f64) < 10.0 {
                    f64::NAN
                } else {
                    epsilon_at(empirical_delta, x)
                }
            })
            .collect(),
        delta,
    };
    Ok(NeighbourView {
        claim,
        law,
        runs,
        means: [mean(d), mean(dp)],
        releases,
        loss: LossView {
            lo: l_lo,
            hi: l_hi,
            counts,
            outside,
            theory,
            atoms: law.atoms(),
            mean: fitted_mean,
        },
        profile,
        audit,
        leaks,
    })
}

/// A neighbouring view in progress: the target, its draws so far and their generator, so the
/// page's worker can draw a chunk at a time and stop between chunks.
pub struct NeighbourJob {
    target: FamilyTarget,
    law: LossLaw,
    leaks: Vec<String>,
    draws: PairDraws,
    rng: DpRng,
    runs: usize,
}

impl NeighbourJob {
    /// The view of the page's `config` on the pair `differing` chooses, with `runs` per side
    /// (within [`RUNS`]), drawn from the audit stream of the config's seed.
    pub fn new(config: &RunConfig, differing: Differing, runs: usize) -> Result<Self> {
        if !RUNS.contains(&runs) {
            return Err(Error::invalid(
                "neighbour_runs",
                format!("{} to {} runs per side", RUNS.start(), RUNS.end()),
                runs,
            ));
        }
        let target = neighbour_target(config, differing)?;
        let preview = &target.plan().preview;
        let law = LossLaw::of(&preview.draws)?;
        let leaks = preview.leaks.clone();
        Ok(Self {
            law,
            leaks,
            draws: PairDraws::with_capacity(runs),
            rng: seeded(config.seed, Stream::Audit),
            target,
            runs,
        })
    }

    /// Draws up to `pairs` more runs per side; returns the runs per side drawn so far.
    pub fn advance(&mut self, pairs: usize) -> Result<usize> {
        let pairs = pairs.min(self.runs - self.draws.len());
        self.draws.draw(&mut self.target, &mut self.rng, pairs)?;
        Ok(self.draws.len())
    }

    /// Runs per side asked for.
    pub fn runs(&self) -> usize {
        self.runs
    }

    /// Whether every run is drawn.
    pub fn is_done(&self) -> bool {
        self.draws.len() >= self.runs
    }

    /// The view of the draws so far (at least 20 per side).
    pub fn view(&self) -> Result<NeighbourView> {
        view(
            &self.draws,
            self.law,
            self.target.claim(),
            self.leaks.clone(),
        )
    }
}
