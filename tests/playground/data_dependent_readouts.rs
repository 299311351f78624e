//! The readouts of a run's length — the page's step counter (gradient
//! evaluations in passes) and the ε-spent plot (ε after each step t) — are labelled NOT PRIVATE
//! for every family whose length is not fixed by the settings
//! ([`readouts::length_depends_on_data`]). A family the function calls fixed must advance the
//! same on other data and other noise: three seeds (each its own data and its own noise) and two
//! noise draws give the same counter and the same curve, or the test names the family.
#![cfg(not(target_arch = "wasm32"))]

use crate::edges;

use dp_playground::config::{AlgorithmKind, RunConfig};
use dp_playground::session::{Lab, readouts};

/// The page's step counter at the release and the ε-spent curve of the main lane, to its end.
fn readouts_of(config: &RunConfig) -> (Vec<u64>, Vec<u64>) {
    let mut lab = Lab::new(config.clone(), None).unwrap_or_else(|e| panic!("{config:?}: {e}"));
    let (mut counter, mut curve) = (Vec::new(), Vec::new());
    while !lab.is_done() {
        for lane in lab.advance(usize::MAX, || true) {
            if lane.algorithm == 0 {
                counter.extend(lane.batch.grad_evals.iter().map(|v| v.to_bits()));
                for (t, e) in lane.batch.t.iter().zip(&lane.batch.epsilon_spent) {
                    curve.extend([t.to_bits(), e.to_bits()]);
                }
            }
        }
    }
    (counter, curve)
}

/// Every family's base config (the menu's pick on a small problem), with the seed and draw.
fn base(kind: AlgorithmKind) -> RunConfig {
    edges::configs(kind)
        .into_iter()
        .next()
        .map(|(_, c)| c)
        .unwrap_or_else(|| panic!("{kind:?} has no config"))
}

#[test]
fn a_family_called_fixed_length_advances_alike_on_other_data_and_noise() {
    let mut varied = Vec::new();
    for kind in edges::kinds() {
        let config = base(kind);
        let runs: Vec<(Vec<u64>, Vec<u64>)> = [(1, 0), (2, 0), (3, 0), (1, 1)]
            .into_iter()
            .map(|(seed, noise_draw)| {
                readouts_of(&RunConfig {
                    seed,
                    noise_draw,
                    ..config.clone()
                })
            })
            .collect();
        let differs = runs.iter().any(|r| r != &runs[0]);
        if differs {
            varied.push(kind);
        }
        assert!(
            !differs || readouts::length_depends_on_data(kind),
            "{kind:?}: its step counter or ε-spent curve moved with the data or the noise, but \
             `length_depends_on_data` calls it fixed, so the page would show it unlabelled"
        );
    }
    // Not vacuous: lengths do move at these settings (objective perturbation's and Zhang et
    // al.'s solvers run until certified, Lowy & Razaviyayn's Algorithm 8 until its certificate).
    println!("lengths that moved: {varied:?}");
    for kind in [
        AlgorithmKind::ObjectivePerturbation,
        AlgorithmKind::ByoaMinimax,
        AlgorithmKind::AdversarialTraining,
    ] {
        assert!(varied.contains(&kind), "{kind:?}: its length never moved");
    }
}
