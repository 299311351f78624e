//! Issue 15's rate experiment (Lowy 2026, "Optimal Rates for Pure ε-Differentially Private
//! Stochastic Convex Optimization with Heavy Tails"): on Pareto-radial features with tail index
//! α = 3 and k = 2, Localized Double Output Perturbation's excess population risk against n,
//! fitted on log-log axes (excess empirical risk), beside the pure-ε clipped GD baseline and the single-stage output
//! perturbation on f_C at the same ε, all run through the session as the page runs them.
//!
//! Ignored by default. Run with
//!
//! ```text
//! cargo test --release --test heavy_slopes -- --ignored --nocapture
//! ```
//!
//! Theorem 3.1's bound at k = 2 is G_k·D·(d/(nε))^(1/2) + G₂·D/√n: slope −1/2 in n.
//!
//! Why the slope is out of reach at these n: with the constants the proofs carry, the default λ₁
//! (`calibrated_lambda`) puts phase 1's release a/λ₁ ≈ D/√32 ≈ 1.37 from its target at every n
//! (both scale as n^(−1/2)), and the localisation bound D·√(2S) it minimises is 22, 11 and 5.5 at
//! n = 4000, 16 000 and 64 000 (ε = 1, d = 2, D = 8, G₂ = 0.87): above the trivial D·G₁ = 6 until
//! n ≈ 64 000. Later phases pull the centre back only where λ_t = 32^(t−1)·λ₁ is below the
//! problem's curvature, which needs far larger nε; until then phase 1's noise sets the excess.
//!
//! Measured (24 s in release; mean excess empirical risk over 4 seeds × 4 repeats, ε = 1):
//!
//! | n | localized | clipped GD, T = 50 | single stage |
//! |---|---|---|---|
//! | 4000 | 0.206 | 0.0196 | 0.538 |
//! | 16 000 | 0.162 | 0.0137 | 0.526 |
//! | 64 000 | 0.117 | 0.0129 | 0.525 |
//! | slope | −0.20 | −0.15 | −0.01 |

mod common;

use common::slope;
use dp_playground::config::{AlgorithmKind, RunConfig};
use dp_playground::data::Tail;
use dp_playground::session::Lab;
use dp_playground::session::problem::ReferenceClock;

/// Pareto-radial features (α = 3: G_k finite for k < 3), logistic loss, k = 2, on the ball of
/// radius `radius`, at ε, with every heavy-tail family as a lane.
fn config(n: usize, epsilon: f64, radius: f64, l2: f64, seed: u32, repeats: usize) -> RunConfig {
    RunConfig {
        seed,
        n,
        d: 2,
        tail: Tail::ParetoRadial { alpha: 3.0 },
        feature_scale: 0.5,
        feature_bound: 1e3,
        radius,
        l2,
        moment_k: 2.0,
        delta: 0.0,
        epsilon,
        steps: 50,
        repeats,
        algorithm: AlgorithmKind::LocalizedDoubleOutputPerturbation,
        compare: vec![
            AlgorithmKind::PureClippedGd,
            AlgorithmKind::OutputPerturbationLipschitzExtension,
        ],
        ..RunConfig::default()
    }
}

/// Sums of each lane's released excess empirical risk F̂(w) − F̂*, and the count of releases. (The
/// population estimate, on 10n fresh records, exceeds its work cap from n = 16 000 on.)
fn run(config: RunConfig, sums: &mut [(f64, usize)]) {
    // The population optimum under the work cap only, not the page's 2 s clock: a loaded machine
    // would otherwise leave it out.
    let mut lab = Lab::with_clock(config.clone(), None, ReferenceClock::WorkOnly)
        .unwrap_or_else(|e| panic!("{config:?}: {e}"));
    while !lab.is_done() {
        for lane in lab.advance(usize::MAX, || true) {
            if let Some(excess) = lane.batch.release.as_ref().and_then(|r| r.excess) {
                sums[lane.algorithm].0 += excess;
                sums[lane.algorithm].1 += 1;
            }
        }
    }
}

/// The mean excess population risk per lane at each n (seeds × repeats each), printed.
fn table(
    ns: &[usize],
    epsilon: f64,
    radius: f64,
    l2: f64,
    seeds: u32,
    repeats: usize,
) -> Vec<Vec<f64>> {
    println!(
        "ε = {epsilon}, R = {radius}, l2 = {l2}: n, localized, clipped GD (T = 50), single stage"
    );
    ns.iter()
        .map(|&n| {
            let mut sums = vec![(0.0, 0usize); 3];
            for seed in 1..=seeds {
                run(config(n, epsilon, radius, l2, seed, repeats), &mut sums);
            }
            let means: Vec<f64> = sums.iter().map(|(s, c)| s / *c as f64).collect();
            println!("{n:>7} {:.4e} {:.4e} {:.4e}", means[0], means[1], means[2]);
            means
        })
        .collect()
}

/// The experiment of the issue's acceptance: ε = 1, R = 4, n from 4000 to 64 000, 4 seeds × 4
/// repeats per cell. It prints the table and the fitted slopes; it asserts only that every cell
/// was scored (the reference solved) and that the localized release beats the trivial
/// excess D·G₁ = 8·0.75 = 6, because the acceptance's slope is not reached at these n (see the
/// module docs).
#[test]
#[ignore = "slope experiment, minutes in release: see the module docs for the command"]
fn localized_double_output_perturbation_against_clipped_gd_in_n() {
    let ns = [4000, 16_000, 64_000];
    let rows = table(&ns, 1.0, 4.0, 0.01, 4, 4);
    let xs: Vec<f64> = ns.iter().map(|&n| n as f64).collect();
    for (lane, name) in ["localized", "clipped GD", "single stage"]
        .iter()
        .enumerate()
    {
        let ys: Vec<f64> = rows.iter().map(|r| r[lane]).collect();
        assert!(ys.iter().all(|y| y.is_finite()), "{name}: {ys:?}");
        println!("{name}: slope {:.3}", slope(&xs, &ys));
    }
    assert!(rows.iter().all(|r| r[0] < 6.0), "{rows:?}");
}

/// A free exploration: HEAVY_EPS, HEAVY_RADIUS, HEAVY_NS (comma-separated) from the environment.
#[test]
#[ignore = "exploration: set HEAVY_EPS, HEAVY_RADIUS, HEAVY_NS"]
fn explore() {
    let get = |k: &str, d: &str| std::env::var(k).unwrap_or_else(|_| d.to_string());
    let epsilon: f64 = get("HEAVY_EPS", "1").parse().unwrap();
    let radius: f64 = get("HEAVY_RADIUS", "4").parse().unwrap();
    let ns: Vec<usize> = get("HEAVY_NS", "4000,16000,64000")
        .split(',')
        .map(|s| s.parse().unwrap())
        .collect();
    let seeds: u32 = get("HEAVY_SEEDS", "4").parse().unwrap();
    let repeats: usize = get("HEAVY_REPEATS", "4").parse().unwrap();
    let l2: f64 = get("HEAVY_L2", "0.01").parse().unwrap();
    let rows = table(&ns, epsilon, radius, l2, seeds, repeats);
    let xs: Vec<f64> = ns.iter().map(|&n| n as f64).collect();
    for (lane, name) in ["localized", "clipped GD", "single stage"]
        .iter()
        .enumerate()
    {
        let ys: Vec<f64> = rows.iter().map(|r| r[lane]).collect();
        println!("{name}: slope {:.3}", slope(&xs, &ys));
    }
}
