//! The same seed gives the same bits natively and in the browsers (crates/wasm/tests/web/web.rs checks the same
//! file). Refresh after an intended numerical change with
//! `UPDATE_GOLDEN=1 cargo test --test playground determinism::` and say why in the commit.
#![cfg(not(target_arch = "wasm32"))]

use crate::common;

/// Under `UPDATE_GOLDEN`, writes `now` to tests/data/`file` and says so (the caller then skips
/// its comparison); otherwise does nothing.
fn refreshed(now: &str, file: &str) -> bool {
    if std::env::var_os("UPDATE_GOLDEN").is_none() {
        return false;
    }
    let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::write(path, now).expect("write the golden file");
    true
}

#[test]
fn native_run_matches_the_golden_fingerprint() {
    let now = common::fingerprint(common::golden_config());
    if refreshed(&now, "golden_run.txt") {
        return;
    }
    assert_eq!(now, common::GOLDEN_RUN, "the run's bits changed");
}

/// A seeded DP-SGD run (its per-sample kernel is compiled differently for wasm): the same bits
/// as its golden file, which crates/wasm/tests/web/web.rs checks in the browsers. `UPDATE_GOLDEN=1` refreshes it.
#[test]
fn dp_sgd_run_matches_its_golden_fingerprint() {
    let now = common::fingerprint(common::dp_sgd_golden_config());
    if refreshed(&now, "dp_sgd_golden_run.txt") {
        return;
    }
    assert_eq!(
        now,
        common::DP_SGD_GOLDEN_RUN,
        "the DP-SGD run's bits changed"
    );
}

#[test]
fn a_different_seed_gives_a_different_fingerprint() {
    let other = dp_playground::config::RunConfig {
        seed: 7,
        ..common::golden_config()
    };
    assert_ne!(common::fingerprint(other), common::GOLDEN_RUN);
}

/// Each heavy-tail family (Lowy 2026) on a seeded run: the same bits as the golden file, which
/// crates/wasm/tests/web/web.rs checks in the browsers. Refresh with `UPDATE_GOLDEN=1 cargo test --test
/// determinism` after an intended numerical change (it writes tests/data/heavy_golden_runs.txt).
#[test]
fn heavy_tail_runs_match_their_golden_fingerprints() {
    let now = common::heavy_fingerprints();
    if refreshed(&now, "heavy_golden_runs.txt") {
        return;
    }
    // Each family's section on its own, so a failure names the family.
    for (name, _) in common::HEAVY_FAMILIES {
        let (got, golden) = (
            common::heavy_section(&now, name),
            common::heavy_section(common::HEAVY_GOLDEN_RUNS, name),
        );
        assert!(golden.is_some(), "{name}: not in the golden file");
        assert_eq!(got, golden, "{name}: the run's bits changed");
    }
    assert_eq!(now, common::HEAVY_GOLDEN_RUNS);
    // Not vacuous: every family released a point, and every family but EM-PGM (one
    // exponential-mechanism draw, no additive noise) drew ℓ2-Laplace noise of a positive norm.
    for (name, _) in common::HEAVY_FAMILIES {
        let section = common::heavy_section(&now, name).unwrap_or_default();
        assert!(
            section.contains("release ") && (name == "em-pgm" || drew_noise(section)),
            "{name}: {section}"
        );
    }
}

/// Whether a fingerprint section has a noise norm that is positive and finite.
fn drew_noise(section: &str) -> bool {
    section
        .lines()
        .filter_map(|l| l.strip_prefix("noise "))
        .filter_map(|hex| u64::from_str_radix(hex, 16).ok())
        .map(f64::from_bits)
        .any(|v| v.is_finite() && v > 0.0)
}

/// Every heavy-tail family of the menu (Lowy 2026: the families whose card lives under
/// `algo::heavy_tails`) has a seeded run in the golden file, so none escapes the
/// native-vs-browser check of crates/wasm/tests/web/web.rs.
#[test]
fn every_heavy_tail_family_has_a_golden_run() {
    use dp_playground::algo::registry;
    use dp_playground::config::AlgorithmKind;
    let heavy: Vec<AlgorithmKind> = AlgorithmKind::ALL
        .into_iter()
        .filter(|&k| {
            registry::family(k)
                .card
                .module
                .starts_with("algo::heavy_tails")
        })
        .collect();
    assert_eq!(heavy, common::HEAVY_KINDS);
    let runs: Vec<AlgorithmKind> = common::HEAVY_FAMILIES
        .iter()
        .map(|(_, config)| config().algorithm)
        .collect();
    for kind in heavy {
        assert!(runs.contains(&kind), "{kind:?} has no golden run");
    }
    // The Algorithm 3 solver path runs too, beside the default AGD.
    assert!(
        common::HEAVY_FAMILIES
            .iter()
            .any(|(_, config)| config().heavy_solver
                == dp_playground::algo::heavy_tails::HeavySolver::AdaptiveSubgradient)
    );
}
