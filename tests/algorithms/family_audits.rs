//! The empirical audits of the families that had none, each run as the page
//! runs it (`FamilyTarget` / `GameTarget`: the claim is the plan's guarantee, every run built by
//! `Planned::build` on the problem the session builds), each with its planted bug where this pair
//! can show one. α = 1e-3 and fixed seeds, as in tests/algorithms/privacy_audit.rs: a correct family fails
//! only with probability ≤ α by construction (its threshold is its own claimed ε), and each
//! planted bug is caught by a wide margin (the measured ε̂ in each test's comment).
//!
//! Most passes here are weak (ε̂ = 0): at the page's default solver accuracy α the certified
//! radius √(2α/μ) dominates the noise's sensitivity, so the two sides' releases are much closer
//! than the noise covers (tests/algorithms/output_perturbation.rs audits Algorithm 1 at a tighter α, where
//! the pass is close to tight). The planted bugs show the pairs and statistics do tell the
//! datasets apart when the calibration is wrong. Where the family's records are gated, the
//! planted bug is the noise its plan calibrates for a larger ε, against the claim at ε
//! (`GameTarget::with_noise_for`, `certified_release_with_noise_for`), on a pair posed so the
//! release moves: each test says which factor its pair can show, and why not a smaller one. tests/algorithms/audit_coverage.rs lists which test audits
//! which family.

use dp_playground::algo::family::ProblemKind;
use dp_playground::algo::heavy_tails::joint::HeavySolver;
use dp_playground::audit::{
    AuditReport, Auditable, Bug, GameTarget, audit, base_config, certified_release_target,
    certified_release_with_noise_for, heavy_tail_target, localisation_target,
    localisation_with_noise_for, private_sco_target,
};
use dp_playground::config::menu::pick;
use dp_playground::config::{AlgorithmKind, GameChoice, RunConfig};
use dp_playground::loss::Wrap;
use dp_playground::rng::{Stream, seeded};
use dp_playground::solver::SolverKind;

const ALPHA: f64 = 1e-3;

fn run(name: &str, target: &mut dyn Auditable, runs: usize, seed: u32) -> AuditReport {
    let started = std::time::Instant::now();
    let r = audit(target, runs, ALPHA, &mut seeded(seed, Stream::Audit)).unwrap();
    println!(
        "{name}: claimed ({}, {:e}), ε̂ = {:.3}, hits {} / {} of {} ({:.2} s)",
        r.claimed.epsilon,
        r.claimed.delta,
        r.epsilon_lower,
        r.hits_numerator,
        r.hits_denominator,
        r.runs_per_side / 2,
        started.elapsed().as_secs_f64()
    );
    r
}

fn picked(kind: AlgorithmKind, config: RunConfig) -> RunConfig {
    pick(&config, kind).0
}

/// Pure ε = 1 (ℓ2-Laplace) or (1, 1e-5) at n = 100 on `certified_release_target`'s tight pair,
/// correct and with the planted record 50 bounds out: `runs` a side each.
fn certified(config: RunConfig, runs: [usize; 2], seed: u32) -> (AuditReport, AuditReport) {
    let name = format!("{:?} {:?}", config.algorithm, config.solver);
    let mut ok = certified_release_target(config.clone(), Bug::None).unwrap();
    let passed = run(&name, &mut ok, runs[0], seed);
    let mut bad = certified_release_target(config, Bug::ClippingSkipped).unwrap();
    let caught = run(&format!("{name}, unclipped"), &mut bad, runs[1], seed + 1);
    (passed, caught)
}

#[test]
fn regularised_output_perturbation_passes_and_unclipped_records_are_caught() {
    // Lowy & Razaviyayn 2021, Algorithm 6 (pure ε = 1, n = 100; the plan adds Theorem 3.4/3.5's
    // ridge λ and calibrates to Δ_T = 2(L + λR)/(λn) + 2√(2α/λ)). Measured: ε̂ = 0 correct; 3.00
    // with the record 50 bounds out (313 / 3 hits of 500). The paper's printed Gaussian (σ √2 too
    // small, δ > 0) is not planted: the true ε at δ = 1e-5 rises from 1 to about 1.4, and a
    // region with likelihood ratio e above that sits ~3.6σ out, with probability ~10⁻⁴ on D′:
    // millions of runs, not thousands.
    let config = picked(
        AlgorithmKind::RegularisedOutputPerturbation,
        base_config(100, 1.0, 0.0),
    );
    let (passed, caught) = certified(config, [4_000, 1_000], 1);
    assert!(!passed.violation, "{passed:?}");
    assert!(caught.violation, "{caught:?}");
}

#[test]
fn regularised_output_perturbation_noise_calibrated_for_256_epsilon_is_caught() {
    // Algorithm 6 as the page plans it, on the tight pair, with the Laplace scale its plan
    // calibrates for 256ε against the claim at ε = 1. The exact minimisers of the two sides are
    // 2L/(λn) apart, but at the page's accuracy α the certified solver stops where it first
    // certifies, near the public start 0 on both sides: the releases' centres are ±0.01 (measured
    // over 4 000 runs a side), 1.6% of Δ_T ≈ 1.2, most of which is the solver's slack
    // 2√(2α/λ) that only an adversarial solver reaches. So a noise 4 or 16 times too small
    // stays hidden (measured ε̂ = 0 at 4ε, 0.05 at 16ε, 0.36 at 64ε, 20 000 runs a side), and
    // 256ε is the planted bug this pair can show. Measured: ε̂ = 0 correct (3 / 2 hits of
    // 10 000); 2.36 at 256ε (5653 / 446).
    let config = picked(
        AlgorithmKind::RegularisedOutputPerturbation,
        base_config(100, 1.0, 0.0),
    );
    let mut ok = certified_release_target(config.clone(), Bug::None).unwrap();
    let passed = run("Algorithm 6", &mut ok, 20_000, 31);
    assert!(!passed.violation, "{passed:?}");
    let mut bad = certified_release_with_noise_for(config, 256.0).unwrap();
    let caught = run("Algorithm 6, noise for 256ε", &mut bad, 20_000, 32);
    assert!(caught.violation, "{caught:?}");
}

#[test]
fn tilted_erm_passes_on_the_tight_pair() {
    // Algorithm 1 on the TERM objective (tilt τ = 0.1, ridge 1: its declared sensitivity is the
    // non-ERM 2L/μ = 2, Lowy & Razaviyayn 2021, Lemma 5.2, below the ball's diameter 20 so the
    // noise does not swamp the ball). The tilt weighs the differing record's loss ≈ 9.5 by
    // e^0.95 against the 99 shared zeros. Measured: ε̂ = 0 (a weak pass at the page's α). The
    // planted unclipped record is not audited here: with the record 50 bounds out, every release
    // on both sides is exactly 0.0, the solver's public start with no noise (measured: 500 / 500
    // hits): the run aborts on data outside the declared bounds and releases its start, the abort
    // path, now gone. This pair is the audit to add.
    let config = RunConfig {
        wrap: Wrap::Tilted { tau: 0.1 },
        l2: 1.0,
        ..picked(
            AlgorithmKind::OutputPerturbation,
            base_config(100, 1.0, 0.0),
        )
    };
    let mut ok = certified_release_target(config.clone(), Bug::None).unwrap();
    let r = run("TERM", &mut ok, 4_000, 3);
    assert!(!r.violation, "{r:?}");
}

#[test]
fn tilted_erm_noise_calibrated_for_4_epsilon_is_caught() {
    // Algorithm 1 on TERM with the tilt that makes the pair tight: at τ = 1 the differing
    // record's loss ≈ 9.5 weighs e^9.5 ≈ 13 000 against the 99 shared zeros, so each side's
    // objective is that record's loss plus the ridge, and its minimiser ∓L/μ: the two sides sit
    // the non-ERM sensitivity 2L/μ apart (Lowy & Razaviyayn 2021, Lemma 5.2), where τ = 0.1
    // above weighs the record by ~2.5%. The ridge μ = 16 keeps the solver's slack 2√(2α/μ) at
    // the page's α near 2L/μ (Δ_T = 0.30, the centres measured at ±0.04). Pure ε = 1 (Laplace):
    // the correct release shows a positive ε̂ below its claim, and the Laplace scale the plan
    // calibrates for 4ε is caught. Measured: ε̂ = 0.27 correct (5549 / 3949 hits of 10 000);
    // 2.17 at 4ε (4973 / 473).
    let config = RunConfig {
        wrap: Wrap::Tilted { tau: 1.0 },
        l2: 16.0,
        ..picked(
            AlgorithmKind::OutputPerturbation,
            base_config(100, 1.0, 0.0),
        )
    };
    let mut ok = certified_release_target(config.clone(), Bug::None).unwrap();
    let passed = run("TERM, τ = 1", &mut ok, 20_000, 33);
    assert!(!passed.violation, "{passed:?}");
    let mut bad = certified_release_with_noise_for(config, 4.0).unwrap();
    let caught = run("TERM, τ = 1, noise for 4ε", &mut bad, 20_000, 34);
    assert!(caught.violation, "{caught:?}");
}

#[test]
fn output_perturbation_with_katyusha_passes_and_unclipped_records_are_caught() {
    // Algorithm 1 with Katyusha (Allen-Zhu 2018) as the base solver, pure ε = 1, n = 100: the noise
    // does not depend on the solver, only the certificate's path does. Measured: ε̂ = 0 correct;
    // 4.15 with the record 50 bounds out (493 / 0 hits of 500).
    let config = RunConfig {
        solver: SolverKind::Katyusha,
        ..picked(
            AlgorithmKind::OutputPerturbation,
            base_config(100, 1.0, 0.0),
        )
    };
    let (passed, caught) = certified(config, [4_000, 1_000], 5);
    assert!(!passed.violation, "{passed:?}");
    assert!(caught.violation, "{caught:?}");
}

#[test]
fn bring_your_own_algorithm_passes_and_unclipped_records_are_caught() {
    // Zhang et al. 2022, Algorithm 1 ((1, 1e-5), ridge 0.1, n = 100; Δ = 4L/(μn) = 0.4 and the
    // paper's σ). Measured: ε̂ = 0 correct; 3.99 with the record 50 bounds out (437 / 0 of 500:
    // the solves are 10 apart against σ ≈ 2).
    let config = picked(AlgorithmKind::Byoa, base_config(100, 1.0, 1e-5));
    let (passed, caught) = certified(config, [4_000, 1_000], 7);
    assert!(!passed.violation, "{passed:?}");
    assert!(caught.violation, "{caught:?}");
}

#[test]
fn phased_output_perturbation_passes_and_unclipped_records_are_caught() {
    // Zhang et al. 2022, Algorithm 2 ((1, 1e-5), n = 100: K = 6 phases on disjoint chunks; the
    // differing record is in phase 1's, whose release centres every later phase). Measured:
    // ε̂ = 0 correct; 3.90 with the record 50 bounds out (403 / 0 of 500).
    let config = picked(AlgorithmKind::ByoaPhased, base_config(100, 1.0, 1e-5));
    let (passed, caught) = certified(config, [4_000, 1_000], 9);
    assert!(!passed.violation, "{passed:?}");
    assert!(caught.violation, "{caught:?}");
}

#[test]
fn private_sco_passes_and_unclipped_records_are_caught() {
    // González, Guzmán & Paquette 2024, Algorithm 5 ((1, 1e-5), n = 100, simplex of d = 2; see
    // `private_sco_target` for why the planted outlier is 1000 bounds out). Measured: ε̂ = 0
    // correct; 4.29 unclipped (773 / 1 of 1000).
    let config = picked(AlgorithmKind::PrivateSco, base_config(100, 1.0, 1e-5));
    let mut ok = private_sco_target(config.clone(), Bug::None).unwrap();
    let r = run("Algorithm 5", &mut ok, 4_000, 11);
    assert!(!r.violation, "{r:?}");
    let mut bad = private_sco_target(config, Bug::ClippingSkipped).unwrap();
    let r = run("Algorithm 5, unclipped", &mut bad, 2_000, 12);
    assert!(r.violation, "{r:?}");
}

#[test]
fn algorithm_3_as_the_certified_solver_passes() {
    // Lowy 2026's Algorithm 3 on the joint reformulation as the solver of Localized Double Output
    // Perturbation, on the heavy-tail outlier pair (tests/algorithms/heavy_audit.rs) at n = 20. Its
    // iteration bound T_α = ⌈(3·D_K·L/α)²⌉ (Prop 2.9) is declared, and the plan refuses the solver
    // above 2·10⁸ record gradients: at the default λ₁ it needs 10¹⁹, at λ₁ = 10⁻³ still 5.9·10⁹,
    // so λ₁ = 10⁻⁵ (8.2·10⁵). The price is noise: β = 12C/(λmε) far beyond W's radius 4, most
    // releases sit on W's boundary (measured: hits 267 / 258 of 500, ε̂ = 0), so this is a weak
    // pass, and the planted measured threshold cannot be shown here: its D′ plan needs more
    // iterations than the allowance and is refused (tests/algorithms/heavy_audit.rs catches it with the AGD
    // solver, whose noise law is the same). It must pass: it fails only with probability α.
    let config = RunConfig {
        algorithm: AlgorithmKind::LocalisedDoubleOutputPerturbation,
        heavy_solver: HeavySolver::AdaptiveSubgradient,
        steps: 10,
        lambda1: Some(1e-5),
        ..base_config(20, 1.0, 0.0)
    };
    let mut ok = heavy_tail_target(config, Bug::None).unwrap();
    let r = run("Algorithm 3 as the solver", &mut ok, 1_000, 13);
    assert!(!r.violation, "{r:?}");
}

/// A game of `kind` as the page picks it: the ball game in d = 2 (μₓ, μᵧ set by the pick where
/// the family needs them), n = 10 records (the page's least), at (1, 1e-5).
fn ball_game(kind: AlgorithmKind) -> RunConfig {
    picked(
        kind,
        RunConfig {
            problem: ProblemKind::Saddle,
            game: GameChoice::BallGame,
            d: 2,
            n: 10,
            epsilon: 1.0,
            delta: 1e-5,
            ..RunConfig::default()
        },
    )
}

/// Zhang et al. 2022's minimax families on `GameTarget`'s planted pair (record 0 at the declared
/// bound's two extremes). Their page demonstration, the iteration cap, is not a leak an audit
/// can show on these games: a capped gradient descent–ascent from the same start is a
/// contraction, and its iterates stay within the solution's sensitivity of each other. Heavy
/// records left unclipped (the saddle families' planted bug elsewhere) make the certified solver
/// run for minutes here and release the same point on both sides (measured: 50 / 50 hits, 46 s
/// for 50 runs a side). So these audits show the correct families pass on the default game, where
/// the saddle point sits on W's boundary and the releases do not move; [`moving_ball_game`]'s
/// audits below pose a pair that moves them, with planted noise.
fn minimax_passes(kind: AlgorithmKind, seed: u32) {
    let mut target = GameTarget::new(ball_game(kind)).unwrap();
    let r = run(&format!("{kind:?}"), &mut target, 2_000, seed);
    assert!(!r.violation, "{r:?}");
}

#[test]
fn sc_sc_minimax_output_perturbation_passes_on_the_planted_pair() {
    minimax_passes(AlgorithmKind::ByoaMinimax, 21);
}

#[test]
fn phased_minimax_output_perturbation_passes_on_the_planted_pair() {
    minimax_passes(AlgorithmKind::ByoaMinimaxPhased, 22);
}

#[test]
fn c_sc_phased_output_perturbation_passes_on_the_planted_pair() {
    minimax_passes(AlgorithmKind::ByoaMinimaxCsc, 23);
}

/// The ball game posed so that the replaced record moves the release: W a ball of radius ¼ and
/// μₓ = μᵧ = 4 keep the saddle point interior (y* = (M̄ᵀx* − b̄)/μᵧ with |b̄| ≤ √2), so the planted
/// offset ±c·(1, −1) moves y* by about 2c√2/(nμᵧ) ≈ 0.07 between D and D′, about a fifth of the
/// declared y-sensitivity 4L/(nμ) ≈ 0.33 (L ≈ 3.3 counts every record at the bound); the
/// statistic is y₂ − y₁ (`GameTarget`'s for the ball game). The radius-4 default game of
/// [`ball_game`] leaves y* on the boundary and the releases do not move.
fn moving_ball_game(kind: AlgorithmKind) -> RunConfig {
    RunConfig {
        radius: 0.25,
        mu_x: 4.0,
        mu_y: 4.0,
        ..ball_game(kind)
    }
}

/// `kind` on [`moving_ball_game`]: passes as planned, and with its noise calibrated for
/// `factor`·ε (the claim unchanged) is caught; 20 000 runs a side each.
fn minimax_moves_and_is_caught(kind: AlgorithmKind, factor: f64, seed: u32) {
    let config = moving_ball_game(kind);
    let mut ok = GameTarget::new(config.clone()).unwrap();
    let passed = run(&format!("{kind:?}, moving pair"), &mut ok, 20_000, seed);
    assert!(!passed.violation, "{passed:?}");
    let mut bad = GameTarget::with_noise_for(config, factor).unwrap();
    let caught = run(
        &format!("{kind:?}, noise for {factor}ε"),
        &mut bad,
        20_000,
        seed + 1,
    );
    assert!(caught.violation, "{caught:?}");
}

#[test]
fn sc_sc_minimax_noise_calibrated_for_128_epsilon_is_caught() {
    // Zhang et al. 2022, Algorithm 3 on the moving pair. The paper's Gaussian at (ε/2, δ/2) per
    // block is σ ≈ 10Δ at (1, 1e-5), and the pair reaches about a fifth of Δ, so the correct
    // release moves by ~0.02σ, and noise for 4ε by ~0.08σ: below what 10⁵ runs a side resolve
    // (measured ε̂ = 0.06 at 4ε, 0.37 at 16ε with 100 000 runs a side). Noise for 128ε (the
    // page's analytic Gaussian at that ε) is the smallest factor of 2 caught with margin.
    // Measured: ε̂ = 0 correct (3 / 1 hits of 10 000); 1.92 at 128ε (460 / 34).
    minimax_moves_and_is_caught(AlgorithmKind::ByoaMinimax, 128.0, 25);
}

#[test]
fn phased_minimax_noise_calibrated_for_512_epsilon_is_caught() {
    // Zhang et al. 2022, Algorithms 4 and 5 on the moving pair: record 0 sits in phase 1's chunk
    // of 3 (n = 10, K = 3), whose regulariser μ₁ = 2μ and the later phases' centring on its
    // release shrink its effect on the final point further than Algorithm 3's. Measured: ε̂ = 0
    // correct (1 / 1 hits of 10 000); 1.95 at 512ε (521 / 39), and 0.60 at 128ε.
    minimax_moves_and_is_caught(AlgorithmKind::ByoaMinimaxPhased, 512.0, 27);
}

#[test]
fn adversarial_training_noise_calibrated_for_512_epsilon_is_caught() {
    // Lowy & Razaviyayn 2021, Algorithm 8 as the page runs it (its own solver, not the worst
    // black box of tests/algorithms/adversarial_training_audit.rs), on the ball game of radius ½ with
    // μₓ = 4, μᵧ = 1: y* is interior and large enough that the planted M's change moves x* along
    // (1, −1), the statistic x₁ − x₂ (only x is released). Its sensitivity is the solution's
    // 2L/(n√(μₓ·min(μₓ, μᵧ))) plus the solver's slack 2√(2α/μₓ), and the page's solver ends where
    // it first certifies, alike on both sides; so the releases move by a small share of it, and
    // noise for 16 to 128ε stays hidden (measured ε̂ = 0 at 16ε, 0.71 at 128ε, 1.30 at 256ε with
    // 20 000 runs a side). Measured: ε̂ = 0 correct (1 / 0 hits of 10 000); 2.36 at 512ε
    // (547 / 24).
    let config = RunConfig {
        radius: 0.5,
        mu_x: 4.0,
        mu_y: 1.0,
        ..ball_game(AlgorithmKind::AdversarialTraining)
    };
    let along = |x: &[f64], _y: &[f64]| x[0] - x[1];
    let mut ok = GameTarget::new(config.clone())
        .unwrap()
        .with_statistic(along);
    let passed = run("Algorithm 8, moving pair", &mut ok, 20_000, 35);
    assert!(!passed.violation, "{passed:?}");
    let mut bad = GameTarget::with_noise_for(config, 512.0)
        .unwrap()
        .with_statistic(along);
    let caught = run("Algorithm 8, noise for 512ε", &mut bad, 20_000, 36);
    assert!(caught.violation, "{caught:?}");
}

#[test]
fn the_non_private_baseline_is_caught() {
    // Mirror descent without noise claims nothing (ε = ∞, NOT PRIVATE); on rock–paper–scissors
    // with n = 10 its release is a deterministic function of the records, different on D and D′,
    // so the audit measures as large an ε̂ as its runs allow: above the ε = 1 its private
    // Algorithm 1 would claim on the same settings. Measured: ε̂ = 1.81 with 100 runs a side
    // (50 / 0 hits), the most 50 measuring runs can show at α = 10⁻³.
    let config = picked(
        AlgorithmKind::SmdBaseline,
        RunConfig {
            problem: ProblemKind::Saddle,
            game: GameChoice::RockPaperScissors,
            d: 3,
            n: 10,
            epsilon: 1.0,
            delta: 1e-5,
            ..RunConfig::default()
        },
    );
    let mut target = GameTarget::new(config).unwrap();
    let r = run("the baseline", &mut target, 100, 24);
    assert!(r.claimed.epsilon.is_infinite(), "{r:?}");
    assert!(r.epsilon_lower > 1.0, "{r:?}");
}

/// Lowy & Razaviyayn 2021, Algorithm 10 (`sample` false) or 11 at pure ε = 1, n = 100, on output
/// perturbation's tight pair: the correct family, then the noise its plan calibrates for 16ε
/// (both stages) against the claim at ε.
fn localisation_audit(sample: bool, seed: u32) -> (AuditReport, AuditReport) {
    let name = if sample {
        "Algorithm 11"
    } else {
        "Algorithm 10"
    };
    let mut ok = localisation_target(100, 1.0, sample).unwrap();
    let passed = run(name, &mut ok, 20_000, seed);
    let mut bad = localisation_with_noise_for(100, 1.0, sample, 16.0).unwrap();
    let caught = run(
        &format!("{name}, noise for 16ε"),
        &mut bad,
        20_000,
        seed + 1,
    );
    (passed, caught)
}

#[test]
fn localisation_passes_and_noise_calibrated_for_a_larger_epsilon_is_caught() {
    // Algorithm 10: stage 1 is output perturbation at ε, so the pass is weak for the reason in
    // the module docs (at the page's α the certified slack dominates Δ_T). A noise for 4ε stayed
    // hidden (ε̂ = 0 over 2 000 runs a side); 16ε is the factor this pair shows.
    // Measured (20 000 runs a side): ε̂ = 0 correct (0 / 2 hits); 6.9 at 16ε (7869 / 0).
    let (passed, caught) = localisation_audit(false, 43);
    assert!(!passed.violation, "{passed:?}");
    assert!(caught.violation, "{caught:?}");
}

#[test]
fn exponential_sampling_with_localisation_passes_and_noise_for_a_larger_epsilon_is_caught() {
    // Algorithm 11: ε/2 for the centre, ε/2 for the draw on W₀; planted, both stages use the
    // plan for 16ε (the centre's noise 16 times too small, the draw's weights 16 times too
    // sharp). 4ε stayed hidden (ε̂ = 0.01 over 2 000 runs a side).
    // Measured (20 000 runs a side): ε̂ = 0 correct (3277 / 3132 hits); 2.3 at 16ε (236 / 6).
    let (passed, caught) = localisation_audit(true, 45);
    assert!(!passed.violation, "{passed:?}");
    assert!(caught.violation, "{caught:?}");
}
