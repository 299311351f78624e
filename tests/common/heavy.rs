//! Seeded runs of each heavy-tail family (Lowy 2026) whose bits native code and every browser must
//! agree on: tests/playground/determinism.rs checks them natively, crates/wasm/tests/web/web.rs in the browsers, both against
//! tests/data/heavy_golden_runs.txt.

use dp_playground::algo::heavy_tails::HeavySolver;
use dp_playground::algo::registry;
use dp_playground::config::menu;
use dp_playground::config::{AlgorithmKind, RunConfig};
use dp_playground::data::Tail;
use dp_playground::session::Session;

/// A golden run: the name of its section and its config.
pub type HeavyRun = (&'static str, fn() -> RunConfig);

/// The heavy-tail runs, each with the name its section of the golden file carries and its
/// config: every heavy-tail kind of `AlgorithmKind::ALL` picked as the page's menu picks it, and
/// the Algorithm 3 solver path of the localized families. New runs go at the end, so the older
/// sections keep their place in the file.
pub const HEAVY_FAMILIES: [HeavyRun; 8] = [
    ("localized", || {
        heavy_config(AlgorithmKind::LocalisedDoubleOutputPerturbation)
    }),
    ("clipped-gd", || heavy_config(AlgorithmKind::PureClippedGd)),
    ("single-stage", || {
        heavy_config(AlgorithmKind::OutputPerturbationLipschitzExtension)
    }),
    ("localized-output-perturbation", || {
        heavy_config(AlgorithmKind::LocalisedOutputPerturbation)
    }),
    ("localized-algorithm-3", algorithm_3_config),
    ("em-pgm", || heavy_config(AlgorithmKind::EmPgm)),
    ("localized-approx-em", || {
        heavy_config(AlgorithmKind::LocalisedApproxEm)
    }),
    ("deterministic", || {
        heavy_config(AlgorithmKind::DeterministicDoubleOutputPerturbation)
    }),
];

/// The heavy-tail kinds of `AlgorithmKind::ALL` (Lowy 2026's families): every one must have a
/// section of the golden file (tests/playground/determinism.rs checks that none is missing).
pub const HEAVY_KINDS: [AlgorithmKind; 7] = [
    AlgorithmKind::LocalisedDoubleOutputPerturbation,
    AlgorithmKind::LocalisedOutputPerturbation,
    AlgorithmKind::PureClippedGd,
    AlgorithmKind::OutputPerturbationLipschitzExtension,
    AlgorithmKind::EmPgm,
    AlgorithmKind::LocalisedApproxEm,
    AlgorithmKind::DeterministicDoubleOutputPerturbation,
];

/// Localized output perturbation with Lowy's Algorithm 3 on the joint reformulation as its
/// certified solver, on a problem small enough for the plan to accept it (its iteration bound
/// within the work allowance): one phase, d = 1, W = [−1, 1], ‖x‖ ≤ 1, λ₁ = 0.3.
pub fn algorithm_3_config() -> RunConfig {
    RunConfig {
        n: 20,
        batch: 10,
        d: 1,
        radius: 1.0,
        feature_bound: 1.0,
        lambda1: Some(0.3),
        heavy_solver: HeavySolver::AdaptiveSubgradient,
        ..heavy_config(AlgorithmKind::LocalisedOutputPerturbation)
    }
}

/// A small seeded heavy-tailed problem (Pareto-radial features, α = 3, k = 2, pure ε) with
/// `kind` picked as the page's menu picks it (its needs met).
pub fn heavy_config(kind: AlgorithmKind) -> RunConfig {
    let base = RunConfig {
        seed: 20261127,
        n: 600,
        d: 2,
        tail: Tail::ParetoRadial { alpha: 3.0 },
        feature_scale: 0.5,
        feature_bound: 1e3,
        l2: 0.01,
        moment_k: 2.0,
        delta: 0.0,
        epsilon: 1.0,
        steps: 20,
        ..RunConfig::default()
    };
    menu::pick(&base, kind).0
}

/// The bits of a run that depend on nothing but the seed: the release and, per step, the loss
/// and the noise norm (hex words of their IEEE-754 patterns, one a line). The excess is left out:
/// it depends on the reference F*, which the page solves under a time cap.
pub fn heavy_fingerprint(config: RunConfig) -> String {
    let mut s = Session::new(config).expect("the heavy-tail config is valid");
    let mut lines = Vec::new();
    let hex = |tag: &str, v: f64| format!("{tag} {:016x}", v.to_bits());
    while !s.is_done() {
        let batch = s.advance(usize::MAX, || true);
        lines.extend(batch.loss.iter().map(|&v| hex("loss", v)));
        lines.extend(batch.noise_norm.iter().map(|&v| hex("noise", v)));
        if let Some(release) = batch.release {
            lines.extend(release.w().iter().map(|&v| hex("release", v)));
        }
    }
    lines.join("\n") + "\n"
}

/// Every family's fingerprint, each under a `# name` line: the golden file's content.
pub fn heavy_fingerprints() -> String {
    HEAVY_FAMILIES
        .iter()
        .map(|&(name, config)| format!("# {name}\n{}", heavy_fingerprint(config())))
        .collect()
}

/// The section of family `name` in `all` (a [`heavy_fingerprints`] text), without its header.
pub fn heavy_section<'a>(all: &'a str, name: &str) -> Option<&'a str> {
    let rest = all.split(&format!("# {name}\n")).nth(1)?;
    Some(rest.split("# ").next().unwrap_or_default())
}

/// The fingerprints recorded from a native run (see tests/playground/determinism.rs for how to refresh them).
pub const HEAVY_GOLDEN_RUNS: &str = include_str!("../data/heavy_golden_runs.txt");
