//! The fuzz targets: every parser a user reaches, with the seeds its mutants start from and
//! what the page runs on an input the parser accepts.

use std::sync::OnceLock;

use arbitrary::{Result, Unstructured};
use dp_playground::algo::family::ProblemKind;
use dp_playground::algo::registry::FAMILIES;
use dp_playground::config::RunConfig;
use dp_playground::config::menu;
use dp_playground::data::{CsvOptions, LabelColumn, LabelRange, MAX_COLUMNS, load_csv};
use dp_playground::plot_spec::{KINDS, Spec};
use dp_playground::session;
use serde_json::{Value, json};

use super::engine::Target;
use super::mutate::{self, Words};

/// Every target, in the order the loop runs them.
pub const TARGETS: [Target; 6] = [
    Target {
        name: "config",
        input: config_input,
        exec: config_exec,
        share: 1,
    },
    Target {
        name: "link",
        input: config_input,
        exec: link_exec,
        share: 1,
    },
    // A preview solves calibrations (tens to hundreds of milliseconds for some families in a
    // debug build): a thousandth of the parsers' inputs.
    Target {
        name: "preview",
        input: config_input,
        exec: preview_exec,
        share: 1000,
    },
    Target {
        name: "csv",
        input: csv_input,
        exec: csv_exec,
        share: 1,
    },
    Target {
        name: "plot",
        input: plot_input,
        exec: plot_exec,
        share: 1,
    },
    // Whole runs of every family at the edges: seconds each in a debug build,
    // so a thousandth of the parsers' inputs, as the previews.
    Target {
        name: "edges",
        input: super::edge_configs::input,
        exec: super::edge_configs::exec,
        share: 1000,
    },
];

/// A seed corpus of JSON values with the words its mutations draw from.
struct Corpus {
    seeds: Vec<Value>,
    keys: Vec<String>,
    strings: Vec<String>,
}

impl Corpus {
    fn new(seeds: Vec<Value>) -> Self {
        let (mut keys, mut strings) = (Vec::new(), Vec::new());
        for s in &seeds {
            mutate::dictionary(s, &mut keys, &mut strings);
        }
        Corpus {
            seeds,
            keys,
            strings,
        }
    }

    fn mutant(&self, u: &mut Unstructured<'_>) -> Result<Vec<u8>> {
        let seed = u.choose(&self.seeds)?;
        let words = Words {
            keys: &self.keys,
            strings: &self.strings,
        };
        mutate::json(u, seed, &words)
    }
}

// ---- configs and links ----

/// The links the page makes: the default, every algorithm picked from the menu (each need met,
/// as the page's menu does), the saddle problem posed, and a compare set; plus every choice the
/// config's enums offer, as words for the mutations.
fn config_corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let base = RunConfig::default();
        let mut configs = vec![base.clone()];
        for family in FAMILIES {
            configs.push(menu::pick(&base, family.kind).0);
        }
        if let Ok((saddle, _)) = menu::pose(&base, ProblemKind::Saddle) {
            for family in FAMILIES {
                configs.push(menu::pick(&saddle, family.kind).0);
            }
            configs.push(saddle);
        }
        let mut compare = base.clone();
        compare.compare = FAMILIES.iter().skip(1).take(3).map(|f| f.kind).collect();
        configs.push(compare);
        let mut seeds: Vec<Value> = configs
            .iter()
            .filter_map(|c| serde_json::from_str(&c.to_json()).ok())
            .collect();
        // Choices a picked config does not show (losses, tails, domains, data sources) reach the
        // dictionary through these.
        seeds.extend([
            json!({"loss": {"kind": "huber", "delta": 1.0}, "wrap": {"kind": "tilted", "tau": 1.0}}),
            json!({"loss": {"kind": "smoothed_hinge", "gamma": 1.0}, "wrap": {"kind": "adversarial", "radius": 0.1}}),
            json!({"loss": {"kind": "squared", "label_bound": 1.0}, "tail": {"kind": "student_t", "nu": 3.0}}),
            json!({"tail": {"kind": "pareto_radial", "alpha": 3.0}, "data": "csv"}),
            json!({"tail": {"kind": "log_normal", "sigma": 1.0}, "relation": "add_remove"}),
            json!({"tail": {"kind": "contaminated", "p": 0.05, "scale": 10.0}}),
        ]);
        Corpus::new(seeds)
    })
}

fn config_input(u: &mut Unstructured<'_>) -> Vec<u8> {
    config_corpus().mutant(u).unwrap_or_default()
}

/// The strict parser (`normaliseConfig`, `preview`, `Session::new`): an accepted config passes
/// the session's check, and its own JSON (the link the page then makes) reads back to the same
/// config.
fn config_exec(input: &[u8]) -> std::result::Result<(), String> {
    // Text from JS is always valid UTF-8 by the time it reaches a `&str`.
    let Ok(text) = std::str::from_utf8(input) else {
        return Ok(());
    };
    let Ok(config) = RunConfig::from_json(text) else {
        return Ok(());
    };
    config
        .check()
        .map_err(|e| format!("from_json accepted a config check refuses: {e}"))?;
    match RunConfig::from_json(&config.to_json()) {
        Ok(again) if again == config => Ok(()),
        Ok(_) => Err("the config's own JSON reads back to another config".into()),
        Err(e) => Err(format!("the config's own JSON is refused: {e}")),
    }
}

/// The lenient link reader (`configFromLink`): whatever the link, the config it yields is valid.
fn link_exec(input: &[u8]) -> std::result::Result<(), String> {
    let Ok(text) = std::str::from_utf8(input) else {
        return Ok(());
    };
    let (config, _errors) = RunConfig::from_json_lenient(text);
    config
        .validate()
        .map_err(|e| format!("the lenient reader returned a config that does not validate: {e}"))
}

/// What a link reaches before a run: the previews of each lane (`previews`) and the composed
/// guarantee (`composeRun`) of the strictly parsed config, or else of the leniently read one;
/// then a pick from the menu and a problem posed (`pickAlgorithm`, `pickProblem`), chosen by
/// the input, as a person would click next.
fn preview_exec(input: &[u8]) -> std::result::Result<(), String> {
    let Ok(text) = std::str::from_utf8(input) else {
        return Ok(());
    };
    let config =
        RunConfig::from_json(text).unwrap_or_else(|_| RunConfig::from_json_lenient(text).0);
    for kind in config.algorithms() {
        let _ = session::preview(&config.lane(kind));
    }
    let _ = session::publish::compose_run(&config);
    let kind = FAMILIES[input.len() % FAMILIES.len()].kind;
    let _ = session::preview(&menu::pick(&config, kind).0);
    let problem = if input.len() % 2 == 0 {
        ProblemKind::Saddle
    } else {
        ProblemKind::Minimisation
    };
    if let Ok((posed, _)) = menu::pose(&config, problem) {
        let _ = session::preview(&posed);
    }
    Ok(())
}

// ---- CSV files ----

/// The bad-input corpus, and well-formed files in each dialect the loader reads.
fn csv_corpus() -> &'static Vec<Vec<u8>> {
    static CORPUS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_csv");
        let mut files: Vec<Vec<u8>> = std::fs::read_dir(&dir)
            .map(|entries| {
                let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
                paths.sort();
                paths
                    .into_iter()
                    .filter_map(|p| std::fs::read(p).ok())
                    .collect()
            })
            .unwrap_or_default();
        files.extend(
            [
                "x1,x2,y\n0.5,-1.25,1\n1e-3,2,-1\n-0.75,0.125,1\n3,4,-1\n",
                "0.5;-1.25;1\r\n1e-3;2;-1\r\n-0.75;0.125;1\r\n",
                "a\tb\tc\tlabel\n1\t2\t3\t0.5\n4\t5\t6\t-2.5\n7\t8\t9\t1e2\n",
                "\u{feff}label,x\n1,0.1\n-1,0.2\n1,0.3\n-1,0.4\n",
                "\"x\",\"y\"\n\"1.5\",\"1\"\n\"2.5\",\"-1\"\n",
                "1,2,3,4,5,6,7,8,9,10,1\n10,9,8,7,6,5,4,3,2,1,-1\n",
            ]
            .map(|s| s.as_bytes().to_vec()),
        );
        files
    })
}

/// Labels as a person types them in the page's label field.
const LABELS: [&str; 10] = [
    "",
    "last",
    "first",
    "1",
    "2",
    "0",
    "label",
    "y",
    "99999999999999999999",
    " x1 ",
];

/// An input is one line of options — `<label>\t<margin 0/1>\t<delimiter: auto , ; tab or
/// another>\t<header: auto 0 1>` — then the file's bytes.
fn csv_input(u: &mut Unstructured<'_>) -> Vec<u8> {
    let mut build = || -> Result<Vec<u8>> {
        let label = if u.ratio(7, 8)? {
            u.choose(&LABELS)?.to_string()
        } else {
            u.arbitrary::<String>()?.replace(['\t', '\n'], " ")
        };
        let margin = u.int_in_range(0..=1u8)?;
        let delimiter = *u.choose(&["auto", "auto", "auto", ",", ";", "tab", "|"])?;
        let header = *u.choose(&["auto", "auto", "0", "1"])?;
        let seed = u.choose(csv_corpus())?;
        let file = mutate::csv(u, seed)?;
        let mut input = format!("{label}\t{margin}\t{delimiter}\t{header}\n").into_bytes();
        input.extend(file);
        Ok(input)
    };
    build().unwrap_or_default()
}

/// Splits an input into the options line (parsed as [`csv_input`] writes it) and the file.
fn csv_options(input: &[u8]) -> Option<(CsvOptions, &str, &[u8])> {
    let nl = input.iter().position(|&b| b == b'\n')?;
    let line = std::str::from_utf8(&input[..nl]).ok()?;
    let mut parts = line.split('\t');
    let label = parts.next()?;
    let margin = parts.next()? == "1";
    let mut options = CsvOptions::for_page(label, margin);
    options.delimiter = match parts.next()? {
        "auto" => None,
        "tab" => Some('\t'),
        other => other.chars().next(),
    };
    options.header = match parts.next()? {
        "0" => Some(false),
        "1" => Some(true),
        _ => None,
    };
    Some((options, label, &input[nl + 1..]))
}

/// The CSV loader, as `inspectCsv` and `Session::new` call it (the page's options) and with
/// the options set explicitly: a file it accepts holds at least one row, at most
/// [`MAX_COLUMNS`] columns, finite numbers only, and ±1 labels where a margin loss asked.
fn csv_exec(input: &[u8]) -> std::result::Result<(), String> {
    let Some((options, label, file)) = csv_options(input) else {
        return Ok(());
    };
    let page = CsvOptions::for_page(label, options.labels == LabelRange::PlusMinusOne);
    for opts in [&page, &options] {
        let Ok(data) = load_csv(file, opts) else {
            continue;
        };
        if data.n() == 0 || data.d() == 0 || data.d() + 1 > MAX_COLUMNS {
            return Err(format!(
                "accepted a file of {} rows × {} features",
                data.n(),
                data.d()
            ));
        }
        for (i, (x, y)) in data.samples().enumerate() {
            if !y.is_finite() || x.iter().any(|v| !v.is_finite()) {
                return Err(format!("row {i} holds a non-finite number"));
            }
            if opts.labels == LabelRange::PlusMinusOne && y != 1.0 && y != -1.0 {
                return Err(format!("row {i}'s label {y} is not ±1 under a margin loss"));
            }
        }
        if let LabelColumn::Number { number } = opts.label
            && number > data.d() + 1
        {
            return Err(format!("label column {number} beyond the file's columns"));
        }
    }
    Ok(())
}

// ---- plot specs ----

/// Specs as the page builds them (www/drawing/plots.js), one or more per kind.
fn plot_corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let curve: Vec<f64> = (0..40).map(|i| 0.9f64.powi(i)).collect();
        let x: Vec<f64> = (1..=40).map(f64::from).collect();
        let seeds = vec![
            json!({"kind": "excess", "spec": {"series": [
                {"label": "DP-GD", "color": 0, "x": x, "mean": curve, "lo": curve, "hi": curve,
                 "theoryX": [1, 40], "theoryY": [0.5, 0.01]},
                {"label": "output perturbation", "color": 1, "x": [1, 2], "mean": [0.1, 0.05]}],
                "title": "excess", "unavailable": null}}),
            json!({"kind": "excess", "spec": {"series": [], "unavailable": "no reference"}}),
            json!({"kind": "path", "spec": {"extent": 1.5, "center": [0.1, -0.2],
                "axisLabels": ["w₁", "w₂"], "grid": [1, 2, 3, 4, 5, 6, 7, 8, 9],
                "domain": {"kind": "l2_ball", "radius": 1},
                "paths": [{"color": 0, "label": "DP-GD", "xy": [0, 0, 0.5, 0.5, 0.7, 0.6]}],
                "wStar": [0.7, 0.6], "sensitivityRadius": 0.1,
                "releases": [{"color": 0, "xy": [0.6, 0.5, 0.8, 0.7]}]}}),
            json!({"kind": "path", "spec": {"extent": 1, "domain": {"kind": "box", "lo": -1, "hi": 1}}}),
            json!({"kind": "path", "spec": {"extent": 1, "domain": {"kind": "l1_ball", "radius": 0.5}}}),
            json!({"kind": "path", "spec": {"extent": 1, "domain": {"kind": "simplex"}}}),
            json!({"kind": "path", "spec": {"extent": 1, "domain": {"kind": "polyline", "xy": [0, 0, 1, 0, 0, 1]}}}),
            json!({"kind": "path", "spec": {"extent": 1, "domain": {"kind": "unconstrained"}}}),
            json!({"kind": "noise", "spec": {"norms": [0.3, 0.5, 0.2, 0.9],
                "law": {"kind": "gaussian", "sigma": 0.1, "d": 10}, "title": "noise"}}),
            json!({"kind": "noise", "spec": {"norms": [1, 2], "law": {"kind": "l2_laplace", "scale": 0.5, "d": 2}}}),
            json!({"kind": "noise", "spec": {"norms": [], "law": {"kind": "none"}}}),
            json!({"kind": "privacy", "spec": {"series": [{"label": "DP-GD", "color": 0,
                "x": [1, 2, 3], "eps": [0.1, 0.2, 0.3]}], "target": 1, "span": 100}}),
            json!({"kind": "privacy", "spec": {"series": [], "target": null}}),
            json!({"kind": "features", "spec": {"norms": [0.5, 1, 2, 4], "threshold": 2,
                "clippedFraction": 0.25}}),
            json!({"kind": "players", "spec": {"x": [0.3, 0.7], "y": [0.5, 0.5],
                "releaseX": [0.4, 0.6], "releaseY": [0.5, 0.5],
                "equilibriumX": [0.5, 0.5], "equilibriumY": [0.5, 0.5]}}),
            json!({"kind": "players", "spec": {"x": [0.2, 0.3, 0.5], "y": [0.4, 0.3, 0.3],
                "releaseX": [0.1, 0.1, 0.8], "ternary": true,
                "pathX": [0.3, 0.3, 0.4, 0.2, 0.3, 0.5], "pathY": [0.4, 0.3, 0.3, 0.4, 0.3, 0.3]}}),
            json!({"kind": "vertices", "spec": {"steps": [0, 4, 8], "draws": [0, 2, 1, 1, 2, 0],
                "denseX": [0.2, 0.3, 0.5], "denseY": [0.6, 0.2, 0.2]}}),
            json!({"kind": "roc", "spec": {"fpr": [0, 0.01, 1], "tpr": [0.1, 0.2, 1],
                "allowedFpr": [0.001, 0.01, 1], "allowedTpr": [0.003, 0.03, 1], "floor": 0.001,
                "marks": [0.01, 0.1], "label": "measured", "allowedLabel": "allowed"}}),
        ];
        Corpus::new(seeds)
    })
}

/// An input is `{"kind": …, "spec": …}` mutated as a tree (so the kind is mutated too).
fn plot_input(u: &mut Unstructured<'_>) -> Vec<u8> {
    plot_corpus().mutant(u).unwrap_or_default()
}

/// The plot spec parser and checks `drawPlot` and `plotSvg` run before drawing.
fn plot_exec(input: &[u8]) -> std::result::Result<(), String> {
    let Ok(Value::Object(mut outer)) = serde_json::from_slice::<Value>(input) else {
        return Ok(());
    };
    let kind = match outer.remove("kind") {
        Some(Value::String(k)) => k,
        _ => KINDS[input.len() % KINDS.len()].to_string(),
    };
    let spec = outer.remove("spec").unwrap_or(Value::Null);
    let _ = Spec::parse(&kind, spec);
    Ok(())
}

// ---- game configs, heavy-tail configs and composition ----

/// The hardening targets, beside [`TARGETS`] (kept apart so that other targets join either list
/// without touching this one). A run is built for accepted configs small enough to run in a
/// fuzz execution, so these are as slow as the preview: a thousandth of the parsers' inputs.
pub const HARDENING_TARGETS: [Target; 3] = [
    Target {
        name: "saddle",
        input: saddle_input,
        exec: run_exec,
        share: 1000,
    },
    Target {
        name: "heavy",
        input: heavy_input,
        exec: run_exec,
        share: 1000,
    },
    Target {
        name: "compose",
        input: compose_input,
        exec: compose_exec,
        share: 300,
    },
];

/// Every game of the menu posed for every family that solves games, both record laws, and the
/// edges of the game settings (entry bound, moduli, radius, d).
fn saddle_corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let base = RunConfig {
            n: 200,
            steps: 10,
            batch: 20,
            ..RunConfig::default()
        };
        let mut seeds = Vec::new();
        if let Ok((saddle, _)) = menu::pose(&base, ProblemKind::Saddle) {
            for family in FAMILIES {
                let picked = menu::pick(&saddle, family.kind).0;
                if picked.problem == ProblemKind::Saddle {
                    seeds.push(serde_json::from_str(&picked.to_json()).unwrap_or(Value::Null));
                }
            }
        }
        for game in [
            "rock_paper_scissors",
            "random_matrix",
            "ball_game",
            "query_release",
            "l1_system_fit",
            "group_dro_logistic",
            "group_dro_squares_simplex",
            "auc_maximisation",
        ] {
            seeds.push(
                json!({"problem": "saddle", "game": game, "records": "heavy",
                "entry_bound": 1e3, "mu_x": 1e-9, "mu_y": 1e3, "radius": 1e-3, "d": 3}),
            );
        }
        Corpus::new(seeds)
    })
}

fn saddle_input(u: &mut Unstructured<'_>) -> Vec<u8> {
    saddle_corpus().mutant(u).unwrap_or_default()
}

/// Every heavy-tail family (Lowy 2026; the clipped and localized ones) picked from the menu,
/// with every feature tail at its edges and the heavy-tail settings at theirs.
fn heavy_corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let base = RunConfig {
            n: 300,
            steps: 10,
            batch: 30,
            ..RunConfig::default()
        };
        let mut seeds = Vec::new();
        for family in FAMILIES
            .iter()
            .filter(|f| f.takes(dp_playground::config::Control::MomentK))
        {
            let picked = menu::pick(&base, family.kind).0;
            seeds.push(serde_json::from_str(&picked.to_json()).unwrap_or(Value::Null));
        }
        seeds.extend([
            json!({"tail": {"kind": "student_t", "nu": 0.25}, "moment_k": 100, "repetitions": 101}),
            json!({"tail": {"kind": "pareto_radial", "alpha": 0.25}, "moment_k": 2, "lambda1": 1e6}),
            json!({"tail": {"kind": "log_normal", "sigma": 8}, "budget_u": 1e9, "feature_scale": 1e3}),
            json!({"tail": {"kind": "contaminated", "p": 1, "scale": 1e6}, "clip": 1e-9}),
            json!({"tail": {"kind": "rare_outlier", "p": 1e-9, "a": 1e6}, "heavy_solver": "adaptive_subgradient"}),
            json!({"noise_tail": {"kind": "student_t", "nu": 0.25}, "loss": {"kind": "squared", "label_bound": 1e6}}),
        ]);
        Corpus::new(seeds)
    })
}

fn heavy_input(u: &mut Unstructured<'_>) -> Vec<u8> {
    heavy_corpus().mutant(u).unwrap_or_default()
}

/// What an error must be to be shown: at a control the page shows (or none),
/// and under 300 characters.
fn shown_error(e: &dp_playground::Error) -> std::result::Result<(), String> {
    let text = e.to_string();
    if text.chars().count() > 300 {
        return Err(format!(
            "an error of {} characters: {text}",
            text.chars().count()
        ));
    }
    match e.field() {
        Some(field) if dp_playground::config::Control::of(field).is_none_or(|c| !c.on_page()) => {
            Err(format!(
                "an error at {field}, no control the page shows: {text}"
            ))
        }
        _ => Ok(()),
    }
}

/// A config as the page reads a link (strictly, else leniently): its preview and composition,
/// then, when they accept it and it is small, the run to its release. Every error is one the
/// page can show beside a control; every number the run publishes is finite (NaN only where a
/// column says "no value"), and no slice of 20 steps takes a second (the engine's `SLOW`).
fn run_exec(input: &[u8]) -> std::result::Result<(), String> {
    let Ok(text) = std::str::from_utf8(input) else {
        return Ok(());
    };
    let config =
        RunConfig::from_json(text).unwrap_or_else(|_| RunConfig::from_json_lenient(text).0);
    if let Err(e) = config.validate() {
        return shown_error(&e);
    }
    for kind in config.algorithms() {
        if let Err(e) = session::preview(&config.lane(kind)) {
            return shown_error(&e);
        }
    }
    let composed = match session::publish::compose_run(&config) {
        Ok(c) => c,
        Err(e) => return shown_error(&e),
    };
    // A NOT private baseline (the non-private SMD) honestly composes to ε = ∞.
    if !((composed.epsilon.is_finite() || composed.not_private) && composed.delta < 1.0) {
        return Err(format!(
            "composed to ε = {}, δ = {}",
            composed.epsilon, composed.delta
        ));
    }
    let small = config.n <= 1000 && config.d <= 10 && config.steps <= 50 && config.repeats <= 2;
    if !small || !config.compare.is_empty() {
        return Ok(());
    }
    let mut run = match session::Session::new(config) {
        Ok(run) => run,
        Err(e) => return Err(format!("the preview accepted what the run refused: {e}")),
    };
    let infinite = |v: &f64| v.is_infinite();
    for _ in 0..20 {
        let batch = run.advance(20, || true);
        // ε spent is ∞ in a NOT private baseline's column, honestly.
        let spent: &[f64] = if composed.not_private {
            &[]
        } else {
            &batch.epsilon_spent
        };
        if batch
            .loss
            .iter()
            .chain(&batch.excess)
            .chain(spent)
            .any(infinite)
        {
            return Err("a column holds ±∞".into());
        }
        if let Some(d) = batch.diagnostics.iter().find(|d| !d.value.is_finite()) {
            return Err(format!("the diagnostic {} = {}", d.name, d.value));
        }
        if let Some(release) = &batch.release {
            let point = release.w().iter().chain(release.y().into_iter().flatten());
            if !point.chain([&release.loss]).all(|v| v.is_finite()) {
                return Err(format!(
                    "a release of non-finite numbers: {:?}",
                    release.w()
                ));
            }
            if let Some(p) = release.population
                && !(p.value.is_finite() && p.std_error.is_finite())
            {
                return Err(format!("a population estimate {p:?}"));
            }
            break;
        }
        if batch.done {
            break;
        }
    }
    Ok(())
}

/// A list of 1 to 8 configs (mutants of the page's links, the game and heavy-tail seeds), as the
/// page's composition of the runs on one data set reads it.
fn compose_input(u: &mut Unstructured<'_>) -> Vec<u8> {
    let mut build = || -> Result<Vec<u8>> {
        let count = u.int_in_range(1..=8usize)?;
        let mut items = Vec::new();
        for _ in 0..count {
            let corpus = *u.choose(&[config_corpus(), saddle_corpus(), heavy_corpus()])?;
            let bytes = corpus.mutant(u)?;
            items.push(String::from_utf8_lossy(&bytes).into_owned());
        }
        Ok(format!("[{}]", items.join(",")).into_bytes())
    };
    build().unwrap_or_default()
}

/// `composeRuns` on a list: the configs read strictly (as the page's wasm binding does); an
/// accepted list composes to a finite ε, a δ below 1 and at least one release per config, and
/// a refusal is an error the page can show.
fn compose_exec(input: &[u8]) -> std::result::Result<(), String> {
    let Ok(values) = serde_json::from_slice::<Vec<Value>>(input) else {
        return Ok(());
    };
    let Ok(configs) = values
        .iter()
        .map(|v| RunConfig::from_json(&v.to_string()))
        .collect::<dp_playground::error::Result<Vec<_>>>()
    else {
        return Ok(());
    };
    match session::publish::compose_runs(&configs) {
        Ok(c)
            if !((c.epsilon.is_finite() || c.not_private) && c.epsilon > 0.0 && c.delta < 1.0) =>
        {
            Err(format!("composed to ε = {}, δ = {}", c.epsilon, c.delta))
        }
        Ok(c) if c.releases < configs.len() => Err(format!(
            "{} releases for {} runs",
            c.releases,
            configs.len()
        )),
        Ok(_) => Ok(()),
        Err(e) => shown_error(&e),
    }
}
