//! The empirical audit (src/audit/) passes every correct mechanism and flags every planted bug.
//!
//! All audits use α = 1e-3 (each Clopper–Pearson side at 5e-4) and fixed seeds. A correct
//! mechanism can only fail with probability ≤ α per audit by construction (see src/audit/); the
//! planted bugs double the privacy loss or more, and the run counts are chosen so that the
//! expected ε̂ of the buggy mechanism clears the claim by a wide margin (numbers in each test).
//!
//! The whole algorithms are audited as the page runs them (`FamilyTarget`: a family's
//! configuration and a neighbouring pair; the claim is the plan's guarantee, each run is built by
//! `Planned::build` on the problem the session builds from a loaded file). The claims are thus
//! the accountants' own statements (DP-SGD's ε is 0.9999999999, not 1).

use dp_playground::audit::{
    AuditReport, Auditable, Bug, GaussianMeanTarget, LaplaceMeanTarget,
    ObjectivePerturbationTarget, audit, base_config, dp_accmd_target, dp_gd_target, dp_sgd_target,
    dp_svrg_target, grid_target, output_perturbation_target, svrg_bb_target,
};
use dp_playground::config::{DomainChoice, RunConfig};
use dp_playground::privacy::calibration::GaussianMethod;
use dp_playground::rng::{Stream, seeded};
use dp_playground::solver::SolverKind;

const ALPHA: f64 = 1e-3;

fn run(target: &mut dyn Auditable, runs: usize, seed: u32) -> AuditReport {
    let r = audit(target, runs, ALPHA, &mut seeded(seed, Stream::Audit)).unwrap();
    println!(
        "claimed ε = {}, ε̂ = {:.3}, hits {} / {} of {}",
        r.claimed.epsilon,
        r.epsilon_lower,
        r.hits_numerator,
        r.hits_denominator,
        r.runs_per_side / 2
    );
    r
}

#[test]
fn gaussian_mechanism_correct_passes_and_halved_sigma_is_caught() {
    // ε = 3, δ = 1e-5 with n = 100, C = 1 (Δ = 0.02). Correct mechanisms measured ε̂ ≈ 1.6-1.8
    // (the Gaussian's loss beyond ε sits in δ-sized tails no finite audit sees). Halving σ
    // doubles the GDP parameter μ = Δ/σ to ≈ 1.4 (ZWB) / 1.6 (analytic); the best threshold then
    // has a likelihood ratio ≈ e^4, and with 10⁵ runs per side ε̂ measured 3.3-3.9 > 3.
    for (method, seed) in [(GaussianMethod::Zwb, 1), (GaussianMethod::Analytic, 3)] {
        let mut ok = GaussianMeanTarget::new(100, 1.0, 3.0, 1e-5, method, Bug::None).unwrap();
        let r = run(&mut ok, 100_000, seed);
        assert!(!r.violation, "{method:?}: {r:?}");
    }
    let mut bad = GaussianMeanTarget::new(
        100,
        1.0,
        3.0,
        1e-5,
        GaussianMethod::Analytic,
        Bug::NoiseHalved,
    )
    .unwrap();
    let r = run(&mut bad, 100_000, 2);
    assert!(r.violation, "{r:?}");
    let mut classical =
        GaussianMeanTarget::new(100, 1.0, 1.0, 1e-5, GaussianMethod::Classical, Bug::None).unwrap();
    assert!(!run(&mut classical, 50_000, 3).violation);
}

#[test]
fn laplace_mechanism_correct_passes_and_halved_scale_is_caught() {
    // Pure ε = 1: beyond the pair's two means the likelihood ratio of the Laplace is exactly
    // e^ε, so a correct mechanism measured ε̂ ≈ 0.96 (d = 1) and the halved scale ≈ 1.9, with
    // 10⁵ runs. With the ℓ2-Laplace in d = 3 the first coordinate is a weaker statistic
    // (0.65 vs 1.5); 4·10⁴ runs per side keep the halved case clear of 1.
    for d in [1, 3] {
        let mut ok = LaplaceMeanTarget::new(100, 1.0, 1.0, d, Bug::None).unwrap();
        let r = run(&mut ok, 40_000, 4);
        assert!(!r.violation, "d = {d}: {r:?}");
        let mut bad = LaplaceMeanTarget::new(100, 1.0, 1.0, d, Bug::NoiseHalved).unwrap();
        let r = run(&mut bad, 40_000, 5);
        assert!(r.violation, "d = {d}: {r:?}");
    }
}

#[test]
fn skipped_clipping_is_caught_in_mechanisms_and_in_noisy_gd() {
    // The unclipped record sits 20 bounds away: the means move 10.5 sensitivities, so even
    // 10⁴ runs give ε̂ ≫ 1 (measured ≈ 5-8).
    let mut g = GaussianMeanTarget::new(
        100,
        1.0,
        1.0,
        1e-5,
        GaussianMethod::Analytic,
        Bug::ClippingSkipped,
    )
    .unwrap();
    assert!(run(&mut g, 10_000, 6).violation);
    let mut l = LaplaceMeanTarget::new(100, 1.0, 1.0, 1, Bug::ClippingSkipped).unwrap();
    assert!(run(&mut l, 10_000, 7).violation);

    // Whole algorithm: noisy GD, n = 20, T = 3, (1, 1e-5). Correct: ε̂ ≈ 0 (the pair moves the
    // release by ≈ 0.1 per step against σ ≈ 0.84). Unclipped: the x = 50 record's gradient is
    // up to 50× the bound, ε̂ measured ≈ 4.5 with 10⁴ runs; 4000 runs still give ≈ 3 (3.09
    // through the page's path). The skip is DP-GD's demonstration (the config's `leak`: features
    // unclipped, `DpGdLeak::NoClipping`; its ledger says NOT PRIVATE).
    let gd = |leak| {
        dp_gd_target(RunConfig {
            steps: 3,
            leak,
            ..base_config(20, 1.0, 1e-5)
        })
        .unwrap()
    };
    let r = run(&mut gd(false), 4_000, 8);
    assert!(!r.violation, "{r:?}");
    let mut bad = gd(true);
    let r = run(&mut bad, 4_000, 9);
    assert!(r.violation, "{r:?}");
}

#[test]
fn dp_sgd_passes_on_the_worst_case_pair_and_skipped_clipping_is_caught() {
    // Add/remove, n = 10 (q = 0.5), one step, (1, 1e-5): the release is the Poisson-subsampled
    // Gaussian on a sensitivity-C sum, the mechanism the accountant is tight for. Correct: ε̂
    // must stay ≤ 1 (it can exceed only with probability α). Unclipped: with probability q the
    // canary shifts the sum by ≈ 25C ≈ 7 noise sds, so 10⁴ runs give ε̂ ≫ 1. Measured: ε̂ = 0.01
    // (correct, 2·10⁴ runs), 5.7 (unclipped, 10⁴ runs), 0.10 (T = 20, 5000 runs). The unclipped
    // run is DP-SGD's demonstration (the config's `leak`).
    let sgd = |n, batch, steps, leak| {
        dp_sgd_target(RunConfig {
            batch,
            steps,
            leak,
            ..base_config(n, 1.0, 1e-5)
        })
        .unwrap()
    };
    let r = run(&mut sgd(10, 5, 1, false), 20_000, 10);
    assert!(!r.violation, "{r:?}");
    let mut bad = sgd(10, 5, 1, true);
    let r = run(&mut bad, 10_000, 11);
    assert!(r.violation, "{r:?}");
    // Several steps compose: T = 20 at q = 0.1 still passes.
    assert!(!run(&mut sgd(20, 2, 20, false), 5_000, 12).violation);
}

#[test]
fn certified_dp_svrg_passes_and_skipped_clipping_is_caught() {
    // Add/remove with public n = 10, b = 5 (q = 0.5), one epoch of m = n/b = 2 steps (the page's
    // epoch length; the hand-built target ran m = 3), (1, 1e-5). Correct: ε̂ must stay ≤ 1
    // (fails only with probability α). Unclipped canary (x = 50, planted: DP-SVRG has no clipping
    // demonstration): the anchor alone moves by ≈ 2.5 per step against a noise std below 1, so
    // 10⁴ runs give ε̂ ≫ 1. Measured: ε̂ = 0.0 (correct: the certified σ is large at q = 0.5; a
    // weak but valid pass) and 2.75 (unclipped; 409 vs 8 hits of 5000; 3.6 at m = 3).
    let config = RunConfig {
        batch: 5,
        steps: 1,
        ..base_config(10, 1.0, 1e-5)
    };
    let mut ok = dp_svrg_target(config.clone(), Bug::None).unwrap();
    let r = run(&mut ok, 20_000, 13);
    assert!(!r.violation, "{r:?}");
    let mut bad = dp_svrg_target(config, Bug::ClippingSkipped).unwrap();
    let r = run(&mut bad, 10_000, 14);
    assert!(r.violation, "{r:?}");
}

#[test]
fn dp_accmd_passes_in_both_geometries_and_the_exact_gradient_y_step_is_caught() {
    // Replace-one, n = 10, (1, 1e-5), the Huber pair whose gradients differ by exactly 2G/n
    // everywhere. Correct (the private coupling), T = 3, ℓ2 and ℓ1 (entropic) geometries: ε̂ must
    // stay ≤ 1 (fails only with probability α). The paper's exact-gradient y-step at T = 1
    // releases ±1/n deterministically, so the two samples are disjoint and ε̂ ≈ ln of the runs.
    // Measured: ε̂ = 0.18 (ℓ2) and 0.14 (ℓ1) correct; 5.57 for the leak in both geometries.
    for (domain, seed) in [(DomainChoice::L2Ball, 16), (DomainChoice::L1Ball, 17)] {
        let accmd = |steps, leak| {
            dp_accmd_target(RunConfig {
                steps,
                leak,
                domain,
                ..base_config(10, 1.0, 1e-5)
            })
            .unwrap()
        };
        let r = run(&mut accmd(3, false), 20_000, seed);
        assert!(!r.violation, "{domain:?}: {r:?}");
        let mut bad = accmd(1, true);
        let r = run(&mut bad, 4_000, seed + 100);
        assert!(r.violation, "{domain:?}: {r:?}");
    }
}

#[test]
fn svrg_bb_step_sizes_from_exact_gradients_are_caught() {
    // Certified DP-SVRG++ (add/remove, n = 10, b = 5, T = 2 epochs, m = 2, so N = 12 releases),
    // (1, 1e-5), declared η = 1e-3 on the canary pair. Correct: both sides keep η, ε̂ must stay
    // ≤ 1. SVRG-BB from exact gradients: on D (all gradients 0) the BB step is undefined and η
    // stays 1e-3; on D′ the canary's curvature makes η ≈ 4n/m₁ = 5, so the releases differ in
    // scale a thousandfold and even 2000 runs give ε̂ ≫ 1.
    let bb = |leak| {
        svrg_bb_target(RunConfig {
            batch: 5,
            steps: 2,
            leak,
            ..base_config(10, 1.0, 1e-5)
        })
        .unwrap()
    };
    let r = run(&mut bb(false), 10_000, 18);
    assert!(!r.violation, "{r:?}");
    let mut bad = bb(true);
    let r = run(&mut bad, 2_000, 19);
    assert!(r.violation, "{r:?}");
}

#[test]
fn objective_perturbation_passes_on_its_pair() {
    // Pure ε = 1, replace-one, n = 10, Λ = 0.1 (ε′ = 1 − 2 ln 1.25 = 0.554 on the noise).
    // Correct: ε̂ must stay ≤ 1 (fails only with probability α); measured 0.21. (The planted
    // "noise halved" measured only 0.50 with 2·10⁴ runs: this pair is not strong enough to
    // catch it, so no assertion is made about it.)
    let mut ok = ObjectivePerturbationTarget::new(10, 1.0, Bug::None).unwrap();
    let r = run(&mut ok, 20_000, 15);
    assert!(!r.violation, "{r:?}");
}

#[test]
fn output_perturbation_as_the_page_plans_it_passes_on_the_tight_pair() {
    // The page's run (its default accuracy α, Planned::build) on output perturbation's pair,
    // where Δ_F = 2L/(λn) = 0.2 is attained (tests/algorithms/output_perturbation.rs audits the same pair at
    // a tighter α, and the planted certificate skip). Pure ε = 1, n = 100. The default α gives
    // ρ = √(2α/λ) = 0.14 and Δ_T = Δ_F + 2ρ = 0.48, and since ρ exceeds ‖w*‖ = 0.1 the solver
    // may certify close to its start w = 0 on both sides: the releases' centres are much closer
    // than Δ_F, so this is a weak pass (measured ε̂ = 0.00 with 5000 runs), kept cheap. It must
    // pass: it fails only with probability α.
    let mut ok = output_perturbation_target(RunConfig {
        solver: SolverKind::Agd,
        ..base_config(100, 1.0, 0.0)
    })
    .unwrap();
    let r = run(&mut ok, 5_000, 20);
    assert!(!r.violation, "{r:?}");
}

#[test]
fn grid_mechanism_with_the_largest_label_bound_passes() {
    // The pair (n = 100, ε = 1, Δ = 2LR/n = 0.04) at the largest declared label bound the
    // config accepts (10⁶): the per-record scores keep both sides concentrated at 1.5 (exact
    // worst log-ratio ≤ 1). The raw-F-score bug this pair caught at a label of 10¹⁸ (D′'s F
    // constant to the last bit) cannot be reached since the label bound is capped at 10⁶.
    let mut ok = grid_target(100, 1.0).unwrap();
    let r = run(&mut ok, 10_000, 11);
    assert!(!r.violation, "{r:?}");
}

/// The large-N version: every calibration, more runs, more seeds (≈ 1 min in debug).
#[test]
#[ignore]
fn large_audit_of_every_gaussian_calibration() {
    for seed in 10..14 {
        for method in [GaussianMethod::Zwb, GaussianMethod::Analytic] {
            for eps in [0.5, 3.0] {
                let mut ok =
                    GaussianMeanTarget::new(100, 1.0, eps, 1e-5, method, Bug::None).unwrap();
                assert!(!run(&mut ok, 1_000_000, seed).violation);
            }
            let mut bad =
                GaussianMeanTarget::new(100, 1.0, 3.0, 1e-5, method, Bug::NoiseHalved).unwrap();
            assert!(run(&mut bad, 1_000_000, seed + 100).violation);
        }
        let mut c =
            GaussianMeanTarget::new(100, 1.0, 1.0, 1e-5, GaussianMethod::Classical, Bug::None)
                .unwrap();
        assert!(!run(&mut c, 1_000_000, seed).violation);
    }
}
