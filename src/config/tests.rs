use super::*;
use crate::algo::route::INTERNAL;

fn field_of(json: &str) -> String {
    match RunConfig::from_json(json) {
        Err(Error::InvalidParameter { field, .. }) => field,
        other => panic!("expected a field error for {json}, got {other:?}"),
    }
}

#[test]
fn defaults_round_trip_and_missing_fields_default() {
    let c = RunConfig::default();
    assert_eq!(RunConfig::from_json(&c.to_json()).unwrap(), c);
    let partial = RunConfig::from_json(r#"{"epsilon": 0.5}"#).unwrap();
    assert_eq!(partial.epsilon, 0.5);
    assert_eq!(partial.n, c.n);
}

#[test]
fn every_bad_value_names_its_field() {
    assert_eq!(field_of(r#"{"epsilon": -1}"#), "epsilon");
    assert_eq!(field_of(r#"{"epsilon": "x"}"#), "epsilon");
    assert_eq!(field_of(r#"{"delta": 0}"#), "delta");
    assert_eq!(field_of(r#"{"n": 3}"#), "n");
    assert_eq!(field_of(r#"{"n": 1000000, "d": 1000}"#), "n");
    assert_eq!(field_of(r#"{"steps": 0}"#), "steps");
    assert_eq!(field_of(r#"{"seed": -4}"#), "seed");
    assert_eq!(field_of(r#"{"relation": "sideways"}"#), "relation");
    assert_eq!(field_of(r#"{"step_size": 0}"#), "step_size");
    assert_eq!(field_of(r#"{"unseeded_noise": 1}"#), "unseeded_noise");
    assert_eq!(field_of(r#"{"l2": -1}"#), "l2");
    assert_eq!(
        field_of(r#"{"algorithm": "output_perturbation", "l2": 0}"#),
        "l2"
    );
    assert!(RunConfig::from_json(r#"{"algorithm": "output_perturbation", "l2": 0.1}"#).is_ok());
}

#[test]
fn the_controls_are_the_run_config_keys_but_wrap() {
    let json = serde_json::to_value(RunConfig::default()).unwrap_or_default();
    let keys: Vec<&str> = json
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let mut ids: Vec<&str> = Control::ALL.iter().map(|c| c.id()).collect();
    ids.push("wrap");
    ids.sort_unstable();
    let mut keys = keys;
    keys.sort_unstable();
    assert_eq!(ids, keys);
    for control in Control::ALL {
        assert_eq!(Control::of(control.id()), Some(control));
    }
    assert_eq!(Control::of("loss.label_bound"), Some(Control::Loss));
    assert_eq!(Control::of("epochs"), None);
}

#[test]
fn every_internal_name_is_restated_at_a_control() {
    for (name, control) in INTERNAL {
        let e = at_control(Error::invalid(name, "something", 1));
        assert_eq!(e.field(), Some(control.id()), "{name}");
        // Named by the control's label, never by the algorithm's own name for it.
        assert!(e.to_string().starts_with(control.label()), "{e}");
    }
    // An error already at a control is left alone.
    let e = Error::invalid("loss.label_bound", "a finite number > 0", 0);
    assert_eq!(at_control(e.clone()), e);
}

#[test]
fn a_bad_aggregation_is_named_at_the_loss_control() {
    // The aggregation has no error line of its own: the loss's shows it.
    // (serde names a tagged enum's error at the enum: `wrap`.)
    assert_eq!(
        field_of(r#"{"wrap": {"kind": "tilted", "tau": "x"}}"#),
        "loss"
    );
    assert_eq!(
        field_of(r#"{"wrap": {"kind": "tilted", "tau": 0}}"#),
        "loss.tau"
    );
}

#[test]
fn every_residual_loss_declares_a_label_bound_named_in_its_errors() {
    for kind in ["squared", "huber", "absolute"] {
        let bad = format!(r#"{{"loss": {{"kind": "{kind}", "delta": 1, "label_bound": 0}}}}"#);
        assert_eq!(field_of(&bad), "loss.label_bound", "{kind}");
        let inf = format!(r#"{{"loss": {{"kind": "{kind}", "delta": 1, "label_bound": 1e400}}}}"#);
        assert!(RunConfig::from_json(&inf).is_err(), "{kind}");
    }
    // Links made before Huber and absolute declared one read the default bound.
    let old = RunConfig::from_json(r#"{"loss": {"kind": "absolute"}}"#).unwrap();
    assert_eq!(
        old.loss.label_bound(),
        Some(crate::loss::ROBUST_LABEL_BOUND)
    );
    assert_eq!(Glm::Logistic.label_bound(), None);
}

#[test]
fn unknown_fields_and_broken_json_are_rejected() {
    assert!(matches!(
        RunConfig::from_json(r#"{"epsilom": 1}"#),
        Err(Error::InvalidParameter { .. }) | Err(Error::Parse { .. })
    ));
    assert!(matches!(
        RunConfig::from_json("{\"epsilon\": 1"),
        Err(Error::Parse { .. })
    ));
}

#[test]
fn a_damaged_link_falls_back_field_by_field() {
    let (c, errors) = RunConfig::from_json_lenient(
        r#"{"epsilon": 0.5, "n": "lots", "seed": 9, "colour": "red", "delta": 7}"#,
    );
    assert_eq!(c.epsilon, 0.5);
    assert_eq!(c.seed, 9);
    assert_eq!(c.n, RunConfig::default().n);
    assert_eq!(c.delta, RunConfig::default().delta);
    let fields: Vec<&str> = errors.iter().filter_map(|e| e.field()).collect();
    // A setting the page has no control for is named at the link (its key shown as given).
    assert_eq!(fields, ["link", "n", "delta"]);
    assert!(errors[0].to_string().contains("colour"), "{}", errors[0]);
    // A choice that needs another field (here the unconstrained domain) falls back alone,
    // not the whole link.
    let (c, errors) =
        RunConfig::from_json_lenient(r#"{"algorithm": "objective_perturbation", "seed": 3}"#);
    assert_eq!((c.algorithm, c.seed), (AlgorithmKind::NoisyGd, 3));
    assert_eq!(errors.len(), 1);
    // Not an object at all: everything falls back, with one message at the link saying
    // what to do and where it broke.
    let (c, errors) = RunConfig::from_json_lenient("{\"epsilon\": 1");
    assert_eq!(c, RunConfig::default());
    match &errors[..] {
        [e] => {
            assert_eq!(e.field(), Some("link"));
            let shown = e.to_string();
            assert!(shown.contains("copy the link again"), "{shown}");
            assert!(shown.contains("damaged at character 13"), "{shown}");
        }
        other => panic!("one error at the link, got {other:?}"),
    }
    let (c, errors) = RunConfig::from_json_lenient(r#"{"epsilon": 0.25}"#);
    assert_eq!((c.epsilon, errors.len()), (0.25, 0));
}

/// The longest link the page can make: every field set (the longest variant of each choice,
/// four algorithms compared), every number at full precision with the longest exponent.
fn longest_link() -> String {
    let long = -1.234_567_890_123_456_7e-100;
    let config = RunConfig {
        seed: u32::MAX,
        n: usize::MAX,
        d: usize::MAX,
        tail: Tail::Contaminated {
            p: long,
            scale: long,
        },
        feature_scale: long,
        signal: long,
        label_noise: long,
        sparsity: usize::MAX,
        loss: Glm::Huber {
            delta: long,
            label_bound: long,
        },
        wrap: Wrap::Adversarial { radius: long },
        feature_bound: long,
        radius: long,
        l2: long,
        l1: long,
        epsilon: long,
        delta: long,
        relation: Relation::AddRemove,
        algorithm: AlgorithmKind::RegularisedOutputPerturbation,
        compare: vec![
            AlgorithmKind::DpSvrgPlusPlus,
            AlgorithmKind::ObjectivePerturbation,
            AlgorithmKind::ExponentialGrid,
        ],
        steps: usize::MAX,
        step_size: Some(long),
        batch: usize::MAX,
        clip: Some(long),
        grid_resolution: usize::MAX,
        repeats: usize::MAX,
        moment_k: long,
        repetitions: usize::MAX,
        lambda1: Some(long),
        ..RunConfig::default()
    };
    config.to_json()
}

#[test]
fn the_link_cap_is_far_above_the_longest_link_the_page_makes() {
    let longest = longest_link().len();
    assert!(longest < 1600, "{longest} bytes");
    assert!(MAX_LINK_BYTES >= 50 * longest);
}

#[test]
fn an_over_long_link_is_refused_saying_what_to_do() {
    // A link is read only up to MAX_LINK_BYTES.
    let padded = format!(
        r#"{{"epsilon": 0.5, "pad": "{}"}}"#,
        "x".repeat(MAX_LINK_BYTES)
    );
    let (c, errors) = RunConfig::from_json_lenient(&padded);
    assert_eq!(c, RunConfig::default());
    match &errors[..] {
        [e @ Error::InvalidParameter { field, got, .. }] => {
            assert_eq!(field, "link");
            assert_eq!(got, &format!("{} bytes", padded.len()));
            let shown = e.to_string();
            assert!(shown.contains("Copy link"), "{shown}");
            assert!(shown.len() < 300, "{shown}");
        }
        other => panic!("expected one error at the link, got {other:?}"),
    }
    // A link of exactly the cap is read.
    let fits = format!(
        r#"{{"epsilon": 0.5, "pad": "{}"}}"#,
        "x".repeat(2 * MAX_LINK_BYTES - padded.len())
    );
    assert_eq!(fits.len(), MAX_LINK_BYTES);
    let (c, errors) = RunConfig::from_json_lenient(&fits);
    assert_eq!(c.epsilon, 0.5);
    assert_eq!(
        errors.iter().filter_map(Error::field).collect::<Vec<_>>(),
        ["link"]
    );
}

#[test]
fn a_game_is_checked_at_the_controls_that_pose_it() {
    let game = |json: &str| {
        // The game's own checks (a family that solves games is the registry's check).
        let mut full: serde_json::Value =
            serde_json::from_str(r#"{"problem": "saddle", "d": 3}"#).unwrap();
        let changes: serde_json::Value = serde_json::from_str(&format!("{{{json}}}")).unwrap();
        for (k, v) in changes.as_object().unwrap() {
            full[k] = v.clone();
        }
        let config: RunConfig = serde_json::from_value(full).unwrap();
        config.validate_game().map(|()| config)
    };
    let field = |json: &str| game(json).unwrap_err().field().map(String::from);
    assert!(game(r#""game": "rock_paper_scissors""#).is_ok());
    assert_eq!(field(r#""d": 2"#).as_deref(), Some("d"));
    assert_eq!(
        field(r#""entry_bound": 0.1"#).as_deref(),
        Some("entry_bound")
    );
    assert_eq!(field(r#""mu_y": -1"#).as_deref(), Some("mu_y"));
    assert_eq!(
        field(r#""game": "random_matrix", "d": 101"#).as_deref(),
        Some("d")
    );
    assert_eq!(field(r#""n": 1000000, "d": 10"#).as_deref(), Some("n"));
    // Query release: d counts binary attributes (2 to 6), its records are universe elements.
    let release = game(r#""game": "query_release", "d": 4"#).unwrap();
    assert_eq!(release.game_dims(), (16, 48));
    let spec = release.game_spec();
    assert_eq!((spec.dx, spec.dy), (16, 48));
    assert_eq!(
        field(r#""game": "query_release", "d": 7"#).as_deref(),
        Some("d")
    );
    assert_eq!(
        field(r#""game": "query_release", "records": "heavy""#).as_deref(),
        Some("records")
    );
    assert_eq!(
        field(r#""game": "query_release", "entry_bound": 0.7"#).as_deref(),
        Some("entry_bound")
    );
}

#[test]
fn every_row_s_default_is_the_config_s_and_every_key_has_a_row() {
    let json = serde_json::to_value(RunConfig::default()).unwrap();
    for row in Control::ROWS {
        let want = row.initial.json(&row.kind);
        let got = match row.kind {
            Kind::WithParameters(_) => json[row.key]["kind"].clone(),
            _ => json[row.key].clone(),
        };
        let want = match row.kind {
            Kind::WithParameters(_) => want["kind"].clone(),
            _ => want,
        };
        assert_eq!(got, want, "the default of {}", row.key);
    }
    // `wrap` is the one key shown under another control's (the loss's).
    let mut keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.retain(|k| *k != "wrap");
    keys.sort_unstable();
    let mut rows: Vec<&str> = Control::ROWS.iter().map(|r| r.key).collect();
    rows.sort_unstable();
    assert_eq!(keys, rows);
}

#[test]
fn every_choice_row_lists_exactly_its_menu_s_options() {
    for row in Control::ROWS {
        let (Kind::Choice(options) | Kind::WithParameters(options)) = row.kind else {
            continue;
        };
        let bogus = match row.kind {
            Kind::WithParameters(_) => serde_json::json!({ row.key: { "kind": "bogus" } }),
            _ => serde_json::json!({ row.key: "bogus" }),
        };
        let message = serde_json::from_value::<RunConfig>(bogus)
            .unwrap_err()
            .to_string();
        let expected = message.split_once("expected").unwrap().1;
        let mut listed: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
        let mut options = options.to_vec();
        listed.sort_unstable();
        options.sort_unstable();
        if control_is_narrower(row.key) {
            // The regression noise's menu is the laws of `Tail` that validation accepts for it.
            listed.retain(|o| options.contains(o));
        }
        assert_eq!(listed, options, "the options of {}: {message}", row.key);
    }
}

#[test]
fn a_number_out_of_its_row_s_range_names_the_control_and_the_range() {
    for control in Control::ALL {
        let Some((min, max)) = control.range() else {
            continue;
        };
        let error = control.check(max * 2.0 + 1.0).unwrap_err();
        assert_eq!(error.field(), Some(control.id()));
        assert!(error.to_string().contains(&format!("{max}")), "{error}");
        assert_eq!(control.check(min), Ok(()), "{}", control.id());
    }
}

fn control_is_narrower(key: &str) -> bool {
    key == Control::NoiseTail.id()
}

#[test]
fn declared_moments_come_from_the_distribution_in_closed_form() {
    // Lowy 2026's declared G_j, from the synthetic law `RunConfig::feature_moment` reads.
    // Pareto-radial α = 3, k = 2: E ρ² = α/(α − 2) = 3, G_2 = scale·√3 (logistic: sup|φ'| = 1).
    let config = RunConfig {
        tail: crate::data::Tail::ParetoRadial { alpha: 3.0 },
        feature_scale: 0.5,
        feature_bound: 1e6,
        ..RunConfig::default()
    };
    let g2 = config.declared_moment(2.0).unwrap();
    assert!((g2 - 0.5 * 3f64.sqrt()).abs() < 1e-12, "{g2}");
    // k = α: the raw moment is infinite, and only the declared bound B = 10⁶ bounds A(z).
    assert_eq!(config.tail.norm_moment(2, 3.0), f64::INFINITY);
    assert_eq!(config.declared_moment(3.0).unwrap(), 1e6);
    // The feature bound caps it: clipped features have ‖x‖ ≤ B.
    let capped = RunConfig {
        feature_bound: 0.3,
        ..config.clone()
    };
    assert_eq!(capped.declared_moment(3.0).unwrap(), 0.3);
    // Multivariate t (ν = 5, d = 2, k = 2): E‖x‖² = ν·d/(ν − 2) = 10/3.
    let t = RunConfig {
        tail: crate::data::Tail::StudentT { nu: 5.0 },
        feature_scale: 1.0,
        feature_bound: 1e6,
        ..RunConfig::default()
    };
    let g = t.declared_moment(2.0).unwrap();
    assert!((g * g - 10.0 / 3.0).abs() < 1e-12, "{g}");
    // Appendix G: the outlier of norm G_k p^(−1/k) with probability p has G_k exactly.
    let outlier = RunConfig {
        tail: crate::algo::heavy_tails::rare_outlier(0.01, 2.0, 3.0),
        feature_scale: 1.0,
        feature_bound: 1e6,
        ..RunConfig::default()
    };
    let g3 = outlier.declared_moment(3.0).unwrap();
    assert!((g3 - 2.0).abs() < 1e-12, "{g3}");
    // The squared loss has no declared moment here: refused at `loss`.
    let squared = RunConfig {
        loss: crate::loss::Glm::Squared { label_bound: 1.0 },
        ..config
    };
    assert_eq!(
        squared.declared_moment(2.0).unwrap_err().field(),
        Some("loss")
    );
}

/// A config built in Rust (not read from JSON, which has no NaN or ∞) with a non-finite number
/// in any plain numeric setting is refused at that setting: `check_rows` reads the numbers through
/// serde, which writes a non-finite f64 as `null`.
#[test]
fn a_non_finite_number_built_in_rust_is_refused_at_its_setting() {
    type Set = fn(&mut RunConfig, f64);
    let fields: [(&str, Set); 13] = [
        ("epsilon", |c, v| c.epsilon = v),
        ("delta", |c, v| c.delta = v),
        ("l2", |c, v| c.l2 = v),
        ("l1", |c, v| c.l1 = v),
        ("radius", |c, v| c.radius = v),
        ("feature_bound", |c, v| c.feature_bound = v),
        ("moment_k", |c, v| c.moment_k = v),
        ("entry_bound", |c, v| c.entry_bound = v),
        ("mu_x", |c, v| c.mu_x = v),
        ("mu_y", |c, v| c.mu_y = v),
        ("feature_scale", |c, v| c.feature_scale = v),
        ("signal", |c, v| c.signal = v),
        ("label_noise", |c, v| c.label_noise = v),
    ];
    for (field, set) in fields {
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let mut config = RunConfig::default();
            set(&mut config, bad);
            let Err(e) = config.validate() else {
                panic!("{field} = {bad} accepted")
            };
            assert_eq!(e.field(), Some(field), "{field} = {bad}: {e}");
        }
    }
}
