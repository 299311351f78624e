//! The lessons of the page are data: one JSON file each in `lessons/`, listed in
//! `lessons/index.json`. These tests hold every file to the shape the page (`www/panels/lessons.js`)
//! reads, and run every preset through the parser the page uses for a link
//! (`RunConfig::from_link`) and then natively to its release, so a broken lesson fails
//! `cargo test` rather than a lecture.
//!
//! `cargo test --release --test playground lessons:: -- --ignored --nocapture` prints what each preset shows
//! (σ, releases, the composed total, the mean released excess risk or gap per algorithm): the
//! numbers the lessons' questions and answers were checked against.

use crate::common;

use std::collections::BTreeSet;
use std::path::PathBuf;

use dp_playground::config::RunConfig;
use dp_playground::lesson::{self, Lesson};
use dp_playground::session::{self, Lab};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Index {
    lessons: Vec<String>,
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("lessons")
}

fn index() -> Index {
    let text = std::fs::read_to_string(dir().join("index.json")).expect("lessons/index.json");
    serde_json::from_str(&text).expect("lessons/index.json: {\"lessons\": [ids]}")
}

/// Every lesson of the index, in its order.
fn lessons() -> Vec<Lesson> {
    index()
        .lessons
        .iter()
        .map(|id| {
            let path = dir().join(format!("{id}.json"));
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            // The reader the page uses too (`lessonCheck`): shape, texts and the prediction.
            Lesson::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        })
        .collect()
}

/// The preset read exactly as the page reads its hash: `encodeURIComponent(JSON)` after `#`.
fn preset(lesson: &Lesson) -> RunConfig {
    let json = lesson.preset.to_string();
    let link = format!(
        "http://127.0.0.1:8000/?lesson={}#{}",
        lesson.id,
        percent_encoding::utf8_percent_encode(&json, percent_encoding::NON_ALPHANUMERIC)
    );
    let (config, errors) = RunConfig::from_link(&link);
    assert!(
        errors.is_empty(),
        "lesson {}: the page would not use every setting of its preset: {errors:?}",
        lesson.id
    );
    config
}

#[test]
fn the_index_lists_every_lesson_file_once_and_nothing_else() {
    let listed = index().lessons;
    let unique: BTreeSet<&String> = listed.iter().collect();
    assert_eq!(
        unique.len(),
        listed.len(),
        "an id twice in lessons/index.json"
    );
    let files: BTreeSet<String> = std::fs::read_dir(dir())
        .expect("lessons/")
        .map(|e| {
            e.expect("a directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name != "index.json")
        .collect();
    let expected: BTreeSet<String> = listed.iter().map(|id| format!("{id}.json")).collect();
    let unlisted: Vec<&String> = files.difference(&expected).collect();
    let missing: Vec<&String> = expected.difference(&files).collect();
    assert!(
        unlisted.is_empty(),
        "lesson files missing from lessons/index.json (add their ids to it): {unlisted:?}"
    );
    assert!(
        missing.is_empty(),
        "ids in lessons/index.json without a file: {missing:?}"
    );
    assert!(listed.len() >= 12, "the page promises at least 12 lessons");
}

#[test]
fn every_lesson_has_its_parts_and_names_page_controls() {
    let page = common::page();
    for lesson in lessons() {
        let id = &lesson.id;
        assert!(
            id.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "{id}: an id is a URL word (a-z, 0-9, -)"
        );
        assert!(
            (2..=3).contains(&lesson.paragraphs.len()),
            "{id}: two or three paragraphs"
        );
        for (what, text) in [
            ("title", &lesson.title),
            ("watch", &lesson.watch),
            ("question", &lesson.question),
            ("answer", &lesson.answer),
            ("try_next", &lesson.try_next),
        ]
        .into_iter()
        .chain(lesson.paragraphs.iter().map(|p| ("paragraph", p)))
        {
            assert!(text.trim().len() > 10, "{id}: its {what} is empty");
            assert!(!text.contains("TODO"), "{id}: its {what} is a placeholder");
            assert!(!text.contains("  "), "{id}: double space in its {what}");
        }
        assert!(
            lesson.question.trim_end().ends_with('?'),
            "{id}: the question asks"
        );
        assert!(
            lesson.preset.is_object(),
            "{id}: a preset is a JSON object of settings"
        );
        assert!(
            !lesson.controls.is_empty(),
            "{id}: embed mode needs a control"
        );
        for control in &lesson.controls {
            assert!(
                page.contains(&format!("id=\"{control}\"")),
                "{id}: no control id=\"{control}\" on the page"
            );
        }
        assert!(lesson.plots.len() <= 2, "{id}: at most two main plots");
        for plot in &lesson.plots {
            assert!(
                plot.ends_with("-plot") && page.contains(&format!("<canvas id=\"{plot}\"")),
                "{id}: no plot <canvas id=\"{plot}\"> on the page"
            );
        }
    }
}

#[test]
fn every_preset_reads_without_fallback_and_is_a_valid_run() {
    for lesson in lessons() {
        let config = preset(&lesson);
        config
            .check()
            .unwrap_or_else(|e| panic!("lesson {}: {e}", lesson.id));
        // The guarantee the page shows before Play, for each compared algorithm too.
        for kind in config.algorithms() {
            session::preview(&config.lane(kind))
                .unwrap_or_else(|e| panic!("lesson {} ({kind:?}): {e}", lesson.id));
        }
        session::publish::compose_run(&config)
            .unwrap_or_else(|e| panic!("lesson {}: {e}", lesson.id));
    }
}

/// What a preset's run showed: per algorithm, the mean released excess risk (or gap) and the
/// most gradient evaluations a lane made; and how many lanes released.
struct Shown {
    excess: Vec<Option<f64>>,
    grad_evals: Vec<f64>,
    released: usize,
}

/// Runs a preset to its end.
fn run(config: RunConfig) -> Shown {
    let lanes = 1 + config.compare.len();
    let mut lab = Lab::new(config, None).expect("the lab");
    let mut sums = vec![(0.0, 0usize); lanes];
    let mut grad_evals = vec![0.0f64; lanes];
    let mut released = 0;
    while !lab.is_done() {
        for lane in lab.advance(usize::MAX, || true) {
            if let Some(&g) = lane.batch.grad_evals.last() {
                grad_evals[lane.algorithm] = grad_evals[lane.algorithm].max(g);
            }
            if let Some(r) = lane.batch.release {
                released += 1;
                if let Some(e) = r.excess {
                    sums[lane.algorithm].0 += e;
                    sums[lane.algorithm].1 += 1;
                }
            }
        }
    }
    let excess = sums
        .iter()
        .map(|&(s, c)| (c > 0).then(|| s / c as f64))
        .collect();
    Shown {
        excess,
        grad_evals,
        released,
    }
}

#[test]
fn every_preset_runs_to_its_release() {
    for lesson in lessons() {
        let config = preset(&lesson);
        let lanes = config.repeats * (1 + config.compare.len());
        let released = run(config).released;
        assert_eq!(released, lanes, "lesson {}: every lane releases", lesson.id);
    }
}

#[test]
fn no_lesson_names_a_paper_by_an_internal_number() {
    for lesson in lessons() {
        let text = [
            lesson.title.as_str(),
            &lesson.paragraphs.join(" "),
            &lesson.watch,
            &lesson.question,
            &lesson.answer,
            &lesson.try_next,
        ]
        .join(" ")
        .to_lowercase();
        assert!(
            !common::names_an_internal_number(&text),
            "lesson {}: name the paper by authors, title and year",
            lesson.id
        );
    }
}

/// σ of the main algorithm of `config`, as the page states it before the run.
fn sigma(config: &RunConfig) -> f64 {
    session::preview(config).expect("the preview").sigma
}

/// The answers' claims that a change of the code could make false, checked on the runs they
/// describe (the numbers themselves are in the answers; `print_what_the_questions_ask_for`
/// prints them).
#[test]
fn the_answers_hold_for_the_runs_they_describe() {
    let ratio = |a: f64, b: f64| a / b;
    // Noise against ε: the ℓ2-Laplace scale is sensitivity/ε; the excess falls ≈ 100-fold.
    let (at_02, at_2) = (
        variant("noise-vs-epsilon", "{}"),
        variant("noise-vs-epsilon", r#"{"epsilon": 2}"#),
    );
    assert!((ratio(sigma(&at_02), sigma(&at_2)) - 10.0).abs() < 1e-9);
    let e = ratio(run(at_02).excess[0].unwrap(), run(at_2).excess[0].unwrap());
    assert!((30.0..300.0).contains(&e), "excess ratio {e}");
    // Composition: a quarter of the steps halves σ, and the shorter run ends lower here.
    let (long, short) = (
        variant("composition-over-steps", "{}"),
        variant("composition-over-steps", r#"{"steps": 100}"#),
    );
    assert!((ratio(sigma(&long), sigma(&short)) - 2.0).abs() < 1e-6);
    assert!(run(short).excess[0] < run(long).excess[0]);
    // Clipping: ten times C is ten times σ, and a lower released excess.
    let (small, g) = (
        variant("clipping-bias", "{}"),
        variant("clipping-bias", r#"{"clip": 1}"#),
    );
    assert!((ratio(sigma(&g), sigma(&small)) - 10.0).abs() < 1e-6);
    assert!(run(g).excess[0].unwrap() < run(small).excess[0].unwrap() / 3.0);
    // Heavy tails at n = 4000: the clipped GD baseline releases the lowest excess risk.
    let e = run(variant("heavy-tails-threshold", "{}")).excess;
    let e: Vec<f64> = e.into_iter().map(|v| v.expect("a reference")).collect();
    assert!(e[1] < e[0] && e[1] < e[2], "{e:?}");
    // Output against gradient perturbation at ε = 0.5: output perturbation is lower.
    let e = run(variant("output-vs-gradient", "{}")).excess;
    assert!(e[0].unwrap() < e[1].unwrap(), "{e:?}");
    // A solver swap changes the gradient count, never σ; GD is the cheapest here.
    let counts: Vec<f64> = ["gd", "agd", "svrg"]
        .iter()
        .map(|solver| {
            let config = variant(
                "bring-your-own-solver",
                &format!(r#"{{"solver": "{solver}"}}"#),
            );
            assert_eq!(
                sigma(&config),
                sigma(&variant("bring-your-own-solver", "{}"))
            );
            run(config).grad_evals[0]
        })
        .collect();
    assert!(counts[0] < counts[1] && counts[1] < counts[2], "{counts:?}");
    let sgd = variant("certificate-black-box", "{}");
    let agd = variant("certificate-black-box", r#"{"solver": "agd"}"#);
    assert_eq!(sigma(&sgd), sigma(&agd));
    // DP-SVRG: the certified σ is larger, and its release worse; the headline is a guarantee.
    let (printed, certified) = (
        variant("svrg-as-printed", "{}"),
        variant("svrg-as-printed", r#"{"svrg_noise": "certified"}"#),
    );
    assert!(!session::preview(&printed).unwrap().leaks.is_empty());
    assert!(session::preview(&certified).unwrap().leaks.is_empty());
    assert!(ratio(sigma(&certified), sigma(&printed)) > 2.0);
    assert!(run(printed).excess[0] < run(certified).excess[0]);
    // The private duality gap jumps at the release far above the certified solve's.
    let gap = run(variant("private-duality-gap", "{}")).excess[0].unwrap();
    assert!(gap > 0.1, "{gap}");
    // Vertex sampling: the non-private baseline closes the gap further.
    let e = run(variant("vertex-sampling", "{}")).excess;
    assert!(e[1].unwrap() < e[0].unwrap() / 3.0, "{e:?}");
    // Many releases: ten compose to more than one and less than ten times one.
    let total = session::publish::compose_run(&variant("many-releases", "{}"))
        .unwrap()
        .epsilon;
    assert!((1.0..5.0).contains(&total), "{total}");
}

/// What each preset shows, for checking the lessons' words against the runs.
#[test]
#[ignore]
fn print_what_each_lesson_shows() {
    for lesson in lessons() {
        let config = preset(&lesson);
        println!("== {}", lesson.id);
        for kind in config.algorithms() {
            let p = session::preview(&config.lane(kind)).unwrap();
            println!(
                "  {kind:?}: σ = {:.4e}, releases = {}, sensitivity = {:.4e}, guarantee = {:?}, leaks = {:?}",
                p.sigma, p.releases, p.sensitivity, p.guarantee, p.leaks
            );
        }
        let c = session::publish::compose_run(&config).unwrap();
        println!(
            "  composed: {} releases, ε = {:.4}, δ = {:.3e} ({})",
            c.releases, c.epsilon, c.delta, c.method
        );
        print_run(config);
    }
}

fn print_run(config: RunConfig) {
    let shown = run(config);
    println!(
        "  mean released excess (or gap) per algorithm: {:?}; gradient evaluations: {:?}",
        shown.excess, shown.grad_evals
    );
}

/// One preset with some settings changed, as a lesson's question asks (`changes`: JSON fields).
fn variant(id: &str, changes: &str) -> RunConfig {
    let lesson = lessons()
        .into_iter()
        .find(|l| l.id == id)
        .expect("the lesson");
    let mut preset = lesson.preset.clone();
    let changes: serde_json::Value = serde_json::from_str(changes).expect("JSON");
    for (k, v) in changes.as_object().expect("an object") {
        preset[k] = v.clone();
    }
    let (config, errors) = RunConfig::from_link(&preset.to_string());
    assert!(errors.is_empty(), "{errors:?}");
    config
}

/// The runs the lessons' questions ask for ("move ε to 2", "switch the solver"), printed beside
/// the presets': the numbers each answer was checked against.
#[test]
#[ignore]
fn print_what_the_questions_ask_for() {
    for (id, changes) in [
        ("noise-vs-epsilon", r#"{"epsilon": 2}"#),
        ("composition-over-steps", r#"{"steps": 100}"#),
        ("clipping-bias", r#"{"clip": 1}"#),
        ("heavy-tails-threshold", r#"{"steps": 200}"#),
        ("output-vs-gradient", r#"{"epsilon": 5}"#),
        ("certificate-black-box", r#"{"solver": "agd"}"#),
        ("svrg-as-printed", r#"{"svrg_noise": "certified"}"#),
        ("bring-your-own-solver", r#"{"solver": "agd"}"#),
        ("bring-your-own-solver", r#"{"solver": "svrg"}"#),
        ("private-duality-gap", r#"{"minimax_solver": "gda"}"#),
        ("vertex-sampling", r#"{"epsilon": 10}"#),
        ("many-releases", r#"{"repeats": 1}"#),
    ] {
        let config = variant(id, changes);
        println!("== {id} with {changes}");
        for kind in config.algorithms() {
            let p = session::preview(&config.lane(kind)).unwrap();
            println!(
                "  {kind:?}: σ = {:.4e}, releases = {}, sensitivity = {:.4e}",
                p.sigma, p.releases, p.sensitivity
            );
        }
        let c = session::publish::compose_run(&config).unwrap();
        println!("  composed: {} releases, ε = {:.4}", c.releases, c.epsilon);
        print_run(config);
    }
}

/// The released metric of every lane of `config`'s run, `released[algorithm][repeat]`, as the
/// page hands it to the prediction's check (each lane's release's excess risk or gap).
fn released(config: &RunConfig) -> Vec<Vec<Option<f64>>> {
    let algorithms = 1 + config.compare.len();
    let repeats = config.repeats;
    let mut lab = Lab::new(config.clone(), None).expect("the lab");
    let flat: Vec<Option<f64>> = lab.sessions_mut().map(session::sweep::finish).collect();
    assert_eq!(flat.len(), algorithms * repeats);
    flat.chunks(repeats).map(<[_]>::to_vec).collect()
}

/// The lessons that ask for a prediction, each with an answer that should hold and one that
/// should not (the mistake the lesson is about), as the browser test types them
/// (tests/e2e/lessons_predict.test.mjs): a number, or the index of a choice.
const PREDICTIONS: [(&str, &str, &str); 6] = [
    // 1.64e-2 measured; ten-fold (not hundred-fold) thinking gives 1.6e-3.
    ("noise-vs-epsilon", "0.016", "0.0016"),
    // σ = 0.214 = 2 × 0.107; four times the steps, four times σ, is wrong.
    ("composition-over-steps", "0.21", "0.43"),
    // 2.54e-2, above 6e-3: the bias of a small C.
    ("clipping-bias", "2", "0"),
    // Output perturbation 5.6e-3 against DP-GD 3.1e-2.
    ("output-vs-gradient", "0", "1"),
    // σ = 0.2455 whatever the solver.
    ("certificate-black-box", "1", "2"),
    // 1.2265 in zCDP; ten times 0.5 is the basic-composition sum.
    ("many-releases", "1.2", "5"),
];

#[test]
fn at_least_six_lessons_ask_for_a_prediction_and_each_is_judged_by_its_run() {
    let all = lessons();
    let asking: Vec<&str> = all
        .iter()
        .filter(|l| l.predict.is_some())
        .map(|l| l.id.as_str())
        .collect();
    assert!(asking.len() >= 6, "{asking:?}");
    for id in &asking {
        assert!(
            PREDICTIONS.iter().any(|(p, _, _)| p == id),
            "{id}: add a right and a wrong answer to PREDICTIONS (and to the browser test)"
        );
    }
    for (id, right, wrong) in PREDICTIONS {
        let lesson = all.iter().find(|l| l.id == id).expect("the lesson");
        let prediction = lesson.predict.as_ref().expect("a prediction");
        let config = preset(lesson);
        let released = released(&config);
        let yes = lesson::check(prediction, &config, right, &released).expect("a verdict");
        let no = lesson::check(prediction, &config, wrong, &released).expect("a verdict");
        println!("{id}\n  {}\n  {}", yes.text, no.text);
        assert!(yes.held, "{id}: {right} should hold: {}", yes.text);
        assert!(!no.held, "{id}: {wrong} should not hold: {}", no.text);
        assert!(
            yes.text.starts_with("Your prediction held: "),
            "{}",
            yes.text
        );
        assert!(
            no.text.starts_with("Your prediction did not hold: "),
            "{}",
            no.text
        );
        assert!(yes.text.contains(prediction.why.trim()), "{}", yes.text);
        assert!(
            yes.text.len() < 800,
            "{id}: a verdict a person reads: {}",
            yes.text
        );
    }
}

#[test]
fn the_check_measures_the_run_it_is_given_not_a_stored_answer() {
    // The same lesson, the same answer, a run that released less excess: the verdict follows
    // the run.
    let all = lessons();
    let lesson = all.iter().find(|l| l.id == "noise-vs-epsilon").unwrap();
    let prediction = lesson.predict.as_ref().unwrap();
    let config = preset(lesson);
    let made_up = vec![vec![Some(1.6e-3); config.repeats]];
    let v = lesson::check(prediction, &config, "0.0016", &made_up).unwrap();
    assert!(v.held, "{}", v.text);
    assert!(v.text.contains("is 1.6e-3"), "{}", v.text);
    // Before the run releases there is nothing to judge a measured quantity by.
    let e = lesson::check(prediction, &config, "0.0016", &[vec![None; 20]]).unwrap_err();
    assert_eq!(e.field(), Some(lesson::ANSWER_FIELD), "{e}");
    assert!(e.to_string().contains("press Play"), "{e}");
}

#[test]
fn a_bad_answer_is_refused_at_the_prediction_control() {
    let all = lessons();
    for (id, bad) in [
        ("many-releases", "about two"),
        ("clipping-bias", "7"),
        ("clipping-bias", ""),
    ] {
        let lesson = all.iter().find(|l| l.id == id).unwrap();
        let config = preset(lesson);
        let e = lesson::check(
            lesson.predict.as_ref().unwrap(),
            &config,
            bad,
            &[vec![Some(0.1)]],
        )
        .unwrap_err();
        assert_eq!(e.field(), Some(lesson::ANSWER_FIELD), "{id} {bad}: {e}");
        assert!(e.to_string().starts_with("your prediction: "), "{e}");
    }
}

#[test]
fn a_broken_prediction_is_an_error_naming_its_field() {
    let base: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir().join("output-vs-gradient.json")).unwrap(),
    )
    .unwrap();
    let cases: [(&str, serde_json::Value, &str); 7] = [
        (
            "/predict/quantity",
            "\"median\"".parse().unwrap(),
            "unknown variant `median`",
        ),
        (
            "/predict/within",
            r#"{"factor": 3}"#.parse().unwrap(),
            "predict: give either within",
        ),
        (
            "/predict/choices/0/algorithm",
            "\"dp_sgd\"".parse().unwrap(),
            "predict.choices.algorithm",
        ),
        (
            "/predict/choices/0/from",
            "0.1".parse().unwrap(),
            "predict.choices",
        ),
        (
            "/predict/prompt",
            "\"Guess\"".parse().unwrap(),
            "predict.prompt",
        ),
        (
            "/predict/wihtin",
            "1".parse().unwrap(),
            "unknown field `wihtin`",
        ),
        (
            "/predict/quantity",
            "\"sigma\"".parse().unwrap(),
            "predict.choices.algorithm: only lowest_excess",
        ),
    ];
    for (pointer, value, want) in cases {
        let mut lesson = base.clone();
        let (parent, key) = pointer.rsplit_once('/').unwrap();
        lesson.pointer_mut(parent).unwrap()[key] = value;
        let e = Lesson::from_json(&lesson.to_string())
            .unwrap_err()
            .to_string();
        assert!(e.contains(want), "{pointer}: {e}");
        assert!(e.len() < 300, "{e}");
    }
    // Both choices and within; a factor of 1.
    let mut lesson = base.clone();
    lesson["predict"]["quantity"] = "mean_excess".into();
    lesson["predict"].as_object_mut().unwrap().remove("choices");
    lesson["predict"]["within"] = serde_json::json!({"factor": 1});
    let e = Lesson::from_json(&lesson.to_string())
        .unwrap_err()
        .to_string();
    assert!(e.contains("predict.within.factor"), "{e}");
}
