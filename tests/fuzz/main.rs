//! A seeded fuzz loop on stable Rust over every parser a user reaches: the strict config parser
//! (`config`), the lenient link reader (`link`), what a link reaches before a run (`preview`),
//! the CSV loader (`csv`), the plot specs of `drawPlot`/`plotSvg` (`plot`), and whole runs of
//! every family at the edges of what the page accepts (`edges`: tests/edges).
//! Inputs are structure-aware mutants of real seeds (the links the page makes, the bad-CSV
//! corpus, the page's plot specs; the corners for `edges`), drawn through `arbitrary` from a
//! ChaCha stream keyed by (seed, index); each execution is caught (`catch_unwind`: a panic is a
//! crash) and timed (over 1 s is a hang). Findings print with their seed and index and are
//! saved under `target/fuzz-findings/`.
//!
//! The long run (the README's development notes give the count run):
//!
//! ```sh
//! FUZZ_EXECS=2500000 FUZZ_SEED=2026 cargo test --test fuzz -- --ignored --nocapture
//! ```
//!
//! The hardening adds `saddle` (game configs), `heavy` (heavy-tail configs) and `compose` (lists of
//! configs composed), each run to its release when small, every published number finite.
//!
//! `FUZZ_EXECS` is per target; `FUZZ_TARGET=config|link|preview|csv|plot|edges|saddle|heavy|compose`
//! runs one, `FUZZ_SEED` picks another stream, and `FUZZ_INDEX=i` replays input i alone (printing
//! it). The smoke test below runs a few thousand inputs per target in the ordinary suite, so the
//! loop cannot rot.
#![cfg(not(target_arch = "wasm32"))]

mod edge_configs;
#[path = "../edges/mod.rs"]
mod edges;
mod engine;
mod mutate;
mod targets;

use engine::{Kind, Report, Target};
use targets::{HARDENING_TARGETS, TARGETS};

/// Every target: the parsers', then the hardening's (games, heavy tails, composition).
fn all_targets() -> impl Iterator<Item = &'static Target> {
    TARGETS.iter().chain(HARDENING_TARGETS.iter())
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|v| {
        v.replace('_', "")
            .parse()
            .unwrap_or_else(|_| panic!("{name} must be a whole number, got {v:?}"))
    })
}

fn summary(r: &Report) -> String {
    format!(
        "{:>6}: {:>9} execs in {:>7.1} s ({:>6.0}/s), {} crashes, {} hangs, {} broken invariants; \
         slowest {:.1} ms (input {})",
        r.target,
        r.execs,
        r.elapsed.as_secs_f64(),
        r.execs as f64 / r.elapsed.as_secs_f64().max(1e-9),
        r.findings
            .iter()
            .filter(|f| matches!(f.kind, Kind::Crash(_)))
            .count(),
        r.findings
            .iter()
            .filter(|f| matches!(f.kind, Kind::Slow(_)))
            .count(),
        r.findings
            .iter()
            .filter(|f| matches!(f.kind, Kind::Invariant(_)))
            .count(),
        r.slowest.0.as_secs_f64() * 1e3,
        r.slowest.1
    )
}

fn selected() -> Vec<&'static Target> {
    let only = std::env::var("FUZZ_TARGET").ok();
    let picked: Vec<&Target> = all_targets()
        .filter(|t| only.as_deref().is_none_or(|o| o == t.name))
        .collect();
    assert!(
        !picked.is_empty(),
        "FUZZ_TARGET must be a target's name: config, link, preview, csv, plot, edges, saddle, heavy, compose"
    );
    picked
}

/// A few thousand inputs of every target, as part of the ordinary suite: the loop runs, its
/// inputs are reproducible, and the first stream finds no crash and no broken invariant (slow
/// inputs are printed, not failed on: the suite runs on noisy machines).
#[test]
fn fuzz_smoke() {
    for target in all_targets() {
        let execs = (1500 / target.share).max(3);
        let report = engine::run(target, 1, execs, 0);
        println!("{}", summary(&report));
        assert_eq!(report.execs, execs);
        assert!(
            report
                .findings
                .iter()
                .all(|f| matches!(f.kind, Kind::Slow(_))),
            "{}: {:?}",
            target.name,
            report
                .findings
                .iter()
                .map(|f| (&f.kind, f.index))
                .collect::<Vec<_>>()
        );
        // Reproducible: the same (seed, index) gives the same input.
        assert_eq!(
            engine::input(target, 1, 7),
            engine::input(target, 1, 7),
            "{}",
            target.name
        );
    }
}

/// Mutants are mostly well-formed enough to get past the first byte: a fuzz loop whose inputs
/// all die in the JSON parser would test nothing behind it.
#[test]
fn fuzz_inputs_reach_past_the_parser() {
    use dp_playground::config::RunConfig;
    let config = &TARGETS[0];
    let parsed = (0..500)
        .filter(|&i| {
            let input = engine::input(config, 3, i);
            serde_json::from_slice::<serde_json::Value>(&input).is_ok()
        })
        .count();
    let accepted = (0..500)
        .filter(|&i| {
            let input = engine::input(config, 3, i);
            std::str::from_utf8(&input).is_ok_and(|t| RunConfig::from_json(t).is_ok())
        })
        .count();
    assert!(parsed > 300, "only {parsed} of 500 mutants are JSON");
    assert!(
        accepted > 25,
        "only {accepted} of 500 mutants are valid configs"
    );
}

/// The long run (ignored: hours of CPU at the count the issue asks for).
#[test]
#[ignore]
fn fuzz() {
    let seed = env_u64("FUZZ_SEED").unwrap_or(1);
    if let Some(index) = env_u64("FUZZ_INDEX") {
        for target in selected() {
            let input = engine::input(target, seed, index);
            println!(
                "{} input {index}: {}",
                target.name,
                String::from_utf8_lossy(&input)
            );
            let outcome = (target.exec)(&input);
            println!("{} input {index}: {outcome:?}", target.name);
        }
        return;
    }
    let execs = env_u64("FUZZ_EXECS").unwrap_or(100_000);
    let mut total = 0;
    let mut findings = 0;
    for target in selected() {
        let execs = (execs / target.share).max(1);
        let report = engine::run(target, seed, execs, (execs / 20).max(1));
        println!("{}", summary(&report));
        total += report.execs;
        findings += report.findings.len();
    }
    println!("fuzz: {total} executions in all, {findings} findings (seed {seed})");
    assert_eq!(findings, 0, "see the findings above");
}
