//! The same seed gives the same bits natively and in the browsers (tests/web.rs checks the same
//! file). Refresh after an intended numerical change with
//! `UPDATE_GOLDEN=1 cargo test --test determinism` and say why in the commit.
#![cfg(not(target_arch = "wasm32"))]

mod common;

#[test]
fn native_run_matches_the_golden_fingerprint() {
    let now = common::fingerprint(common::golden_config());
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/golden_run.txt"),
            &now,
        )
        .expect("write the golden file");
        return;
    }
    assert_eq!(now, common::GOLDEN_RUN, "the run's bits changed");
}

#[test]
fn a_different_seed_gives_a_different_fingerprint() {
    let other = dp_playground::config::RunConfig {
        seed: 7,
        ..common::golden_config()
    };
    assert_ne!(common::fingerprint(other), common::GOLDEN_RUN);
}
