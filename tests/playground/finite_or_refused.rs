//! Every number a run, a preview, a diagnostic or an export publishes is finite, or the
//! config is refused before the run at the control that causes it; every piece of work is
//! bounded before it starts. Each test is one of the issue's cases (the hostile run against the
//! main of that day), named for what it guards.
#![cfg(not(target_arch = "wasm32"))]

use std::time::Instant;

use dp_playground::Error;
use dp_playground::config::menu;
use dp_playground::config::{AlgorithmKind, ProblemKind, RunConfig};
use dp_playground::data::Tail;
use dp_playground::data::{CsvOptions, LabelColumn, LabelRange, load_csv};
use dp_playground::privacy::Ledger;
use dp_playground::privacy::release::{Law, Noised, Published};
use dp_playground::rng::{Stream, seeded};
use dp_playground::session::publish::{self, Released, compose_run, compose_runs};
use dp_playground::session::sweep::SweepSpec;
use dp_playground::session::{Session, preview};

fn config(json: &str) -> RunConfig {
    RunConfig::from_json(json).expect("a config the page can make")
}

fn csv_options() -> CsvOptions {
    CsvOptions {
        label: LabelColumn::Last,
        delimiter: None,
        header: None,
        labels: LabelRange::Real,
    }
}

fn field(e: &Error) -> &str {
    e.field().unwrap_or("(none)")
}

#[test]
fn a_tilted_runs_population_estimate_has_a_finite_standard_error() {
    // The issue's reproducer: every TERM run that reaches a release reported `std_error: NaN`.
    let c = config(
        r#"{"n":200,"algorithm":"output_perturbation","l2":0.1,"wrap":{"kind":"tilted","tau":1.5}}"#,
    );
    let mut s = Session::new(c).unwrap();
    let release = s.advance(usize::MAX, || true).release.expect("a release");
    let pop = release
        .population
        .expect("synthetic data: a population estimate");
    assert!(
        pop.value.is_finite() && pop.std_error.is_finite() && pop.std_error > 0.0,
        "{pop:?}"
    );
}

#[test]
fn a_label_bound_beyond_what_the_arithmetic_carries_is_refused_at_the_loss() {
    // 1e300 was accepted and released a point of norm ~1e306 with ∞/NaN loss and excess.
    let e = RunConfig::from_json(r#"{"loss":{"kind":"squared","label_bound":1e300}}"#).unwrap_err();
    assert_eq!(field(&e), "loss.label_bound", "{e}");
    // The largest accepted bound, at the largest features and radius: every constant the
    // preview publishes is finite.
    let c = config(
        r#"{"loss":{"kind":"squared","label_bound":1e6},"feature_bound":1e6,"radius":1e6,
            "algorithm":"output_perturbation","l2":1e-6,"n":10,"batch":10,"epsilon":1e-4}"#,
    );
    let p = preview(&c).unwrap();
    for v in [p.sigma, p.sensitivity, p.lipschitz] {
        assert!(v.is_finite(), "{p:?}");
    }
}

#[test]
fn the_private_part_refuses_a_released_point_that_is_not_finite() {
    // `"w":[null,null]` was exported for a point of NaN and ∞.
    let c = RunConfig::default();
    let ledger = Ledger::new(
        preview(&c).unwrap().guarantee,
        "test".to_string(),
        true,
        Vec::new(),
    );
    // A release is made only through its noise: one draw around the given centre (the noise
    // keeps NaN and ∞ as they are, and a finite centre finite).
    let law = Law::gaussian(1e-3).unwrap();
    let point = |w: Vec<f64>| Released {
        algorithm: 0,
        repeat: 0,
        published: Published::Private(
            Noised::perturb(&w, &law, &mut seeded(1, Stream::Noise), |_| {}).0,
        ),
        ledger: ledger.clone(),
    };
    let e = publish::private_part(&c, vec![point(vec![f64::NAN, f64::INFINITY])]).unwrap_err();
    assert_eq!(field(&e), "algorithm", "{e}");
    assert!(publish::private_part(&c, vec![point(vec![0.5, -0.5])]).is_ok());
}

#[test]
fn a_noise_draw_has_a_range_and_its_total_delta_is_refused_at_the_noise_draw() {
    // 2³² − 1 passed validation and the run; composition refused it, naming the repeats.
    let c = RunConfig {
        noise_draw: u32::MAX,
        ..RunConfig::default()
    };
    let e = c.validate().unwrap_err();
    assert_eq!(field(&e), "noise_draw", "{e}");
    // Within the range, draws whose δs add up past 1 are the noise draw's to lower.
    let c = RunConfig {
        noise_draw: 999_999,
        delta: 1e-5,
        ..RunConfig::default()
    };
    c.validate().unwrap();
    let e = compose_run(&c).unwrap_err();
    assert_eq!(field(&e), "noise_draw", "{e}");
    // …and the run is refused before it starts, not at the export.
    let e = dp_playground::session::Lab::new(c, None)
        .err()
        .expect("refused");
    assert_eq!(field(&e), "noise_draw", "{e}");
}

#[test]
fn no_diagnostic_of_a_game_run_is_infinite() {
    // A game's `certificate_bound` was ∞ before its first check.
    for kind in AlgorithmKind::ALL {
        let raw = RunConfig {
            problem: ProblemKind::Saddle,
            n: 200,
            steps: 3,
            batch: 20,
            ..RunConfig::default()
        };
        let (c, _) = menu::pick(&raw, kind);
        if c.problem != ProblemKind::Saddle || c.validate().is_err() {
            continue;
        }
        let Ok(mut s) = Session::new(c.clone()) else {
            continue;
        };
        for _ in 0..50 {
            let batch = s.advance(1, || true);
            for d in &batch.diagnostics {
                assert!(
                    d.value.is_finite(),
                    "{}: {} = {}",
                    c.to_json(),
                    d.name,
                    d.value
                );
            }
            if batch.release.is_some() {
                break;
            }
        }
    }
}

#[test]
fn the_exponential_grid_refuses_more_work_than_its_cap_at_the_grid_resolution() {
    // 400² grid points scored over 10⁶ records took 19 s and more.
    let c = config(r#"{"n":1000000,"d":2,"algorithm":"exponential_grid","grid_resolution":400}"#);
    let e = preview(&c).unwrap_err();
    assert_eq!(field(&e), "grid_resolution", "{e}");
    assert!(e.to_string().chars().count() <= 300, "{e}");
}

#[test]
fn a_sweep_grid_past_its_cap_is_refused_before_any_point_is_built() {
    // A 200 × 200 ε × n grid with 100 repeats ran with no cap.
    let spec = SweepSpec {
        base: RunConfig::default(),
        epsilons: (1..=200).map(|i| i as f64 / 10.0).collect(),
        ns: (1..=200).map(|i| 100 * i).collect(),
        algorithms: Vec::new(),
        repeats: 100,
    };
    let start = Instant::now();
    let e = spec.points().unwrap_err();
    assert!(start.elapsed().as_secs_f64() < 0.5, "{:?}", start.elapsed());
    assert!(e.to_string().contains("fewer"), "{e}");
}

#[test]
fn composing_many_runs_plans_each_setting_once_and_caps_the_settings() {
    // 1,000 configs took 8–10 s, each validated and planned anew. DP-SGD's plan calibrates its
    // accountant (tens of ms a plan in the test build): 100 equal DP-SGD configs took 3.8 s
    // planned one by one (the main before this test, on a loaded 2-core machine; 1,000 default
    // configs took only 0.04 s, so they guarded nothing), and take one plan's time planned once.
    let c = menu::pick(&RunConfig::default(), AlgorithmKind::DpSgd).0;
    let start = Instant::now();
    let many = compose_runs(&vec![c.clone(); 100]).unwrap();
    assert!(start.elapsed().as_secs_f64() < 2.0, "{:?}", start.elapsed());
    let once = compose_run(&RunConfig {
        repeats: 1,
        ..c.clone()
    })
    .unwrap();
    assert_eq!(many.releases, 100 * once.releases);
    let distinct: Vec<RunConfig> = (0..=publish::MAX_COMPOSED_SETTINGS)
        .map(|i| RunConfig {
            epsilon: 1.0 + i as f64 / 1000.0,
            ..c.clone()
        })
        .collect();
    let e = compose_runs(&distinct).unwrap_err();
    assert_eq!(field(&e), "data", "{e}");
}

#[test]
fn an_over_long_csv_line_is_refused_before_it_is_parsed() {
    // A 300 MB one-line file was refused only after 14 s of parsing.
    let line = "1.5,".repeat(600_000) + "1\n";
    let start = Instant::now();
    let e = load_csv(line.as_bytes(), &csv_options()).unwrap_err();
    assert!(start.elapsed().as_secs_f64() < 0.5, "{:?}", start.elapsed());
    assert!(
        matches!(e, Error::Parse { line: 1, .. }) && e.to_string().contains("longer"),
        "{e}"
    );
    // A long line further down is named at its own line, after CRLF and lone-CR line ends.
    let text = format!("1,2\r\n3,4\r5,6\n{line}");
    let e = load_csv(text.as_bytes(), &csv_options()).unwrap_err();
    assert!(matches!(e, Error::Parse { line: 4, .. }), "{e}");
}

#[test]
fn extreme_tail_parameters_are_refused_at_their_tail_parameter() {
    // ν or α ≤ 1e-12, σ ≥ 1e6 and a contaminated scale of 1e308 read "dataset: value is not
    // finite" once the generator overflowed.
    let cases = [
        (Tail::StudentT { nu: 1e-12 }, "tail.nu"),
        (Tail::ParetoRadial { alpha: 1e-12 }, "tail.alpha"),
        (Tail::LogNormal { sigma: 1e6 }, "tail.sigma"),
        (
            Tail::Contaminated {
                p: 0.1,
                scale: 1e308,
            },
            "tail.scale",
        ),
        (Tail::RareOutlier { p: 0.1, a: 1e308 }, "tail.a"),
    ];
    for (tail, at) in cases {
        let c = RunConfig {
            tail,
            ..RunConfig::default()
        };
        let e = c.validate().unwrap_err();
        assert_eq!(field(&e), at, "{e}");
    }
    // At the edges of the ranges the data are generated, every number finite.
    for tail in [
        Tail::StudentT { nu: 0.25 },
        Tail::ParetoRadial { alpha: 0.25 },
        Tail::LogNormal { sigma: 8.0 },
        Tail::Contaminated { p: 0.5, scale: 1e6 },
    ] {
        let c = RunConfig {
            tail,
            n: 2000,
            d: 20,
            feature_scale: 1e3,
            ..RunConfig::default()
        };
        c.validate().unwrap();
        let lab = dp_playground::session::Lab::new(c.clone(), None);
        assert!(lab.is_ok(), "{tail:?}: {:?}", lab.err());
    }
}
