//! Lowy 2026's phased grid families (`algo::heavy_tails::em_phases`: EM-PGM and the localised
//! approximate exponential mechanism) planned from the page's configuration and run.

use crate::algo::PrivateAlgorithm;
use crate::algo::heavy_tails::call_declared::CallDeclared;
use crate::algo::heavy_tails::em_pgm::{Block, EmPgm, EmPgmPlan};
use crate::algo::heavy_tails::em_phases::*;
use crate::algo::kinds::AlgorithmKind;
use crate::config::RunConfig;
use crate::data::Dataset;
use crate::domain::L2Ball;
use crate::linalg::{dist2, norm2};
use crate::loss::Logistic;
use crate::objective::Objective;
use crate::rng::{Stream, seeded};
use std::sync::Arc;

/// n records on the ellipse (cos a, ½ sin a), a = 0.37·i, labels −1 at every third, the first
/// record replaced by `first` (the records of `em_pgm`'s tests).
fn records(n: usize, first: ([f64; 2], f64)) -> Dataset {
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for i in 0..n {
        let a = i as f64 * 0.37;
        xs.extend_from_slice(&[libm::cos(a), 0.5 * libm::sin(a)]);
        ys.push(if i % 3 == 0 { -1.0 } else { 1.0 });
    }
    xs[0] = first.0[0];
    xs[1] = first.0[1];
    ys[0] = first.1;
    Dataset::from_samples(2, xs, ys).unwrap()
}

/// The page's config for a grid family at n records (d = 2, ‖x‖ ≤ 1 declared).
fn config(kind: AlgorithmKind, n: usize, repetitions: usize) -> RunConfig {
    let base = RunConfig {
        n,
        d: 2,
        feature_bound: 1.0,
        l2: 0.01,
        grid_resolution: 15,
        delta: 0.0,
        repetitions,
        ..RunConfig::default()
    };
    crate::config::menu::pick(&base, kind).0
}

fn plan_of(kind: AlgorithmKind, call: GridCall, n: usize, j: usize) -> PhasedGridPlan {
    let c = config(kind, n, j);
    phased_plan(&c.settings(), &c.declaration(), call).unwrap()
}

#[test]
fn the_phases_epsilons_compose_in_parallel_to_the_stated_epsilon() {
    // Every call is ε-DP on its own block; the blocks of all phases are disjoint and inside
    // the n records, so the total is the largest per-phase ε (= ε), never their sum.
    for (kind, call) in [
        (AlgorithmKind::EmPgm, GridCall::Pgm),
        (AlgorithmKind::LocalisedApproxEm, GridCall::Approx),
    ] {
        for j in [1, 3] {
            let plan = plan_of(kind, call, 4000, j);
            let eps = plan.phase_epsilons();
            assert!(eps.len() >= 3, "{call:?}: {} phases", eps.len());
            assert!(eps.iter().all(|&e| e == 1.0), "{eps:?}");
            assert_eq!(plan.composed_epsilon(), 1.0);
            assert_eq!(plan.guarantee().epsilon, 1.0);
            assert!(eps.iter().sum::<f64>() > plan.guarantee().epsilon);
            // Disjoint blocks: each phase's J·m records start after the last phase's end.
            let mut end = 0;
            for p in plan.phases() {
                assert!(p.offset >= end, "phase {} overlaps", p.t);
                end = p.offset + j * p.m;
            }
            assert!(end <= 4000);
            // The ledger states each phase's ε and the composed total.
            let run = PhasedGrid::new(plan.clone(), seeded(1, Stream::Noise), true).unwrap();
            let ledger = run.ledger();
            for p in plan.phases() {
                assert!(
                    ledger
                        .caveats
                        .iter()
                        .any(|c| c.starts_with(&format!("phase {}:", p.t))
                            && c.contains("ε = 1 per call")),
                    "{:?}",
                    ledger.caveats
                );
            }
            assert!(ledger.caveats.iter().any(|c| {
                c.starts_with("composed: ε = 1 = the largest per-phase ε (parallel composition")
            }));
            // The noise law counts J draws per phase (Algorithm 7: J localisations too).
            let per_phase = if call == GridCall::Pgm { 1 } else { 2 };
            assert_eq!(plan.draws().len(), per_phase * plan.phases().len());
            assert!(plan.draws().iter().all(|d| d.count == j));
        }
    }
}

/// Runs `plan` on `data` to its release; returns the centres w̄₁, w̄₂, ….
fn run(plan: PhasedGridPlan, data: Dataset, seed: u32) -> Vec<Vec<f64>> {
    let radius = plan.schedule.radius;
    let objective = Objective::new(
        Arc::new(data),
        Box::new(Logistic),
        plan.schedule.l2,
        Box::new(L2Ball { radius }),
        1.0,
    );
    let mut alg = PhasedGrid::new(plan, seeded(seed, Stream::Noise), true).unwrap();
    while alg.step(&objective).is_some() {}
    assert!(alg.is_done());
    assert!(alg.ledger().is_private(), "{:?}", alg.ledger());
    assert_eq!(alg.current(), alg.centres().last().unwrap().as_slice());
    alg.centres().to_vec()
}

#[test]
fn a_seeded_run_shrinks_phase_after_phase_and_releases_in_w() {
    let n = 4000;
    for (kind, call) in [
        (AlgorithmKind::EmPgm, GridCall::Pgm),
        (AlgorithmKind::LocalisedApproxEm, GridCall::Approx),
    ] {
        let plan = plan_of(kind, call, n, 1);
        let radius = plan.schedule.radius;
        let phases = plan.phases().to_vec();
        let centres = run(plan.clone(), records(n, ([1.0, 0.0], 1.0)), 7);
        assert_eq!(centres.len(), phases.len() + 1);
        let jumps: Vec<f64> = centres.windows(2).map(|w| dist2(&w[0], &w[1])).collect();
        println!("{call:?}: jumps {jumps:?}");
        // The release lies in W.
        assert!(norm2(centres.last().unwrap()) <= radius * (1.0 + 1e-12));
        // The localised grid shrinks (r_t falls ≥ 20-fold per phase) and holds each jump.
        if call == GridCall::Pgm {
            for (p, next) in phases.iter().zip(&phases[1..]) {
                assert!(plan.grid_radius(next) < plan.grid_radius(p) / 20.0);
            }
            for (jump, p) in jumps.iter().zip(&phases) {
                assert!(*jump <= plan.grid_radius(p) * (1.0 + 1e-12), "{jump}");
            }
        }
        // The centre moves less and less: every late jump is below the first one.
        let late = &jumps[jumps.len() / 2..];
        assert!(
            late.iter().all(|&j| j < jumps[0] / 10.0),
            "{call:?}: {jumps:?}"
        );
    }
}

/// `base` with record `i` replaced by a far outlier of the opposite label.
fn replaced(base: &Dataset, i: usize) -> Dataset {
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for (j, (x, y)) in base.samples().enumerate() {
        if j == i {
            xs.extend_from_slice(&[1e4, -3e3]);
            ys.push(-y);
        } else {
            xs.extend_from_slice(x);
            ys.push(y);
        }
    }
    Dataset::from_samples(2, xs, ys).unwrap()
}

#[test]
fn a_call_reads_its_block_only_and_is_epsilon_dp_on_it() {
    // One EM-PGM call of Algorithm 1 on records 40..100 around a released centre: a record
    // replaced outside the block leaves every grid probability exactly as it was; one inside
    // moves each by at most ε (and by a good share of it: the bound is not vacuous).
    let plan = plan_of(AlgorithmKind::EmPgm, GridCall::Pgm, 4000, 1);
    let phase = plan.phases()[1];
    let full = plan.pgm_call(&phase);
    let call = EmPgmPlan {
        declared: CallDeclared {
            n: 60,
            ..full.declared
        },
        ..full
    };
    let centre = vec![0.3, -0.2];
    let alg = EmPgm::in_phase(
        call,
        Block {
            start: 40,
            centre: centre.clone(),
        },
        1.5,
        seeded(1, Stream::Noise),
        true,
    )
    .unwrap();
    assert!(
        alg.grid()
            .chunks_exact(2)
            .all(|w| dist2(w, &centre) <= 1.5 && norm2(w) <= call.declared.radius)
    );
    let data = records(200, ([1.0, 0.0], 1.0));
    let base = alg.log_probabilities(&data).unwrap();
    let outside = alg.log_probabilities(&replaced(&data, 20)).unwrap();
    assert_eq!(base, outside);
    let inside = alg.log_probabilities(&replaced(&data, 70)).unwrap();
    let worst = base
        .iter()
        .zip(&inside)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    println!("worst log-ratio {worst:.4} ≤ ε = {}", call.declared.epsilon);
    assert!(worst <= call.declared.epsilon * (1.0 + 1e-9) && worst > 0.1 * call.declared.epsilon);
}
