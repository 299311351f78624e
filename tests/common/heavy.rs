//! Seeded runs of each heavy-tail family (Lowy 2026) whose bits native code and every browser must
//! agree on: tests/determinism.rs checks them natively, tests/web.rs in the browsers, both against
//! tests/data/heavy_golden_runs.txt.

use dp_playground::algo::registry;
use dp_playground::config::{AlgorithmKind, RunConfig};
use dp_playground::data::Tail;
use dp_playground::session::Session;

/// The heavy-tail families, each with the name its section of the golden file carries.
pub const HEAVY_FAMILIES: [(&str, AlgorithmKind); 3] = [
    (
        "localized",
        AlgorithmKind::LocalizedDoubleOutputPerturbation,
    ),
    ("clipped-gd", AlgorithmKind::PureClippedGd),
    (
        "single-stage",
        AlgorithmKind::OutputPerturbationLipschitzExtension,
    ),
];

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
    registry::pick(&base, kind).0
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
            lines.extend(release.w.iter().map(|&v| hex("release", v)));
        }
    }
    lines.join("\n") + "\n"
}

/// Every family's fingerprint, each under a `# name` line: the golden file's content.
pub fn heavy_fingerprints() -> String {
    HEAVY_FAMILIES
        .iter()
        .map(|&(name, kind)| format!("# {name}\n{}", heavy_fingerprint(heavy_config(kind))))
        .collect()
}

/// The section of family `name` in `all` (a [`heavy_fingerprints`] text), without its header.
pub fn heavy_section<'a>(all: &'a str, name: &str) -> Option<&'a str> {
    let rest = all.split(&format!("# {name}\n")).nth(1)?;
    Some(rest.split("# ").next().unwrap_or_default())
}

/// The fingerprints recorded from a native run (see tests/determinism.rs for how to refresh them).
pub const HEAVY_GOLDEN_RUNS: &str = include_str!("../data/heavy_golden_runs.txt");
