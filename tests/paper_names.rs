//! Issue 16 item 5, natively: every Rust string the page shows names a paper by authors, title
//! and year, never by the project's file numbers ("seed 002", "digest 000"). Checked here: the
//! algorithm cards (with their settings' labels and help), the menu picks' notes, and each
//! algorithm's preview (its words, the NOT PRIVATE reasons) and composed statement, over every
//! algorithm and problem. Error messages are checked over the whole config walk in
//! `tests/error_controls.rs`; the page itself in `tests/e2e/lessons.test.mjs`.

mod common;

use common::names_an_internal_number;
use dp_playground::algo::family::ProblemKind;
use dp_playground::algo::registry;
use dp_playground::config::{AlgorithmKind, RunConfig};
use dp_playground::session;

#[test]
fn the_check_catches_internal_numbers_and_spares_the_seed_of_a_run() {
    assert!(names_an_internal_number("as in seed 002, Algorithm 4"));
    assert!(names_an_internal_number("Seed 004 §3"));
    assert!(names_an_internal_number("see the Digest"));
    assert!(!names_an_internal_number(
        "seed 42 makes the run reproducible"
    ));
    assert!(!names_an_internal_number("the seed 1"));
    assert!(!names_an_internal_number("seed: 012"));
}

#[test]
// The cards' prose is compiled into native builds only (`CardText`; the page reads it from
// pkg/cards.json, which the native binary writes).
#[cfg(not(target_arch = "wasm32"))]
fn the_cards_name_papers_as_papers() {
    for card in dp_playground::catalog::cards() {
        let json = serde_json::to_string(&card).expect("a card serialises");
        assert!(
            !names_an_internal_number(&json),
            "{:?}'s card: {json}",
            card.kind
        );
        // Each card's source is a paper: authors and a year.
        assert!(
            card.text
                .source
                .split(|c: char| !c.is_ascii_digit())
                .any(|w| w.len() == 4 && (w.starts_with("19") || w.starts_with("20"))),
            "{:?}: its source names no year: {}",
            card.kind,
            card.text.source
        );
    }
}

#[test]
fn picks_previews_and_totals_name_papers_as_papers() {
    let mut checked = 0;
    for problem in [ProblemKind::Minimisation, ProblemKind::Saddle] {
        let Ok((posed, notes)) = registry::pose(&RunConfig::default(), problem) else {
            continue;
        };
        assert!(!names_an_internal_number(&notes.join(" ")), "{notes:?}");
        for kind in AlgorithmKind::ALL {
            let (picked, notes) = registry::pick(&posed, kind);
            assert!(!names_an_internal_number(&notes.join(" ")), "{notes:?}");
            for leak in [false, true] {
                let config = RunConfig {
                    leak: leak && kind.has_leak(),
                    ..picked.clone()
                };
                if let Ok(p) = session::preview(&config) {
                    let json = serde_json::to_string(&p).expect("a preview serialises");
                    assert!(!names_an_internal_number(&json), "{kind:?}: {json}");
                    checked += 1;
                }
                if let Ok(c) = session::publish::compose_run(&config) {
                    assert!(
                        !names_an_internal_number(&c.method),
                        "{kind:?}: {}",
                        c.method
                    );
                }
            }
        }
    }
    assert!(
        checked >= AlgorithmKind::ALL.len(),
        "only {checked} previews"
    );
}
