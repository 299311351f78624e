//! Hostile inputs to the config parsers: the strict parser reads one
//! JSON object and nothing else, the lenient link reader falls back the smallest part it can, and
//! a run cannot ask for more steps than the tab holds.

use dp_playground::Error;
use dp_playground::config::{AlgorithmKind, Control, MAX_RUN_STEPS, RunConfig};
use dp_playground::loss::{Glm, Wrap};

fn parse_message(text: &str) -> String {
    match RunConfig::from_json(text) {
        Err(Error::Parse { message, .. }) => message,
        other => panic!("{text}: expected a parse error, got {other:?}"),
    }
}

#[test]
fn the_strict_parser_refuses_text_after_the_object() {
    for text in [
        r#"{"epsilon": 0.5} junk"#,
        r#"{"epsilon": 0.5}{"epsilon": 2}"#,
        r#"{"epsilon": 0.5}]"#,
    ] {
        let message = parse_message(text);
        assert!(
            message.contains("text after the settings' closing '}'"),
            "{text}: {message}"
        );
    }
    // Whitespace after the object is no junk.
    assert_eq!(
        RunConfig::from_json("{\"epsilon\": 0.5}\n  ")
            .unwrap()
            .epsilon,
        0.5
    );
}

#[test]
fn the_strict_parser_refuses_arrays_read_by_position() {
    // At the top: serde would read it as seed = 1, unseeded_noise = false.
    let message = parse_message("[1, false]");
    assert!(
        message.contains("expected a JSON object of settings") && message.contains("an array"),
        "{message}"
    );
    for text in ["3", "\"x\"", "null"] {
        assert!(parse_message(text).contains("expected a JSON object of settings"));
    }
    // Inside: a choice read by position names its control (the aggregation's is the loss's).
    for (text, control) in [
        (r#"{"loss": ["huber", 1]}"#, Control::Loss),
        (r#"{"wrap": ["tilted", 1]}"#, Control::Loss),
        (r#"{"tail": ["student_t", 3]}"#, Control::Tail),
        (
            r#"{"loss": {"kind": "huber", "delta": [1]}}"#,
            Control::Loss,
        ),
    ] {
        match RunConfig::from_json(text) {
            Err(e @ Error::InvalidParameter { .. }) => {
                assert_eq!(Control::of(e.field().unwrap()), Some(control), "{text}");
                assert!(e.to_string().contains("not an array"), "{text}: {e}");
            }
            other => panic!("{text}: expected a field error, got {other:?}"),
        }
    }
    // The one list stays a list.
    let c = RunConfig::from_json(r#"{"compare": ["dp_sgd"]}"#).unwrap();
    assert_eq!(c.compare, [AlgorithmKind::DpSgd]);
}

#[test]
fn a_bad_tilt_falls_back_alone_keeping_the_loss() {
    let huber = Glm::Huber {
        delta: 1.0,
        label_bound: 10.0,
    };
    // A tilt of the wrong type, out of range, or one the main algorithm cannot take.
    for tau in ["\"x\"", "-1", "1e-300"] {
        let link = format!(
            r#"{{"loss": {{"kind": "huber", "delta": 1}}, "wrap": {{"kind": "tilted", "tau": {tau}}}}}"#
        );
        let (c, errors) = RunConfig::from_json_lenient(&link);
        assert_eq!(c.loss, huber, "{link}: {errors:?}");
        assert_eq!(c.wrap, Wrap::None, "{link}");
        assert!(!errors.is_empty());
    }
    // Where the algorithm takes a tilt, only τ falls back, to the page's default.
    let (c, errors) = RunConfig::from_json_lenient(
        r#"{"algorithm": "output_perturbation", "l2": 0.1, "loss": {"kind": "huber", "delta": 2}, "wrap": {"kind": "tilted", "tau": -1}}"#,
    );
    assert_eq!(c.algorithm, AlgorithmKind::OutputPerturbation);
    assert_eq!(
        c.loss,
        Glm::Huber {
            delta: 2.0,
            label_bound: 10.0
        }
    );
    assert_eq!(c.wrap, Wrap::Tilted { tau: 1.0 });
    let fields: Vec<&str> = errors.iter().filter_map(|e| e.field()).collect();
    assert_eq!(fields, ["loss.tau"]);
}

#[test]
fn a_bad_part_of_a_choice_falls_back_alone() {
    // (link, the loss kept, the field named)
    let cases = [
        (
            r#"{"loss": {"kind": "huber", "delta": "x", "label_bound": 3}}"#,
            Glm::Huber {
                delta: 1.0,
                label_bound: 3.0,
            },
            "loss.delta",
        ),
        (
            r#"{"loss": {"kind": "huber", "delta": -1, "label_bound": 3}}"#,
            Glm::Huber {
                delta: 1.0,
                label_bound: 3.0,
            },
            "loss.delta",
        ),
        (
            r#"{"loss": {"kind": "huber", "delta": 2, "label_bound": -3}}"#,
            Glm::Huber {
                delta: 2.0,
                label_bound: 10.0,
            },
            "loss.label_bound",
        ),
        (
            r#"{"loss": {"kind": "smoothed_hinge", "gamma": [1]}}"#,
            Glm::SmoothedHinge { gamma: 1.0 },
            "loss.gamma",
        ),
    ];
    for (link, loss, field) in cases {
        let (c, errors) = RunConfig::from_json_lenient(link);
        assert_eq!(c.loss, loss, "{link}: {errors:?}");
        let fields: Vec<&str> = errors.iter().filter_map(|e| e.field()).collect();
        assert_eq!(fields, [field], "{link}");
    }
    // A tail keeps its kind and its good parameter.
    let (c, errors) = RunConfig::from_json_lenient(
        r#"{"tail": {"kind": "contaminated", "p": 2, "scale": 5}, "seed": 4}"#,
    );
    assert_eq!(
        (c.tail, c.seed),
        (
            dp_playground::data::Tail::Contaminated {
                p: 0.05,
                scale: 5.0
            },
            4
        )
    );
    assert_eq!(errors.len(), 1);
    // An unknown kind still falls back whole.
    let (c, errors) = RunConfig::from_json_lenient(r#"{"loss": {"kind": "cubic"}}"#);
    assert_eq!(c.loss, RunConfig::default().loss);
    assert_eq!(errors[0].field(), Some("loss"));
}

#[test]
fn a_run_asking_for_more_steps_than_the_tab_holds_is_refused_at_repeats() {
    let config = RunConfig {
        steps: 100_000,
        repeats: 20,
        ..RunConfig::default()
    };
    let err = config.check().unwrap_err();
    assert_eq!(err.field(), Some(Control::Repeats.id()));
    let message = err.to_string();
    assert!(
        message.contains("repeats × steps × algorithms ≤ 1000000")
            && message.contains("memory")
            && message.contains("20 × 100000 × 1 = 2000000"),
        "{message}"
    );
    // Compared algorithms count: each is a lane of its own.
    let compared = RunConfig {
        steps: 60_000,
        repeats: 10,
        compare: vec![AlgorithmKind::DpSgd],
        ..RunConfig::default()
    };
    assert_eq!(compared.check().unwrap_err().field(), Some("repeats"));
    // A link asking for it keeps its steps and falls back the repeats.
    let (c, errors) = RunConfig::from_json_lenient(r#"{"steps": 100000, "repeats": 20}"#);
    assert_eq!((c.steps, c.repeats), (100_000, 1));
    assert_eq!(errors[0].field(), Some("repeats"));
}

#[test]
fn the_step_cap_leaves_the_defaults_and_the_largest_single_run_valid() {
    let default = RunConfig::default();
    assert!(default.repeats * default.steps <= MAX_RUN_STEPS);
    for (steps, repeats) in [(100_000, 10), (10_000, 100), (200, 100)] {
        let config = RunConfig {
            steps,
            repeats,
            ..RunConfig::default()
        };
        config
            .check()
            .unwrap_or_else(|e| panic!("{steps} × {repeats}: {e}"));
    }
    // The page's own e2e runs (tests/e2e/page.test.mjs).
    let compared = RunConfig {
        steps: 2000,
        repeats: 4,
        compare: vec![AlgorithmKind::DpSgd, AlgorithmKind::DpSvrg],
        l2: 0.1,
        ..RunConfig::default()
    };
    assert!(compared.repeats * compared.steps * 3 <= MAX_RUN_STEPS);
}
