//! The empirical audit of the saddle-point families, run as the page runs them (`GameTarget`: the
//! family's config on its game with record 0 planted at the declared bound's two extremes; the
//! claim is the plan's guarantee, each run built by `Planned::build`). α = 1e-3 and fixed seeds as
//! in `privacy_audit.rs`: a correct family fails only with probability ≤ α by construction; each
//! leak is caught by a wide margin (numbers in each test).

use dp_playground::algo::family::ProblemKind;
use dp_playground::audit::{AuditReport, Auditable, GameTarget, audit};
use dp_playground::config::{AlgorithmKind, GameChoice, RecordChoice, RunConfig};
use dp_playground::data::Tail;
use dp_playground::rng::{Stream, seeded};

const ALPHA: f64 = 1e-3;

fn run(target: &mut dyn Auditable, runs: usize, seed: u32) -> AuditReport {
    let started = std::time::Instant::now();
    let r = audit(target, runs, ALPHA, &mut seeded(seed, Stream::Audit)).unwrap();
    println!(
        "claimed ε = {}, ε̂ = {:.3}, hits {} / {} of {} ({:.1} s)",
        r.claimed.epsilon,
        r.epsilon_lower,
        r.hits_numerator,
        r.hits_denominator,
        r.runs_per_side / 2,
        started.elapsed().as_secs_f64()
    );
    r
}

/// Rock–paper–scissors in 3 strategies with n = 100 records.
fn small_game(algorithm: AlgorithmKind) -> RunConfig {
    RunConfig {
        problem: ProblemKind::Saddle,
        game: GameChoice::RockPaperScissors,
        d: 3,
        n: 100,
        algorithm,
        epsilon: 1.0,
        delta: 1e-5,
        ..RunConfig::default()
    }
}

#[test]
fn private_smd_passes_on_the_planted_pair() {
    // Measured: ε̂ = 0 with 20 000 runs a side (the draws' scores move by 2τL₀/B ≈ 0.006 per
    // coordinate on this pair: nowhere near the claim).
    let mut correct = GameTarget::new(small_game(AlgorithmKind::PrivateSmd)).unwrap();
    let r = run(&mut correct, 20_000, 1);
    assert!(!r.violation, "{r:?}");
}

#[test]
fn unclipped_heavy_records_are_caught() {
    // Student-t ν = 3 records, clipped: passes. Unclipped, the planted record is 1000c: every
    // draw after the first batch moves its score by ≈ 3 per coordinate, and the release's
    // y₁ − x₁ tells the games apart. Measured at ε = 0.5: ε̂ = 0 clipped, ε̂ = 1.26 unclipped.
    let heavy = RunConfig {
        records: RecordChoice::Heavy,
        tail: Tail::StudentT { nu: 3.0 },
        epsilon: 0.5,
        ..small_game(AlgorithmKind::PrivateSmd)
    };
    let r = run(&mut GameTarget::new(heavy.clone()).unwrap(), 20_000, 3);
    assert!(!r.violation, "{r:?}");
    let bare = RunConfig {
        clip_records: false,
        ..heavy
    };
    let r = run(&mut GameTarget::new(bare).unwrap(), 20_000, 4);
    assert!(r.violation, "{r:?}");
}

#[test]
fn bias_reduced_smd_passes_on_the_planted_pair() {
    // n = 2000: below it the privacy filter ends the run before a draw depends on the records.
    let config = RunConfig {
        n: 2000,
        ..small_game(AlgorithmKind::BiasReducedSmd)
    };
    let mut target = GameTarget::new(config).unwrap();
    let r = run(&mut target, 10_000, 5);
    assert!(!r.violation, "{r:?}");
}
