//! The saddle families' rate experiments, run through the session as the page runs them: the released
//! pair's exact empirical duality gap against n, fitted on log-log axes.
//!
//! - González, Guzmán & Paquette 2024, Algorithm 1 (private SMD, preset (7) of a bilinear game):
//!   Theorem 3.1's gap (L₀ + L₁)[√(ℓ/n) + (ℓ^{3/2}√log(1/δ)/(nε))^{1/2}] has slope −1/2 in n.
//! - Zhang, Thekumparampil, Oh & He 2022, Algorithm 3 (SC-SC output perturbation): the release is
//!   the certified saddle point plus Gaussian noise of σ ∝ 1/n, and the strongly convex–strongly
//!   concave gap is quadratic in that noise, so slope −2 (Theorem 4.4's κ²L²d log(1/δ)/(μn²ε²)).
//!
//! Ignored by default. Run with
//!
//! ```text
//! cargo test --release --test algorithms saddle_slopes:: -- --ignored --nocapture
//! ```
//!
//! Each cell is the mean over 12 seeds (each seed draws its own records and its own noise).
//! Measured (≈ 5 s in release): private SMD −0.476 at ε = 100 (see the test for ε = 1); SC-SC
//! output perturbation −1.924 at ε = 1 (gap 3.0 at n = 500, 0.0147 at n = 8000).

use crate::common;

use common::slope;
use dp_playground::algo::family::ProblemKind;
use dp_playground::config::{AlgorithmKind, GameChoice, RunConfig};
use dp_playground::session::Lab;

const SEEDS: u32 = 12;

/// The released pair's exact gap, run to the end through the session.
fn released_gap(config: &RunConfig) -> f64 {
    let mut lab = Lab::new(config.clone(), None).unwrap_or_else(|e| panic!("{config:?}: {e}"));
    let mut gap = None;
    while !lab.is_done() {
        for lane in lab.advance(usize::MAX, || true) {
            if let Some(r) = lane.batch.release {
                gap = r.excess;
            }
        }
    }
    gap.expect("a scored release")
}

/// Mean released gap at each n, its fitted slope, and the table printed.
fn slope_in_n(base: RunConfig, ns: &[usize]) -> f64 {
    let means: Vec<f64> = ns
        .iter()
        .map(|&n| {
            let total: f64 = (1..=SEEDS)
                .map(|seed| {
                    released_gap(&RunConfig {
                        n,
                        seed,
                        ..base.clone()
                    })
                })
                .sum();
            let mean = total / f64::from(SEEDS);
            println!(
                "{:?}: n = {n:>6}, mean released gap {mean:.4e}",
                base.algorithm
            );
            mean
        })
        .collect();
    let xs: Vec<f64> = ns.iter().map(|&n| n as f64).collect();
    let s = slope(&xs, &means);
    println!("{:?}: slope in n {s:.3}", base.algorithm);
    s
}

#[test]
#[ignore = "slope experiment: see the module docs for the command"]
fn private_smd_gap_falls_as_n_to_the_minus_one_half() {
    let base = RunConfig {
        problem: ProblemKind::Saddle,
        game: GameChoice::RandomMatrix,
        d: 10,
        algorithm: AlgorithmKind::PrivateSmd,
        // At ε = 1 the theorem's bound exceeds the uniform start's gap for every n ≤ 32 000 and
        // the measured gap sits on that plateau (0.285 → 0.261, slope −0.03): τ's privacy cap
        // keeps the log-weights near zero. At ε = 100 the bound binds and both of its terms fall
        // as n^{-1/2}. Measured: slope −0.476 (gap 0.087 at n = 2000, 0.022 at n = 32 000).
        epsilon: 100.0,
        delta: 1e-6,
        ..RunConfig::default()
    };
    let s = slope_in_n(base, &[2_000, 4_000, 8_000, 16_000, 32_000]);
    assert!((s + 0.5).abs() <= 0.15, "slope {s}");
}

#[test]
#[ignore = "slope experiment: see the module docs for the command"]
fn sc_sc_output_perturbation_gap_falls_as_n_to_the_minus_two() {
    let base = RunConfig {
        problem: ProblemKind::Saddle,
        game: GameChoice::BallGame,
        d: 3,
        radius: 1.0,
        mu_x: 0.5,
        mu_y: 0.5,
        algorithm: AlgorithmKind::ByoaMinimax,
        epsilon: 1.0,
        delta: 1e-6,
        ..RunConfig::default()
    };
    let s = slope_in_n(base, &[500, 1_000, 2_000, 4_000, 8_000]);
    assert!((s + 2.0).abs() <= 0.15, "slope {s}");
}
