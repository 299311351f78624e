//! Every Rust string the page shows names a paper by authors, title and year, never by the
//! project's own file numbers (a seed or summary number). Checked here: the
//! algorithm cards (with their settings' labels and help), the menu picks' notes, and each
//! algorithm's preview (its words, the NOT PRIVATE reasons) and composed statement, over every
//! algorithm and problem. Error messages are checked over the whole config walk in
//! `tests/playground/error_controls.rs`; the page itself in `tests/e2e/lessons.test.mjs`.

use crate::common;
use dp_playground::config::menu;

use common::names_an_internal_number;
use dp_playground::algo::family::ProblemKind;
use dp_playground::config::{AlgorithmKind, RunConfig};
use dp_playground::session;

#[test]
fn the_check_catches_internal_numbers_and_spares_the_seed_of_a_run() {
    // Spelled in pieces, so that the repository-wide check below does not find them here.
    assert!(names_an_internal_number(concat!(
        "as in seed",
        " 002, Algorithm 4"
    )));
    assert!(names_an_internal_number(concat!("Seed", " 004 §3")));
    assert!(names_an_internal_number(concat!("see the Dig", "est")));
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
        let Ok((posed, notes)) = menu::pose(&RunConfig::default(), problem) else {
            continue;
        };
        assert!(!names_an_internal_number(&notes.join(" ")), "{notes:?}");
        for kind in AlgorithmKind::ALL {
            let (picked, notes) = menu::pick(&posed, kind);
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

// ---- references outside the repository ------------------------------------------------------

/// What a comment, a test or a page may not cite: the design notes, the paper summaries and their
/// reviews kept outside the repository, paths into the folder beside it, the project's internal
/// numbers for the papers, and tracker numbers. Each is spelled in pieces so that this file does
/// not match itself. Case-sensitive, like the acceptance `grep -E`.
fn outside_reference(line: &str) -> Option<&'static str> {
    // The one ordinary use of the word: the Web Crypto API's hash method, which the page's
    // worker calls to key a loaded CSV file.
    let line = &line.replace(concat!("subtle.", "dig", "est("), "subtle.hash(");
    const PLAIN: [&str; 4] = [
        concat!("DESIGN", ".md"),
        concat!("dig", "est"),
        concat!("REVIEW", "-"),
        concat!("../", "shared"),
    ];
    if let Some(p) = PLAIN.iter().find(|p| line.contains(**p)) {
        return Some(p);
    }
    // A prefix followed by `digits` ASCII digits.
    let followed = |prefix: &str, digits: usize| {
        line.match_indices(prefix).any(|(i, _)| {
            let rest = &line.as_bytes()[i + prefix.len()..];
            rest.len() >= digits && rest[..digits].iter().all(u8::is_ascii_digit)
        })
    };
    const SEED: &str = concat!("seed", " 0");
    const TRACKER: &str = concat!("iss", "ue ");
    if followed(SEED, 2) {
        return Some(SEED);
    }
    const TRACKER_CAPITAL: &str = concat!("Iss", "ue ");
    if followed(TRACKER, 1) {
        return Some(TRACKER);
    }
    if followed(TRACKER_CAPITAL, 1) {
        return Some(TRACKER_CAPITAL);
    }
    None
}

#[test]
fn the_reference_check_catches_each_kind_and_spares_ordinary_words() {
    for bad in [
        concat!("see DESIGN", ".md §5"),
        concat!("the dig", "est's table"),
        concat!("REVIEW", "-002 §4"),
        concat!("`../", "shared/research`"),
        concat!("as in seed", " 000's Algorithm 6"),
        concat!("(iss", "ue 18 item 6)"),
        concat!("// Iss", "ue 14 on the page"),
    ] {
        assert!(outside_reference(bad).is_some(), "{bad}");
    }
    for fine in [
        "docs/PRIVACY.md rule 1",
        "seed 42 makes the run reproducible",
        "the seed 1",
        "an issue of rounding",
        "a hash of the file",
        concat!("await crypto.subtle.", "dig", "est('SHA-256', bytes)"),
        "Lowy & Razaviyayn 2021, Algorithm 6",
    ] {
        assert_eq!(outside_reference(fine), None, "{fine}");
    }
}

/// Comments, tests, the page and the documents cite papers (authors, year, algorithm or theorem)
/// or files in the repository, never files outside it nor tracker numbers. Walks `src/`, the
/// workspace's `crates/`, `www/` (not the generated `www/pkg`), `tests/`, `README.md`, `docs/`, `CONTRIBUTING.md` and
/// `lessons/`, and names every offending line at once.
#[test]
#[cfg(not(target_arch = "wasm32"))]
fn comments_tests_and_documents_cite_nothing_outside_the_repository() {
    use std::path::{Path, PathBuf};
    fn walk(path: &Path, skip: &Path, files: &mut Vec<PathBuf>) {
        if path == skip {
            return;
        }
        if path.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
                .map(|e| e.expect("a directory entry").path())
                .collect();
            entries.sort();
            for entry in entries {
                walk(&entry, skip, files);
            }
        } else if path.is_file() {
            files.push(path.to_path_buf());
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let skip = root.join("www/pkg");
    let mut files = Vec::new();
    for top in [
        "src",
        "crates",
        "www",
        "tests",
        "README.md",
        "docs",
        "CONTRIBUTING.md",
        "lessons",
    ] {
        walk(&root.join(top), &skip, &mut files);
    }
    assert!(files.len() > 100, "only {} files walked", files.len());
    let mut offenders = Vec::new();
    for file in &files {
        // Images and other binary files are not text; they cannot cite anything.
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        for (number, line) in text.lines().enumerate() {
            if let Some(what) = outside_reference(line) {
                let shown: String = line.trim().chars().take(120).collect();
                offenders.push(format!(
                    "{}:{}: {what:?} in {shown}",
                    file.strip_prefix(root).unwrap_or(file).display(),
                    number + 1
                ));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "{} lines cite something outside the repository (cite the paper, or docs/PRIVACY.md, \
         docs/ARCHITECTURE.md, docs/benchmarks.md, CONTRIBUTING.md; say a reason in words instead \
         of a tracker number):\n{}",
        offenders.len(),
        offenders.join("\n")
    );
}
