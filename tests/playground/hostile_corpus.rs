//! The hostile corpus (`tests/hostile/`): links, configs and CSV files, each run through
//! the path the page takes, with the exact outcome `tests/hostile/expected.tsv` gives it.
//!
//! - a config (`configs/*.json`) through the strict reader ([`RunConfig::from_json`], the page's
//!   `normaliseConfig`) and the run ([`Lab::new`], the worker's `Session`);
//! - a link (`links/*.txt`, the URL hash's JSON) through the lenient reader
//!   ([`RunConfig::from_json_lenient`], `configFromLink`), whose fallbacks are named, then the run
//!   of what it kept;
//! - a CSV file (`csv/*.csv`, and `../bad_csv/`) through the loader with the page's options, then,
//!   with n and d read from the file as the page's `inspectCsv` sets them, the run.
//!
//! An outcome is `release` (the run releases, every number of the release finite and every
//! per-step column finite or NaN, the explicit "no value" the plots skip), `error <field>` (the
//! field is a control on the page, or `csv` for the file's own error line) with a fragment of
//! the message, or for a link `fallback <fields>; release`. Every error met is also held to the
//! wording rules of `common::wording`.
//!
//! `HOSTILE_BLESS=1 cargo test --test playground hostile_corpus::` rewrites the index from what the code does
//! now: review its diff before committing it.

use crate::common;

use std::collections::BTreeMap;

use dp_playground::Error;
use dp_playground::config::{Control, DataSource, RunConfig};
use dp_playground::data::{CsvOptions, LabelColumn, LabelRange, load_csv};
use dp_playground::session::{Batch, Lab};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/hostile");

/// The settings a CSV file is run with (the page's, for a file: n and d come from the file).
const CSV_BASE: &str = r#"{"data": "csv", "n": 100, "d": 2, "steps": 10, "batch": 10}"#;

/// Fields an error may name beside the page's controls: the CSV file's error line, and the
/// run's error line where a link's own errors show.
const EXTRA_FIELDS: [&str; 2] = ["csv", "link"];

/// How many characters of a message the index keeps as its fragment when blessed.
const FRAGMENT_CHARS: usize = 60;

/// What happened to one input: its outcome, the first message met (the one the fragment is
/// matched in), and every error met on the way.
struct Seen {
    outcome: String,
    message: String,
    errors: Vec<Error>,
}

impl Seen {
    fn error(error: Error, field: Option<&str>) -> Self {
        let field = field.or(error.field()).unwrap_or("-").to_string();
        Seen {
            outcome: format!("error {field}"),
            message: error.to_string(),
            errors: vec![error],
        }
    }
}

/// Whether every value is finite, or NaN ("no value") where `nan_allowed`.
fn finite(values: &[f64], nan_allowed: bool) -> bool {
    values
        .iter()
        .all(|v| v.is_finite() || (nan_allowed && v.is_nan()))
}

/// What is not finite in a slice's columns and release, if anything.
fn non_finite(batch: &Batch) -> Option<&'static str> {
    let columns: [(&'static str, &[f64]); 8] = [
        ("t", &batch.t),
        ("grad_evals", &batch.grad_evals),
        ("loss", &batch.loss),
        ("excess", &batch.excess),
        ("path", &batch.path),
        ("noise_norm", &batch.noise_norm),
        ("grad_norm", &batch.grad_norm),
        ("epsilon_spent", &batch.epsilon_spent),
    ];
    if let Some((name, _)) = columns.iter().find(|(_, c)| !finite(c, true)) {
        return Some(name);
    }
    if !batch.diagnostics.iter().all(|d| !d.value.is_infinite()) {
        return Some("diagnostics");
    }
    if let Some(players) = &batch.players
        && !(finite(&players.x, false) && finite(&players.y, false))
    {
        return Some("players");
    }
    let release = batch.release.as_ref()?;
    if !finite(release.w(), false) || !finite(release.y().unwrap_or(&[]), false) {
        return Some("release point");
    }
    if !release.loss.is_finite() || !release.excess.is_none_or(f64::is_finite) {
        return Some("release loss or excess");
    }
    // A TERM run's population estimate had `std_error: NaN`.
    if !release
        .population
        .is_none_or(|p| p.value.is_finite() && p.std_error.is_finite())
    {
        return Some("population estimate");
    }
    None
}

/// Runs `config` (on `file`, if any) to its releases, as the worker does.
fn run(config: RunConfig, file: Option<dp_playground::data::Dataset>) -> Seen {
    let mut lab = match Lab::new(config, file) {
        Ok(lab) => lab,
        Err(e) => return Seen::error(e, None),
    };
    let mut releases = 0;
    while !lab.is_done() {
        for lane in lab.advance(usize::MAX, || true) {
            if let Some(what) = non_finite(&lane.batch) {
                return Seen {
                    outcome: format!("non-finite {what}"),
                    message: String::new(),
                    errors: Vec::new(),
                };
            }
            releases += usize::from(lane.batch.release.is_some());
        }
    }
    let lanes = lab.progress().1;
    Seen {
        outcome: if releases == lanes {
            "release".to_string()
        } else {
            format!("{releases} releases of {lanes} lanes")
        },
        message: String::new(),
        errors: Vec::new(),
    }
}

/// A config as the page's strict reader takes it, then its run.
fn config(text: &str) -> Seen {
    match RunConfig::from_json(text) {
        Ok(config) => run(config, None),
        Err(e) => Seen::error(e, None),
    }
}

/// A link as the lenient reader takes it: the fields it fell back, then the run of the rest.
fn link(text: &str) -> Seen {
    let (config, errors) = RunConfig::from_json_lenient(text);
    let ran = run(config, None);
    if errors.is_empty() {
        return ran;
    }
    let fields: Vec<&str> = errors.iter().map(|e| e.field().unwrap_or("-")).collect();
    let mut all = errors.clone();
    all.extend(ran.errors);
    Seen {
        outcome: format!("fallback {}; {}", fields.join(","), ran.outcome),
        message: errors[0].to_string(),
        errors: all,
    }
}

/// A CSV file as the page loads it (label last, ±1 labels for the default logistic loss), then
/// the run with the file's n and d.
fn csv(bytes: &[u8]) -> Seen {
    let base = RunConfig::from_json(CSV_BASE).expect("the CSV base config");
    let options = CsvOptions {
        label: LabelColumn::Last,
        delimiter: None,
        header: None,
        labels: if base.loss.is_margin() {
            LabelRange::PlusMinusOne
        } else {
            LabelRange::Real
        },
    };
    match load_csv(bytes, &options) {
        Err(e) => Seen::error(e, Some("csv")),
        Ok(file) => {
            let config = RunConfig {
                n: file.n(),
                d: file.d(),
                batch: base.batch.min(file.n()),
                data: DataSource::Csv,
                ..base
            };
            run(config, Some(file))
        }
    }
}

/// The input at `path` (relative to tests/hostile), through its path.
fn outcome(path: &str) -> Seen {
    let bytes = std::fs::read(format!("{DIR}/{path}")).unwrap_or_else(|e| panic!("{path}: {e}"));
    let text = || String::from_utf8(bytes.clone()).expect("configs and links are UTF-8 text");
    if path.starts_with("configs/") {
        config(&text())
    } else if path.starts_with("links/") {
        link(&text())
    } else {
        csv(&bytes)
    }
}

/// The index: path → (outcome, fragment).
fn index() -> BTreeMap<String, (String, String)> {
    let text = std::fs::read_to_string(format!("{DIR}/expected.tsv")).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let mut cols = line.split('\t');
            let path = cols.next().unwrap_or("").to_string();
            let outcome = cols.next().unwrap_or("").to_string();
            let fragment = cols.next().unwrap_or("").to_string();
            (path, (outcome, fragment))
        })
        .collect()
}

/// Every input of the corpus: the files under tests/hostile and the bad-CSV corpus beside it.
fn inputs() -> Vec<String> {
    let mut out = Vec::new();
    for dir in ["configs", "links", "csv", "../bad_csv"] {
        let mut names: Vec<String> = std::fs::read_dir(format!("{DIR}/{dir}"))
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .map(|entry| entry.expect("a directory entry").file_name())
            .map(|name| format!("{dir}/{}", name.to_string_lossy()))
            .filter(|p| p.ends_with(".json") || p.ends_with(".txt") || p.ends_with(".csv"))
            .collect();
        names.sort();
        out.extend(names);
    }
    out
}

/// The first `FRAGMENT_CHARS` characters of `message`, on one line (tabs and newlines are the
/// index's separators).
fn fragment(message: &str) -> String {
    message
        .chars()
        .take(FRAGMENT_CHARS)
        .map(|c| if c == '\t' || c == '\n' { ' ' } else { c })
        .collect::<String>()
        .trim_end()
        .to_string()
}

/// Whether an outcome is one the acceptance allows: a release, or an error (or a link's
/// fallback) naming a control on the page or the file's error line, the run after a fallback
/// releasing.
fn acceptable(outcome: &str) -> bool {
    let named = |field: &str| {
        EXTRA_FIELDS.contains(&field) || Control::of(field).is_some_and(Control::on_page)
    };
    if outcome == "release" {
        return true;
    }
    if let Some(field) = outcome.strip_prefix("error ") {
        return named(field);
    }
    if let Some((fields, then)) = outcome
        .strip_prefix("fallback ")
        .and_then(|rest| rest.split_once("; "))
    {
        // A link's own errors (not JSON, too long) name the link: shown in the run's line.
        return then == "release" && fields.split(',').all(|f| named(f) || f == "-");
    }
    false
}

#[test]
fn every_hostile_input_has_its_exact_expected_outcome() {
    let inputs = inputs();
    assert!(inputs.len() >= 100, "{} inputs", inputs.len());
    let page = common::page();
    let expected = index();
    let mut seen: BTreeMap<String, (String, String)> = BTreeMap::new();
    let mut wrong = Vec::new();
    for path in &inputs {
        let Seen {
            outcome,
            message,
            errors,
        } = outcome(path);
        if !acceptable(&outcome) {
            wrong.push(format!("{path}: {outcome} is neither a finite release nor an error at a control ({message})"));
        }
        for e in &errors {
            let faults = common::wording_faults(e, &page, &EXTRA_FIELDS);
            if !faults.is_empty() {
                wrong.push(format!("{path}: \"{e}\": {faults:?}"));
            }
        }
        match expected.get(path) {
            Some((o, f)) if *o == outcome && message.contains(f.as_str()) => {}
            Some((o, f)) => wrong.push(format!(
                "{path}: expected {o} with \"{f}\", got {outcome}: {message}"
            )),
            None => wrong.push(format!(
                "{path}: not in the index (got {outcome}: {message})"
            )),
        }
        seen.insert(path.clone(), (outcome, fragment(&message)));
    }
    for path in expected.keys().filter(|p| !seen.contains_key(*p)) {
        wrong.push(format!("{path}: in the index but no such file"));
    }
    if std::env::var_os("HOSTILE_BLESS").is_some() {
        let mut text = String::from(
            "# The hostile corpus: input (relative to tests/hostile), its exact outcome, and a\n\
             # fragment of the first message (tests/playground/hostile_corpus.rs says how each is run).\n",
        );
        for (path, (outcome, fragment)) in &seen {
            text.push_str(&format!("{path}\t{outcome}\t{fragment}\n"));
        }
        std::fs::write(format!("{DIR}/expected.tsv"), text).expect("the index");
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for path in &inputs {
        *counts
            .entry(path.split('/').rev().nth(1).unwrap_or(""))
            .or_default() += 1;
    }
    eprintln!("{} inputs: {counts:?}", inputs.len());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
