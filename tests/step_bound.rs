//! One step of every family is bounded, so that the page's slices
//! (`advance(max_steps, budget_ms)`: steps until the budget of ~8 ms is spent, at least one) hold
//! their budget for all 27. A slice checks its clock between steps, so a slice overruns its
//! budget by at most one step: the step is what must be short.
//!
//! Timed, so ignored in the ordinary suite (a loaded machine would fail it for nothing):
//!
//! ```sh
//! cargo test --test step_bound -- --ignored --nocapture
//! ```
//!
//! It prints the slowest step of every family at each setting and fails above [`STEP_BOUND`].
#![cfg(not(target_arch = "wasm32"))]

use std::time::{Duration, Instant};

use dp_playground::algo::registry;
use dp_playground::config::{AlgorithmKind, ProblemKind, RunConfig};
use dp_playground::session::Session;

/// The slowest step allowed, in this (test, opt-level 1) build: the page's release build is
/// several times faster, so a step under this is under the page's slice in a tab.
const STEP_BOUND: Duration = Duration::from_millis(250);

/// Steps timed per run (the first ones, where the heavy-tail families' first phases work on
/// their largest blocks).
const STEPS: usize = 40;

/// The settings each family is timed at: the issue's heavy-tail case (n = 400, J = 101: the most
/// repetitions, blocks of a few records), many records (n·d = 2·10⁶), and a game of the largest
/// dimension the slider offers.
fn settings() -> Vec<(&'static str, RunConfig)> {
    vec![
        (
            "n = 400, J = 101",
            RunConfig {
                n: 400,
                repetitions: 101,
                ..RunConfig::default()
            },
        ),
        (
            "n = 10⁵, d = 20",
            RunConfig {
                n: 100_000,
                d: 20,
                ..RunConfig::default()
            },
        ),
        (
            "a game, n = 2000, d = 20",
            RunConfig {
                problem: ProblemKind::Saddle,
                n: 2000,
                d: 20,
                ..RunConfig::default()
            },
        ),
    ]
}

#[test]
#[ignore]
fn every_familys_step_at_large_settings_stays_within_a_bound() {
    let mut slow = Vec::new();
    for (name, raw) in settings() {
        for kind in AlgorithmKind::ALL {
            let (config, _) = registry::pick(&raw, kind);
            if config.validate().is_err() || dp_playground::session::preview(&config).is_err() {
                println!("{name:>26} {:>44}: refused", kind.key());
                continue;
            }
            let Ok(mut run) = Session::new(config) else {
                println!("{name:>26} {:>44}: not built", kind.key());
                continue;
            };
            let mut worst = Duration::ZERO;
            for _ in 0..STEPS {
                let start = Instant::now();
                let batch = run.advance(1, || true);
                worst = worst.max(start.elapsed());
                if batch.done {
                    break;
                }
            }
            println!(
                "{name:>26} {:>44}: slowest step {:>8.1} ms",
                kind.key(),
                worst.as_secs_f64() * 1e3
            );
            if worst > STEP_BOUND {
                slow.push(format!("{} at {name}: {worst:?}", kind.key()));
            }
        }
    }
    assert!(
        slow.is_empty(),
        "steps over {STEP_BOUND:?}:\n{}",
        slow.join("\n")
    );
}
