//! The attacker's view: what someone who sees a release learns about one record, next to what the
//! stated guarantee allows. For teaching; everything here is a non-private diagnostic (thousands
//! of releases of one toy pair, not a private release of anyone's data).
//!
//! # What is computed
//! For the page's algorithm, a neighbouring pair (D, D′) is built from the page's settings, scaled
//! down ([`attack_target`]: the audits' worst-case pairs of this module's siblings, at the page's
//! ε, δ, pitfall switch and, capped, its steps), and the family runs on each side many times
//! through the page's own path ([`super::FamilyTarget`], [`super::GameTarget`]: the plan's
//! guarantee, [`Planned::build`](crate::algo::registry::Planned::build) on the problem the session
//! builds). Each release is reduced to a score s ([`Score`]): its projection onto the direction
//! the differing record moves it (the first coordinate of a one-dimensional pair; a game's
//! planted direction), which for a deterministic point plus one noise draw is the
//! likelihood-ratio test. The attacker names one side "in" and says *in* when the score is
//! beyond a threshold: four one-sided tests (D or D′ called "in", the upper or the lower tail;
//! a record added in D′ and a release spread wider on one side need D′ and either tail), of
//! which the view shows the one with the largest TPR at FPR 1 %, each checked at α/4 below (a
//! union over the four, so the choice from the data keeps the check's level α).
//!
//! - **The empirical ROC**: for every threshold t at a draw on D′, FPR = #{s′ > t}/N over the
//!   draws on D′, TPR = #{s > t}/N over those on D.
//! - **The allowed curve**: the most any test can reach at each FPR under the stated guarantee.
//!   (ε, δ)-DP bounds every test (Kairouz, Oh & Viswanath 2015; Dong, Roth & Su 2022, f-DP) by
//!   TPR ≤ min(1, e^ε·FPR + δ, 1 − e^{−ε}(1 − δ − FPR)) (the second from the complement
//!   region). Where every noise draw the plan states is Gaussian, the run is also μ-GDP with
//!   μ² = Σ (Δ/σ)² over the draws (Dong, Roth & Su 2022, Corollary 3.3, adaptive composition),
//!   so TPR ≤ 1 − Φ(Φ⁻¹(1 − FPR) − μ); the curve drawn is the smaller of the two.
//! - **TPR at FPR = 1 % and 10 %**: the largest empirical TPR at a threshold whose FPR is at
//!   most the target, and whether it exceeds the allowed curve beyond sampling error: with
//!   k₁ of N draws on the "in" side above the threshold and k₀ of N on the other, the one-sided
//!   Clopper–Pearson bounds TPR ≥ p̲(k₁) and FPR ≤ p̄(k₀), each at level α/8, hold together
//!   with probability ≥ 1 − α/4 for each of the four tests (the threshold is a draw on D′, so the count on D is binomial given it, and the FPR
//!   at the (k₀+1)-th largest of N continuous draws is Beta(k₀ + 1, N − k₀), whose upper
//!   quantile is p̄(k₀)). Since the allowed curve rises with FPR, a correct mechanism has
//!   TPR ≤ allowed(FPR) ≤ allowed(p̄) (the guarantee bounds both directions, so either side
//!   may be "in"), and p̲ > allowed(p̄) happens for any of the four with probability ≤ α.
//! - **The advantage** max (TPR − FPR) of the empirical ROC, against the largest the allowed
//!   curve permits, with its sampling margin (Dvoretzky–Kiefer–Wolfowitz: the maximum over
//!   thresholds is biased upwards by up to that much).
//!
//! An empirical curve is a **lower bound** on the leak: it is one test, one statistic and one
//! pair; a better attack or a worse pair could do more, and only the allowed curve bounds all of
//! them.

use serde::{Deserialize, Serialize};

use super::Side;
use super::pairs::base_config;
use super::{
    Auditable, Bug, GameTarget, ObjectivePerturbationTarget, PairDraws, certified_release_target,
    dp_accmd_target, dp_gd_target, dp_sgd_target, dp_svrg_target, grid_target, heavy_tail_target,
    localisation_target, output_perturbation_target, private_sco_target, svrg_bb_target,
};
use crate::algo::family::ProblemKind;
use crate::algo::{Draws, NoiseShape};
use crate::config::menu::pick;
use crate::config::{AlgorithmKind, GameChoice, RunConfig};
use crate::error::{Error, Result};
use crate::privacy::ApproxDp;
use crate::rng::{DpRng, Stream, seeded};
use crate::solver::SolverKind;
use crate::stats::{clopper_pearson, normal_cdf, normal_quantile};

/// Fewest and most runs per side.
pub const RUNS: std::ops::RangeInclusive<usize> = 100..=20_000;
/// α of the sampling check (α/4 for each of the four one-sided tests, α/8 on each side).
pub const ALPHA: f64 = 1e-3;
/// The FPRs the view reads the TPR at.
pub const FPRS: [f64; 2] = [0.01, 0.1];
/// Smallest FPR the allowed curve is tabulated at.
const FPR_FLOOR: f64 = 1e-5;

/// How the releases are scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Score {
    /// The release itself, where it is a deterministic point plus one draw of the stated
    /// Gaussian or Laplace noise in one dimension (output perturbation with a deterministic base
    /// solver): D and D′ shift the same law, whose likelihood ratio is monotone in the release,
    /// so a threshold on it is the likelihood-ratio test, the most powerful (Neyman–Pearson).
    LikelihoodRatio,
    /// The release projected on the direction the differing record moves it.
    Projection,
}

/// A scaled-down pair for the page's algorithm: the target, the words for it, and how many runs
/// per side the page draws by default.
pub struct Attack {
    /// The family on its pair.
    pub target: Box<dyn Auditable>,
    /// The pair and the settings, in words (what was scaled down, and from what).
    pub setting: String,
    /// Runs per side the page draws.
    pub runs: usize,
    /// How the releases are scored.
    pub score: Score,
}

/// The attacker's pair of the page's `config` (see the module docs): its algorithm, ε, δ, seed,
/// pitfall switch and (capped) steps, on the worst-case pair of that family's audit. Errors name
/// the control at fault.
pub fn attack_target(config: &RunConfig) -> Result<Attack> {
    use AlgorithmKind as K;
    let kind = config.algorithm;
    let (epsilon, delta) = (config.epsilon, config.delta);
    let leak = config.leak && kind.has_leak();
    let steps = |cap: usize| config.steps.clamp(1, cap);
    let at = |n: usize, batch: usize, t: usize| RunConfig {
        batch,
        steps: t,
        leak,
        seed: config.seed,
        ..base_config(n, epsilon, delta)
    };
    let from_page = |cap: usize, t: usize| {
        if config.steps > cap {
            format!("T = {t} (the page's {} capped at {cap})", config.steps)
        } else {
            format!("T = {t} (the page's)")
        }
    };
    let boxed = |t: Box<dyn Auditable>, setting: String, runs: usize, score: Score| Attack {
        target: t,
        setting,
        runs,
        score,
    };
    Ok(match kind {
        K::NoisyGd => {
            let t = steps(20);
            boxed(
                Box::new(dp_gd_target(at(20, 20, t))?),
                format!(
                    "logistic loss in one dimension, n = 20, {}; D′'s differing record sits at 50 times the feature bound (clipped back to it by the page unless the pitfall is on)",
                    from_page(20, t)
                ),
                4_000,
                Score::Projection,
            )
        }
        K::DpSgd => {
            let t = steps(10);
            boxed(
                Box::new(dp_sgd_target(at(10, 5, t))?),
                format!(
                    "add/remove, n = 10, expected batch 5, {}; D′ adds a canary at x = 50 whose gradient is clipped to C = 1 (unless the pitfall is on)",
                    from_page(10, t)
                ),
                4_000,
                Score::Projection,
            )
        }
        K::DpSvrg => boxed(
            Box::new(dp_svrg_target(at(10, 5, 1), Bug::None)?),
            "add/remove, n = 10, batch 5, one epoch (T = 1, scaled down); D′ adds a canary at x = 50, clipped to the bound".into(),
            4_000,
            Score::Projection,
        ),
        K::DpSvrgPlusPlus => boxed(
            Box::new(svrg_bb_target(at(10, 5, 2))?),
            "add/remove, n = 10, batch 5, two epochs (scaled down), declared η = 10⁻³; D′ adds a canary at x = 50".into(),
            4_000,
            Score::Projection,
        ),
        K::DpAccmd => {
            let t = if leak { 1 } else { steps(3) };
            boxed(
                Box::new(dp_accmd_target(at(10, 10, t))?),
                format!(
                    "Huber loss in one dimension, n = 10, {}; the differing record's gradient is +1 on D and −1 on D′ everywhere",
                    if leak {
                        "T = 1 (the pitfall's release at T = 1 is a function of the data)".to_string()
                    } else {
                        from_page(3, t)
                    }
                ),
                4_000,
                Score::Projection,
            )
        }
        K::ObjectivePerturbation => boxed(
            Box::new(ObjectivePerturbationTarget::new(10, epsilon, Bug::None)?),
            "ridge logistic regression (Λ = 0.1), n = 10, pure ε (the page's ε; δ unused); the differing record's label is +1 on D and −1 on D′".into(),
            4_000,
            Score::Projection,
        ),
        K::OutputPerturbation => boxed(
            Box::new(output_perturbation_target(RunConfig {
                solver: config.solver,
                seed: config.seed,
                ..base_config(100, epsilon, delta)
            })?),
            "Huber loss, ridge 0.1, n = 100, the page's base solver and accuracy; the differing record's label is +10 on D and −10 on D′, which attains the sensitivity bound".into(),
            4_000,
            if matches!(
                config.solver,
                SolverKind::Gd | SolverKind::Agd | SolverKind::Subgradient
            ) {
                Score::LikelihoodRatio
            } else {
                Score::Projection
            },
        ),
        K::RegularisedOutputPerturbation | K::Byoa | K::ByoaPhased => boxed(
            Box::new(certified_release_target(
                pick(&base_config(100, epsilon, delta), kind).0,
                Bug::None,
            )?),
            "Huber loss in one dimension, n = 100; the differing record's label is +10 on D and −10 on D′, whose gradient is the constant ∓1".into(),
            4_000,
            Score::Projection,
        ),
        K::ExponentialGrid => boxed(
            Box::new(grid_target(100, epsilon)?),
            "absolute loss, 41 grid points, n = 100, pure ε; D′'s differing record has the largest label the page accepts".into(),
            4_000,
            Score::Projection,
        ),
        K::Localisation | K::LocalisedExponential => {
            let sample = kind == K::LocalisedExponential;
            boxed(
                Box::new(localisation_target(100, epsilon, sample)?),
                format!(
                    "Huber loss in one dimension, ridge 0.1, radius 5, n = 100, pure ε (the page's ε; δ unused){}; the differing record's label is +10 on D and −10 on D′, which attains stage 1's sensitivity bound",
                    if sample { ", 41 grid points" } else { "" }
                ),
                4_000,
                Score::Projection,
            )
        }
        K::PrivateSco => boxed(
            Box::new(private_sco_target(
                pick(&base_config(100, epsilon, delta), kind).0,
                Bug::None,
            )?),
            "the simplex in d = 2, logistic loss, n = 100; the differing record's label is +1 on D and −1 on D′".into(),
            4_000,
            Score::Projection,
        ),
        K::LocalisedDoubleOutputPerturbation
        | K::LocalisedOutputPerturbation
        | K::PureClippedGd
        | K::OutputPerturbationLipschitzExtension
        | K::EmPgm
        | K::LocalisedApproxEm
        | K::DeterministicDoubleOutputPerturbation => {
            let deterministic = kind == K::DeterministicDoubleOutputPerturbation;
            let n = if deterministic { 20 } else { 200 };
            let heavy = RunConfig {
                algorithm: kind,
                steps: 10,
                seed: config.seed,
                lambda1: match kind {
                    K::LocalisedApproxEm => Some(10.0),
                    K::DeterministicDoubleOutputPerturbation => Some(1e-4),
                    _ => None,
                },
                ..base_config(n, epsilon, 0.0)
            };
            boxed(
                Box::new(heavy_tail_target(heavy, Bug::None)?),
                format!(
                    "pure ε (the page's ε), one dimension, n = {n}, 10 phases or steps, G₂ declared from the page's Pareto tails; D′'s differing record is an outlier 10⁴ times the others"
                ),
                1_000,
                Score::Projection,
            )
        }
        K::PrivateSmd | K::SmdBaseline | K::BiasReducedSmd | K::BoostedSmd => {
            let (n, runs) = match kind {
                // Below n = 2000 Algorithm 3's privacy filter ends the run before a draw depends
                // on the records.
                K::BiasReducedSmd => (2000, 1_000),
                // Algorithm 4's parts must each hold Algorithm 3's smallest batch ⌈1/α⌉, which
                // its plan checks: 4,228 records at ε = 1 (below that the plan refuses the run,
                // whose release would be the uniform start). A run costs 0.1 to 0.4 s natively
                // whatever n (its I·J best responses), so the fewest runs.
                K::BoostedSmd => (4228, 100),
                K::SmdBaseline => (100, 500),
                _ => (100, 4_000),
            };
            let game = RunConfig {
                problem: ProblemKind::Saddle,
                game: GameChoice::RockPaperScissors,
                d: 3,
                n,
                epsilon,
                delta,
                leak,
                seed: config.seed,
                ..RunConfig::default()
            };
            // The pair's own n, not the pick's: picking Algorithms 3 and 4 raises n to where
            // Theorem 3.14's budget lets a run move (35,467 and 95,648 records at ε = 1), where
            // one run costs seconds, and the attacker needs thousands.
            boxed(
                Box::new(GameTarget::new(RunConfig {
                    n,
                    ..pick(&game, kind).0
                })?),
                format!(
                    "rock–paper–scissors, n = {n} records; one record planted at the declared bound's two extremes (+ on D, − on D′); the score is y₁ − x₁ of the release"
                ),
                runs,
                Score::Projection,
            )
        }
        K::ByoaMinimax | K::ByoaMinimaxPhased | K::ByoaMinimaxCsc | K::AdversarialTraining => {
            let game = RunConfig {
                problem: ProblemKind::Saddle,
                game: GameChoice::BallGame,
                d: 2,
                n: 10,
                epsilon,
                delta,
                leak,
                seed: config.seed,
                ..RunConfig::default()
            };
            let picked = RunConfig {
                radius: 0.25,
                mu_x: 4.0,
                mu_y: 4.0,
                ..pick(&game, kind).0
            };
            boxed(
                Box::new(GameTarget::new(picked)?),
                "the ball game in d = 2 (radius 0.25, μₓ = μᵧ = 4), n = 10 records; one record's offset planted at the declared bound's two extremes; the score is y's second coordinate less its first".into(),
                4_000,
                Score::Projection,
            )
        }
    })
}

/// The guarantee's bound on every test of "D or D′?".
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Allowed {
    /// The stated ε (∞: no claim).
    pub epsilon: f64,
    /// The stated δ.
    pub delta: f64,
    /// μ of the Gaussian trade-off curve, where every stated draw is Gaussian.
    pub mu: Option<f64>,
}

impl Allowed {
    /// The bound of `claim`, with the Gaussian curve of `draws` where they are all Gaussian.
    pub fn of(claim: ApproxDp, draws: &[Draws]) -> Self {
        Self {
            epsilon: claim.epsilon,
            delta: claim.delta,
            mu: gdp_mu(draws),
        }
    }

    /// The (ε, δ) bound at `fpr`: min(1, e^ε·FPR + δ, 1 − e^{−ε}(1 − δ − FPR)).
    pub fn tpr_epsilon_delta(&self, fpr: f64) -> f64 {
        if !self.epsilon.is_finite() {
            return 1.0;
        }
        let e = self.epsilon;
        let a = libm::exp(e) * fpr + self.delta;
        let b = 1.0 - libm::exp(-e) * (1.0 - self.delta - fpr);
        a.min(b).clamp(0.0, 1.0)
    }

    /// The Gaussian bound at `fpr`: 1 − Φ(Φ⁻¹(1 − FPR) − μ), if the plan has one.
    pub fn tpr_gaussian(&self, fpr: f64) -> Option<f64> {
        let mu = self.mu?;
        if fpr <= 0.0 {
            return Some(0.0);
        }
        if fpr >= 1.0 {
            return Some(1.0);
        }
        Some(normal_cdf(mu - normal_quantile(1.0 - fpr)))
    }

    /// The most TPR any test reaches at `fpr` under the guarantee (the smaller bound).
    pub fn tpr(&self, fpr: f64) -> f64 {
        let fpr = fpr.clamp(0.0, 1.0);
        let ed = self.tpr_epsilon_delta(fpr);
        self.tpr_gaussian(fpr).map_or(ed, |g| g.min(ed)).max(fpr)
    }

    /// The largest advantage TPR − FPR the bound permits: the maximum over a fine grid of FPRs
    /// and the closed forms' kinks ((1 − δ)/(e^ε + 1) for (ε, δ), where the advantage is
    /// (e^ε − 1 + 2δ)/(e^ε + 1); Φ(−μ/2) for μ-GDP, where it is 2Φ(μ/2) − 1).
    pub fn advantage(&self) -> f64 {
        let kink = (1.0 - self.delta) / (libm::exp(self.epsilon) + 1.0);
        let gauss = self.mu.map_or(0.5, |mu| normal_cdf(-mu / 2.0));
        (0..=4000)
            .map(|i| f64::from(i) / 4000.0)
            .chain([kink, gauss])
            .filter(|f| f.is_finite())
            .map(|f| self.tpr(f) - f)
            .fold(0.0, f64::max)
    }
}

/// μ with μ² = Σ count·(Δ/σ)² when every draw is Gaussian (and there is at least one).
pub fn gdp_mu(draws: &[Draws]) -> Option<f64> {
    if draws.is_empty() {
        return None;
    }
    let sum = draws.iter().try_fold(0.0, |acc, d| match d.noise {
        NoiseShape::Gaussian { sigma, .. } if sigma > 0.0 => {
            Some(acc + d.count as f64 * (d.sensitivity / sigma).powi(2))
        }
        _ => None,
    })?;
    (sum > 0.0 && sum.is_finite()).then(|| sum.sqrt())
}

/// The empirical ROC's points and the test at one FPR.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AtFpr {
    /// The FPR asked for.
    pub target: f64,
    /// The empirical FPR of the threshold used (at most `target`).
    pub fpr: f64,
    /// The empirical TPR there.
    pub tpr: f64,
    /// Draws on the "in" side beyond the threshold.
    pub hits_in: u64,
    /// Draws on the other side beyond the threshold.
    pub hits_out: u64,
    /// The allowed TPR at the target FPR (the plain reading's number).
    pub allowed: f64,
    /// One-sided Clopper–Pearson lower bound on the true TPR (level α/8).
    pub tpr_lower: f64,
    /// One-sided Clopper–Pearson upper bound on the true FPR (level α/8).
    pub fpr_upper: f64,
    /// The allowed TPR at `fpr_upper`: what the check compares `tpr_lower` with.
    pub allowed_at_upper: f64,
    /// True when `tpr_lower` > `allowed_at_upper`: the runs contradict the guarantee at
    /// confidence 1 − α.
    pub exceeds: bool,
}

/// What the attacker's view draws.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttackView {
    /// The stated guarantee of the scaled-down run.
    pub claim: ApproxDp,
    /// The allowed curve's parameters.
    pub allowed: Allowed,
    /// How the releases were scored.
    pub score: Score,
    /// Runs per side.
    pub runs: usize,
    /// The pair and settings in words.
    pub setting: String,
    /// The side the attacker's test calls "in" (of the four one-sided tests, the best at FPR 1 %).
    pub positive: Side,
    /// Mean score on D and on D′.
    pub means: [f64; 2],
    /// The empirical ROC, FPR ascending (thinned to at most a few thousand points).
    pub roc_fpr: Vec<f64>,
    /// TPR of each ROC point.
    pub roc_tpr: Vec<f64>,
    /// The allowed curve: FPRs, log-spaced from 10⁻⁵ to 1.
    pub allowed_fpr: Vec<f64>,
    /// The allowed TPR at each.
    pub allowed_tpr: Vec<f64>,
    /// The test at FPR = 1 % and 10 %.
    pub at: Vec<AtFpr>,
    /// max (TPR − FPR) over the empirical ROC.
    pub advantage: f64,
    /// The largest advantage the guarantee permits.
    pub allowed_advantage: f64,
    /// The measured advantage's sampling margin at confidence 1 − α: each side's empirical
    /// distribution is within √(ln(4/α)/(2N)) of its law at every threshold (Dvoretzky–Kiefer–
    /// Wolfowitz with Massart's constant, α/2 a side), so the true advantage of the best
    /// threshold is at least the measured one less twice that.
    pub advantage_margin: f64,
    /// Why the run is NOT private (its pitfall demonstration), if it is one.
    pub leaks: Vec<String>,
    /// Whether every check stays within the allowed curve.
    pub within: bool,
}

/// The empirical ROC of scores `on_in` (draws on D) against `on_out` (draws on D′): for each
/// threshold at a draw on D′ (and −∞), (FPR, TPR, hits on D, hits on D′), FPR ascending.
pub fn roc(on_in: &[f64], on_out: &[f64]) -> Vec<(f64, f64, u64, u64)> {
    let mut a = on_in.to_vec();
    let mut b = on_out.to_vec();
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let above = |s: &[f64], t: f64| (s.len() - s.partition_point(|&x| x <= t)) as u64;
    let mut points = Vec::with_capacity(b.len() + 1);
    let mut last = f64::NAN;
    for &t in b.iter().rev() {
        if t == last {
            continue;
        }
        last = t;
        let (k1, k0) = (above(&a, t), above(&b, t));
        points.push((k0 as f64 / nb, k1 as f64 / na, k1, k0));
    }
    points.push((1.0, 1.0, a.len() as u64, b.len() as u64));
    points
}

/// The view of scores `on_d` and `on_d_prime` (equal lengths ≥ 20) under `allowed`.
pub fn view(
    on_d: &[f64],
    on_d_prime: &[f64],
    claim: ApproxDp,
    allowed: Allowed,
    score: Score,
    setting: String,
    leaks: Vec<String>,
) -> Result<AttackView> {
    if on_d.len() != on_d_prime.len() || on_d.len() < 20 {
        return Err(Error::invalid(
            "attack_runs",
            "at least 20 runs on each side",
            on_d.len().min(on_d_prime.len()),
        ));
    }
    if on_d.iter().chain(on_d_prime).any(|x| x.is_nan()) {
        return Err(Error::NonFinite {
            what: "attack score",
        });
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let neg = |v: &[f64]| -> Vec<f64> { v.iter().map(|x| -x).collect() };
    // The four one-sided tests: which side the attacker calls "in", and which tail of the score.
    let candidates = [
        (Side::D, on_d.to_vec(), on_d_prime.to_vec()),
        (Side::D, neg(on_d), neg(on_d_prime)),
        (Side::DPrime, on_d_prime.to_vec(), on_d.to_vec()),
        (Side::DPrime, neg(on_d_prime), neg(on_d)),
    ];
    // The best at FPR 1 % (then by advantage); the check below holds for each at α/4.
    let best_at = |points: &[(f64, f64, u64, u64)], target: f64| {
        points
            .iter()
            .filter(|p| p.0 <= target)
            .fold(
                (0.0, 0.0, 0, 0),
                |best, p| if p.1 > best.1 { *p } else { best },
            )
    };
    let advantage_of =
        |points: &[(f64, f64, u64, u64)]| points.iter().map(|p| p.1 - p.0).fold(0.0, f64::max);
    // The first of the best wins a tie (D "in", upper tail, where nothing tells them apart).
    let mut chosen = 0;
    let mut best_key = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    for (i, (_, a, b)) in candidates.iter().enumerate() {
        let points = roc(a, b);
        let key = (best_at(&points, FPRS[0]).1, advantage_of(&points));
        if key > best_key {
            (chosen, best_key) = (i, key);
        }
    }
    let [first, second, third, fourth] = candidates;
    let (positive, a, b) = match chosen {
        0 => first,
        1 => second,
        2 => third,
        _ => fourth,
    };
    let points = roc(&a, &b);
    let n = a.len() as u64;
    let mut at = Vec::new();
    for &target in &FPRS {
        let (fpr, tpr, k1, k0) = best_at(&points, target);
        // α/4 per candidate test (a union over the four), α/8 on each side.
        let (tpr_lower, _) = clopper_pearson(k1, n, ALPHA / 8.0)?;
        let (_, fpr_upper) = clopper_pearson(k0, n, ALPHA / 8.0)?;
        let allowed_at_upper = allowed.tpr(fpr_upper);
        at.push(AtFpr {
            target,
            fpr,
            tpr,
            hits_in: k1,
            hits_out: k0,
            allowed: allowed.tpr(target),
            tpr_lower,
            fpr_upper,
            allowed_at_upper,
            exceeds: tpr_lower > allowed_at_upper,
        });
    }
    let advantage = advantage_of(&points);
    // Thin the ROC: every point below FPR 2 %, then at most ~2000 more, evenly by index.
    let keep = (points.len() / 2000).max(1);
    let (roc_fpr, roc_tpr) = points
        .iter()
        .enumerate()
        .filter(|(i, p)| p.0 < 0.02 || i % keep == 0 || *i + 1 == points.len())
        .map(|(_, p)| (p.0, p.1))
        .unzip();
    let allowed_fpr: Vec<f64> = (0..=250)
        .map(|i| FPR_FLOOR * (1.0 / FPR_FLOOR).powf(f64::from(i) / 250.0))
        .collect();
    let allowed_tpr = allowed_fpr.iter().map(|&f| allowed.tpr(f)).collect();
    let within = at.iter().all(|x| !x.exceeds);
    Ok(AttackView {
        claim,
        allowed,
        score,
        runs: a.len(),
        setting,
        positive,
        means: [mean(on_d), mean(on_d_prime)],
        roc_fpr,
        roc_tpr,
        allowed_fpr,
        allowed_tpr,
        at,
        advantage,
        allowed_advantage: allowed.advantage(),
        advantage_margin: 2.0 * (libm::log(4.0 / ALPHA) / (2.0 * a.len() as f64)).sqrt(),
        leaks,
        within,
    })
}

/// An attacker's view in progress: the pair, its draws so far and their generator, so the page's
/// worker can draw a chunk at a time and stop between chunks.
pub struct AttackJob {
    attack: Attack,
    allowed: Allowed,
    leaks: Vec<String>,
    draws: PairDraws,
    rng: DpRng,
    runs: usize,
}

impl AttackJob {
    /// The view of the page's `config` with `runs` per side (within [`RUNS`]; 0: the family's
    /// default), drawn from the audit stream of the config's seed.
    pub fn new(config: &RunConfig, runs: usize) -> Result<Self> {
        let attack = attack_target(config)?;
        let runs = if runs == 0 { attack.runs } else { runs };
        if !RUNS.contains(&runs) {
            return Err(Error::invalid(
                "attack_runs",
                format!("{} to {} runs per side", RUNS.start(), RUNS.end()),
                runs,
            ));
        }
        let allowed = Allowed::of(attack.target.claim(), &attack.target.draws());
        let leaks = attack.target.leaks();
        Ok(Self {
            allowed,
            leaks,
            draws: PairDraws::with_capacity(runs),
            rng: seeded(config.seed, Stream::Audit),
            attack,
            runs,
        })
    }

    /// Draws up to `pairs` more runs per side; returns the runs per side drawn so far.
    pub fn advance(&mut self, pairs: usize) -> Result<usize> {
        let pairs = pairs.min(self.runs - self.draws.len());
        self.draws
            .draw(self.attack.target.as_mut(), &mut self.rng, pairs)?;
        Ok(self.draws.len())
    }

    /// Runs per side.
    pub fn runs(&self) -> usize {
        self.runs
    }

    /// The pair and settings, in words.
    pub fn setting(&self) -> &str {
        &self.attack.setting
    }

    /// Whether every run is drawn.
    pub fn is_done(&self) -> bool {
        self.draws.len() >= self.runs
    }

    /// The view of the draws so far (at least 20 per side).
    pub fn view(&self) -> Result<AttackView> {
        view(
            &self.draws.on_d,
            &self.draws.on_d_prime,
            self.attack.target.claim(),
            self.allowed,
            self.attack.score,
            self.attack.setting.clone(),
            self.leaks.clone(),
        )
    }
}
