//! The empirical audit of the heavy-tail families (Lowy 2026, "Optimal Rates for Pure
//! ε-Differentially Private Stochastic Convex Optimization with Heavy Tails"): each passes at its
//! claimed ε on a pair whose differing record is a huge outlier, and the planted bug of a
//! threshold C measured from the sample (instead of declared from the generating distribution)
//! is caught. α = 1e-3 and fixed seeds, as in tests/algorithms/privacy_audit.rs.

use dp_playground::audit::{AuditReport, Bug, audit, base_config, heavy_tail_target};
use dp_playground::config::{AlgorithmKind, RunConfig};
use dp_playground::rng::{Stream, seeded};

const ALPHA: f64 = 1e-3;

const FAMILIES: [AlgorithmKind; 7] = [
    AlgorithmKind::LocalisedDoubleOutputPerturbation,
    AlgorithmKind::LocalisedOutputPerturbation,
    AlgorithmKind::PureClippedGd,
    AlgorithmKind::OutputPerturbationLipschitzExtension,
    AlgorithmKind::EmPgm,
    AlgorithmKind::LocalisedApproxEm,
    AlgorithmKind::DeterministicDoubleOutputPerturbation,
];

fn config(algorithm: AlgorithmKind) -> RunConfig {
    if algorithm == AlgorithmKind::DeterministicDoubleOutputPerturbation {
        return deterministic_config();
    }
    RunConfig {
        algorithm,
        steps: 10,
        // The localised exponential mechanism's pair is built with a declared λ = 10: at the
        // default λ (small at n = 200) r₀ = 600·C·d/(λnε) far exceeds W on both sides, the draw's
        // Δ₀ = 2C·r₀/n makes it nearly uniform on W whatever C is, and no threshold, measured or
        // declared, could show. With λ = 10 the declared C gives r₀ ≈ 3.7 (R = 4).
        lambda1: (algorithm == AlgorithmKind::LocalisedApproxEm).then_some(10.0),
        ..base_config(200, 1.0, 0.0)
    }
}

/// The deterministic variant (Theorem D.4) on a pair small enough for its fixed step counts
/// T = ⌈(4·D·L/α)²⌉ (Lemma D.5), all known from this config: n = 20 (one phase, m = 10, the
/// differing record in its block), declared λ₁ = 10⁻⁴, so the correct plan's C = G₂·√10 = 2.74
/// gives T = 1 on W and 288 on W₀ (2.9·10³ record gradients a run). At the page's default λ₁ a
/// run reads 2·10⁷. The price of a small λ₁ is noise: β = 12C/(λmε) ≈ 3·10⁴ against W's radius
/// 4, so nearly every release is projected to ±4 and this audit can only catch gross errors,
/// not a subtle calibration one (nor the planted bug: see
/// `a_threshold_measured_from_the_sample_is_caught`).
fn deterministic_config() -> RunConfig {
    RunConfig {
        algorithm: AlgorithmKind::DeterministicDoubleOutputPerturbation,
        steps: 10,
        lambda1: Some(1e-4),
        ..base_config(20, 1.0, 0.0)
    }
}

fn audited(config: RunConfig, bug: Bug, runs: usize, seed: u32) -> AuditReport {
    let name = format!("{:?}, λ₁ {:?}, {bug:?}", config.algorithm, config.lambda1);
    let mut target = heavy_tail_target(config, bug).unwrap();
    let r = audit(&mut target, runs, ALPHA, &mut seeded(seed, Stream::Audit)).unwrap();
    println!(
        "{name}: claimed ε = {}, ε̂ = {:.3}, hits {} / {} of {}",
        r.claimed.epsilon,
        r.epsilon_lower,
        r.hits_numerator,
        r.hits_denominator,
        r.runs_per_side / 2
    );
    r
}

#[test]
fn every_heavy_tail_family_passes_at_its_claimed_epsilon_on_the_outlier_pair() {
    // Pure ε = 1, n = 200, d = 1, G_k declared (Pareto α = 3, k = 2). The outlier's pull is cut
    // to C by the extension; it must pass (it can fail only with probability α). Measured with
    // 2000 runs a side after the grid families moved inside Algorithm 1's phases: ε̂ = 0.000 for
    // all seven (the deterministic variant on its own n = 20 pair, see `deterministic_config`).
    // Localized Double
    // Output Perturbation is audited at the default λ₁ (with the proofs' constants) and at the
    // declared λ₁ = 10⁻³, 1270 times smaller than the default 1.27 here: λ₁ is utility only, the
    // noise follows λ_t.
    for (i, algorithm) in FAMILIES.into_iter().enumerate() {
        let r = audited(config(algorithm), Bug::None, 2_000, 40 + i as u32);
        assert!(!r.violation, "{r:?}");
        assert_eq!((r.claimed.epsilon, r.claimed.delta), (1.0, 0.0));
    }
    let small = RunConfig {
        lambda1: Some(1e-3),
        ..config(AlgorithmKind::LocalisedDoubleOutputPerturbation)
    };
    let r = audited(small, Bug::None, 2_000, 43);
    assert!(!r.violation, "{r:?}");
}

#[test]
fn a_threshold_measured_from_the_sample_is_caught() {
    // The same pair with each side's C = Ĝ_k (nε/d)^(1/k) from its own records: the outlier makes
    // D′'s C, and its noise, about 300 times D's, so the release's spread tells the datasets
    // apart. Measured with 2000 runs a side, after the grid families moved inside Algorithm 1's
    // phases: ε̂ = 2.02 (localized), 2.53 (localized output perturbation, Algorithms 1 + 2),
    // 2.27 (clipped GD), 3.72 (single stage), 2.71 (EM-PGM: the score's sensitivity 2C/n
    // flattens D′'s draw), and the localised exponential mechanism 3.97 (on its pair with
    // λ = 10: D′'s C makes r₀ cover W).
    //
    // Not the deterministic variant (Theorem D.4): its bug is real but this audit cannot see it
    // at an affordable cost. On its pair (n = 20, λ₁ = 10⁻⁴) the measured C gives D noise
    // β ≈ 5·10³ and D′ β ≈ 10⁷, both far beyond W (radius 4): every release is projected to
    // ±4, each sign with probability ≈ ½ on both sides (measured: ε̂ = 0.000, 498 / 462 hits of 1000). Lemma D.5's
    // stage-2 count is T = (576·D·λm²/C)², and β = 12C/(λmε), so T·β² = (6912·m·D/ε)² whatever
    // C and λ are: noise within W's scale costs ≈ 5·10⁹ iterations at m = 10.
    for (i, algorithm) in FAMILIES
        .into_iter()
        .filter(|&a| a != AlgorithmKind::DeterministicDoubleOutputPerturbation)
        .enumerate()
    {
        let r = audited(
            config(algorithm),
            Bug::MeasuredThreshold,
            2_000,
            50 + i as u32,
        );
        assert!(r.violation, "{r:?}");
    }
}
