//! Every family of the registry at the corners of what the page accepts.
//!
//! For each family, its config as picked from the menu on a small problem (n = 60, d = 2, at
//! most 12 steps; a saddle family on rock–paper–scissors, worst-group logistic regression and
//! AUC maximisation where it runs them) is pushed to each corner below, then run through the
//! page's own path (plan and preview before the data; `Lab` to its end; the private export, as
//! the terminal's `run` writes it) at three noise draws of one seed. The ordinary suite runs
//! the corners of `edges::FAST` (and one planted value); the ignored full sweep runs them all. Every release must be
//! finite, differ between the draws (no noise skipped; for the grid mechanisms, whose releases
//! are grid points, only at ε = 1e-4), and carry the guarantee the preview stated before the
//! run, in the release's ledger and in the private export. A corner the family refuses at a
//! control (validate, plan, data) is counted, not failed; each family must run at least one.
//!
//! The corners (each at one end of a range `RunConfig::validate` accepts, or of a tail parameter
//! it accepts: any finite number > 0), where the family reads the setting:
//! - ε = 1e-4 and ε = 100; δ = 1e-100 and δ = 0.4999 (families with δ > 0);
//! - n = 10; steps = 1; step size 1e-9 and 1e6;
//! - tails: Student-t ν = 0.25, Pareto α = 0.25, log-normal σ = 8 (the ends of
//!   their ranges now), contaminated p = 1 at scale
//!   1e300; feature scale 1e-6 and 1e3; signal 1e3;
//! - declared bounds: feature bound 1e-6 and 1e6; radius 1e-6 and 1e6 (games 1e-3 and 1e3);
//! - ridge λ = 0 and 1e3; lasso 1e3; clip 1e-9 and 1e6; λ₁ = 1e-9 and 1e6; moment k = 2 and 100;
//!   grid resolution 2; budget U = 4;
//! - the corner of a budget measured from the data: clip 1e-6, λ₁ = 1e6, feature bound 1e6 on Pareto α = 3.5 data;
//! - games: entry bound 1e-3 and 1e3; μₓ = μᵧ = 1e3; heavy records clipped, log-normal σ = 8
//!   and Pareto α = 0.25 at scale 1e3 (entries overflow to ±∞ before the clip);
//! - records planted in a CSV file (minimisation families, the page's file path): one feature
//!   1e308, −1e308 and f64::MAX; a typed ±∞ is refused by the loader with an error naming the file.
//!
//! The slow corners (n = 10⁶, steps = 10⁵, grid resolution 400, J = 101) are in the ignored
//! sweep [`every_family_at_the_slow_corners`]:
//! `cargo test --release --test algorithms privacy_edges:: -- --ignored --nocapture`.
#![cfg(not(target_arch = "wasm32"))]

use crate::edges;

use dp_playground::config::pose::load_file;
use dp_playground::config::{AlgorithmKind, RunConfig};

use edges::{Outcome, PLANTED, check, configs, kinds, on_file};

/// Noise draws per config: three, so that "differs" compares three pairs.
const DRAWS: u32 = 3;

/// One family's failures (one line each, all of them), runs and refusals.
fn family(kind: AlgorithmKind, full: bool) -> (Vec<String>, usize, usize) {
    let start = std::time::Instant::now();
    let (mut failures, mut ran, mut refused) = (Vec::new(), 0, 0);
    let configs = if full {
        configs(kind)
    } else {
        edges::fast_configs(kind)
    };
    let mut cases: Vec<(String, RunConfig, Option<String>)> = configs
        .into_iter()
        .map(|(name, c)| (name, c, None))
        .collect();
    let base = cases.first().map(|(_, c, _)| c.clone());
    if let Some(base) = base {
        for (name, value) in PLANTED.iter().take(if full { PLANTED.len() } else { 1 }) {
            if let Some((c, text)) = on_file(&base, *value) {
                cases.push((format!("CSV record at {name}"), c, Some(text)));
            }
        }
    }
    for (name, config, file) in cases {
        let one = std::time::Instant::now();
        let outcome = check(&config, file.as_deref(), DRAWS);
        if one.elapsed().as_secs_f64() > 2.0 {
            println!("{kind:?} × {name}: {:.1} s", one.elapsed().as_secs_f64());
        }
        match outcome {
            Ok(Outcome::Ran) => ran += 1,
            Ok(Outcome::Refused(why)) => {
                refused += 1;
                println!("{kind:?} × {name}: refused ({why})");
            }
            Err(e) => failures.push(format!("{kind:?} × {name}: {e}")),
        }
    }
    if ran == 0 {
        failures.push(format!("{kind:?}: refused at every corner"));
    }
    println!(
        "{kind:?}: {ran} ran, {refused} refused, {} failed in {:.1} s",
        failures.len(),
        start.elapsed().as_secs_f64()
    );
    (failures, ran, refused)
}

/// Every family (in parallel: they share nothing), its failures gathered.
fn sweep(full: bool) -> (Vec<String>, usize, usize) {
    use rayon::prelude::*;
    let kinds: Vec<AlgorithmKind> = kinds().collect();
    kinds.par_iter().map(|&k| family(k, full)).reduce(
        || (Vec::new(), 0, 0),
        |mut a, b| {
            a.0.extend(b.0);
            (a.0, a.1 + b.1, a.2 + b.2)
        },
    )
}

#[test]
fn every_family_at_every_corner_releases_finite_noisy_points_with_the_previewed_guarantee() {
    report(false);
}

/// Every corner of [`edges::CORNERS`] and every planted value, for every family (minutes in a
/// debug build): `cargo test --release --test algorithms privacy_edges:: -- --ignored --nocapture`.
#[test]
#[ignore]
fn every_family_at_every_corner_full_sweep() {
    report(true);
}

fn report(full: bool) {
    let start = std::time::Instant::now();
    let (mut failures, ran, refused) = sweep(full);
    failures.sort();
    println!(
        "{ran} configs ran, {refused} refused at a control, {} failed, in {:.1} s",
        failures.len(),
        start.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// ±∞ cannot enter through the file: the loader refuses it (with an error, not a panic) rather
/// than passing a record the clip would turn into NaN.
#[test]
fn planted_infinity_is_refused() {
    let config = RunConfig::default();
    for value in ["inf", "-inf", "Infinity", "NaN", "1e309"] {
        let mut text = edges::planted_csv(20, 2, 0.5);
        text.replace_range(0..text.find(',').unwrap(), value);
        let result = std::panic::catch_unwind(|| load_file(text.as_bytes(), &config, "last"));
        match result {
            Ok(Err(_)) => {}
            Ok(Ok(data)) => assert!(
                data.samples()
                    .all(|(x, y)| y.is_finite() && x.iter().all(|v| v.is_finite())),
                "{value}: a non-finite record was loaded"
            ),
            Err(_) => panic!("{value}: the loader panicked"),
        }
    }
}

/// The corners too slow for the ordinary suite: n = 10⁶ (d = 1), steps = 10⁵, grid resolution
/// 400, J = 101, each for every family that reads it.
#[test]
#[ignore]
fn every_family_at_the_slow_corners() {
    use dp_playground::algo::registry;
    use dp_playground::config::Control;
    let mut failures = Vec::new();
    for kind in kinds() {
        let family = registry::family(kind);
        let Some((_, base)) = configs(kind).into_iter().next() else {
            continue;
        };
        let mut slow: Vec<(&str, RunConfig)> = vec![(
            "n = 1e6, d = 1",
            RunConfig {
                n: 1_000_000,
                d: 1,
                ..base.clone()
            },
        )];
        if family.takes(Control::Steps) {
            slow.push((
                "steps = 1e5",
                RunConfig {
                    steps: 100_000,
                    ..base.clone()
                },
            ));
        }
        if family.takes(Control::GridResolution) {
            slow.push((
                "grid resolution = 400",
                RunConfig {
                    grid_resolution: 400,
                    ..base.clone()
                },
            ));
        }
        if family.takes(Control::Repetitions) {
            slow.push((
                "J = 101",
                RunConfig {
                    repetitions: 101,
                    ..base.clone()
                },
            ));
        }
        for (name, config) in slow {
            let start = std::time::Instant::now();
            let outcome = check(&config, None, 2);
            println!(
                "{kind:?} × {name}: {outcome:?} in {:.1} s",
                start.elapsed().as_secs_f64()
            );
            if let Err(e) = outcome {
                failures.push(format!("{kind:?} × {name}: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Lowy & Razaviyayn 2021's Algorithms 10 and 11 at every corner of the full sweep and every
/// planted record value (seconds: one certified solve and at most 41² + 1 scores per run).
#[test]
fn localisation_families_at_every_corner() {
    let mut failures = Vec::new();
    for kind in [
        AlgorithmKind::Localisation,
        AlgorithmKind::LocalisedExponential,
    ] {
        let (f, ran, refused) = family(kind, true);
        println!("{kind:?}: {ran} ran, {refused} refused");
        failures.extend(f);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
