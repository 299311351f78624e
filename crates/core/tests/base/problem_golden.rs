//! Native half of the native/wasm determinism check: the checksums of tests/golden must equal
//! tests/data/problem_golden.txt (the browser test web_problem.rs checks the same file).
//! Regenerate after an intended change with `UPDATE_GOLDEN=1 cargo test -p dp-playground-core --test base problem_golden::`.

use crate::golden;

#[test]
fn checksums_match_the_golden_file() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/problem_golden.txt"
    );
    if std::env::var("UPDATE_GOLDEN").is_ok() {
        std::fs::write(path, golden::render(&golden::checksums())).unwrap();
    }
    let bad = golden::mismatches(include_str!("../../../../tests/data/problem_golden.txt"));
    assert!(bad.is_empty(), "changed: {bad:#?}");
}
