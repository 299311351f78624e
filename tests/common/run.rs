//! The run whose bits native code and every browser must agree on.

use dp_playground::config::{AlgorithmKind, RunConfig};
use dp_playground::session::{Lab, Release, Session};

/// The run whose bits must agree natively and in every browser.
pub fn golden_config() -> RunConfig {
    RunConfig {
        seed: 20261122,
        n: 400,
        d: 3,
        steps: 40,
        epsilon: 0.7,
        // The golden bits were recorded without a ridge (the default before it had one).
        l2: 0.0,
        ..RunConfig::default()
    }
}

/// The bits that characterise a run: the release, F* and the whole excess-risk curve, as hex
/// words of their IEEE-754 representation (one line each), so any last-bit difference shows.
pub fn fingerprint(config: RunConfig) -> String {
    let mut s = Session::new(config).expect("the golden config is valid");
    let f_star = s.reference().expect("a certified reference").value;
    let batch = s.advance(usize::MAX, || true);
    let release = batch.release.expect("a full run ends with a release");
    let mut lines = vec![format!("f_star {:016x}", f_star.to_bits())];
    lines.extend(
        release
            .w()
            .iter()
            .map(|v| format!("release {:016x}", v.to_bits())),
    );
    lines.extend(
        batch
            .excess
            .iter()
            .map(|v| format!("excess {:016x}", v.to_bits())),
    );
    lines.join("\n") + "\n"
}

/// The fingerprint recorded from a native run (see tests/playground/determinism.rs for how to refresh it).
pub const GOLDEN_RUN: &str = include_str!("../data/golden_run.txt");

/// A seeded DP-SGD run whose per-sample kernel runs whole phases and blocks of four samples with
/// a tail (d = 10) and clips part of them (C = 0.05): natively the AVX2 kernel, in wasm the
/// portable one, which must give the same bits (the golden run above is DP-GD at d = 3, which
/// never reaches DP-SGD's kernel).
pub fn dp_sgd_golden_config() -> RunConfig {
    RunConfig {
        seed: 20261128,
        n: 600,
        d: 10,
        steps: 40,
        batch: 37,
        clip: Some(0.05),
        algorithm: AlgorithmKind::DpSgd,
        l2: 0.0,
        ..RunConfig::default()
    }
}

/// [`dp_sgd_golden_config`]'s fingerprint, recorded from a native run (tests/playground/determinism.rs).
pub const DP_SGD_GOLDEN_RUN: &str = include_str!("../data/dp_sgd_golden_run.txt");

/// Runs a one-lane lab of `config` to its release, in slices of 10,000 steps (the saddle tests'
/// way to reach a release as the page does).
pub fn lab_release(config: RunConfig) -> Release {
    let mut lab = Lab::new(config, None).expect("lab");
    let mut out = None;
    for _ in 0..100_000 {
        for lane in lab.advance(10_000, || true) {
            if let Some(r) = lane.batch.release {
                out = Some(r);
            }
        }
        if lab.is_done() {
            break;
        }
    }
    out.expect("a release")
}
