//! The page's sweep API (`session::sweep_lanes`, what the workers run through wasm) gives the
//! numbers of the terminal's `session::sweep`: the same lanes bit for bit, whatever the split
//! into tasks and the order they run in, and the same summary and CSV. And a bad request is an
//! error at the panel's control, never a panic.

use dp_playground::config::{AlgorithmKind, RunConfig};
use dp_playground::session::sweep::{self, Summary, SweepSpec};
use dp_playground::session::sweep_lanes::{Axis, PageSweep, SweepRequest, Task, field};

fn base() -> RunConfig {
    RunConfig {
        n: 300,
        d: 2,
        steps: 30,
        seed: 11,
        ..RunConfig::default()
    }
}

fn request(axis: Axis, values: &[f64], algorithms: &[&str], repeats: f64) -> SweepRequest {
    SweepRequest {
        axis,
        values: values.to_vec(),
        algorithms: algorithms.iter().map(|a| a.to_string()).collect(),
        repeats,
    }
}

/// Runs every lane of `page` through the page's API: the tasks for `workers`, in reverse order,
/// each on a freshly built point (as a worker of the pool would).
fn run_as_the_page(page: &PageSweep, workers: usize) -> (Vec<Option<f64>>, Vec<Option<f64>>) {
    let mut lanes = vec![None; page.lanes()];
    let mut bounds = vec![None; page.points().len()];
    let tasks: Vec<Task> = page.tasks(workers);
    for task in tasks.iter().rev() {
        let mut point = page.point(task.point).unwrap();
        bounds[task.point] = point.bound();
        for r in task.start..task.end {
            lanes[task.point * page.repeats() + r] = point.lane(r);
        }
    }
    (lanes, bounds)
}

#[test]
fn the_page_lanes_give_the_terminal_sweeps_bits_and_summary() {
    let req = request(
        Axis::Epsilon,
        &[0.25, 1.0, 4.0],
        &["noisy_gd", "output_perturbation"],
        3.0,
    );
    let page = PageSweep::new(base(), &req).unwrap();
    // The terminal's grid for the same sweep.
    let spec = SweepSpec {
        base: base(),
        epsilons: vec![0.25, 1.0, 4.0],
        ns: Vec::new(),
        algorithms: vec![AlgorithmKind::NoisyGd, AlgorithmKind::OutputPerturbation],
        repeats: 3,
    };
    let points = spec.points().unwrap();
    let sequential = sweep::run_sequential(&points).unwrap();
    assert_eq!(sequential.len(), 18);
    assert!(sequential.iter().all(Option::is_some), "{sequential:?}");
    for workers in [1, 2, 5] {
        let tasks = page.tasks(workers);
        // Every lane exactly once.
        let mut covered = vec![0; page.lanes()];
        for t in &tasks {
            for r in t.start..t.end {
                covered[t.point * 3 + r] += 1;
            }
        }
        assert!(covered.iter().all(|&c| c == 1), "{workers}: {tasks:?}");
        let (lanes, bounds) = run_as_the_page(&page, workers);
        let bits = |v: &[Option<f64>]| v.iter().map(|x| x.map(f64::to_bits)).collect::<Vec<_>>();
        assert_eq!(bits(&lanes), bits(&sequential), "{workers} workers");
        let summary = page.summary(lanes, bounds.clone()).unwrap();
        let terminal = Summary::new(points.clone(), 3, sequential.clone());
        assert_eq!(summary.csv, terminal.points_csv());
        assert_eq!(summary.lanes_csv, terminal.lanes_csv());
        assert_eq!(summary.rows, terminal.rows);
        // The page keeps the slopes along ε only (one n): one per algorithm, the terminal's.
        let along_epsilon: Vec<_> = terminal
            .slopes
            .iter()
            .filter(|s| s.against == "epsilon")
            .cloned()
            .collect();
        assert_eq!(summary.slopes, along_epsilon);
        assert_eq!(summary.slopes.len(), 2);
        // Output perturbation states a bound at every point (the points after DP-GD's), and its
        // slope is fitted through those bounds.
        assert!(bounds[3..].iter().all(Option::is_some), "{bounds:?}");
        let op = summary
            .theory_slopes
            .iter()
            .find(|s| s.algorithm == AlgorithmKind::OutputPerturbation)
            .expect("output perturbation's theory slope");
        let b: Vec<f64> = bounds[3..].iter().map(|b| b.unwrap()).collect();
        assert_eq!(op.slope, sweep::loglog_slope(&[0.25, 1.0, 4.0], &b));
    }
}

#[test]
fn a_sweep_over_n_runs_each_n_on_its_own_data() {
    let page = PageSweep::new(
        base(),
        &request(Axis::N, &[100.0, 400.0], &["output_perturbation"], 2.0),
    )
    .unwrap();
    let ns: Vec<usize> = page.points().iter().map(|p| p.n).collect();
    assert_eq!(ns, [100, 400]);
    // Both points share ε, so the sweep's slope is along n.
    let (lanes, bounds) = run_as_the_page(&page, 2);
    let summary = page.summary(lanes, bounds).unwrap();
    assert_eq!(summary.csv.lines().count(), 1 + 2, "{}", summary.csv);
    assert!(summary.slopes.iter().all(|s| s.against == "n"));
}

#[test]
fn the_sweep_states_every_release_composed() {
    let page = PageSweep::new(
        RunConfig {
            delta: 0.0,
            ..base()
        },
        &request(
            Axis::Epsilon,
            &[0.5, 1.0, 2.0],
            &["output_perturbation"],
            4.0,
        ),
    )
    .unwrap();
    let c = page.composition().unwrap();
    assert_eq!(c.releases, 12);
    // Pure ε adds up: 4 × (0.5 + 1 + 2).
    assert!((c.epsilon - 14.0).abs() < 1e-9, "{c:?}");
    assert_eq!(c.delta, 0.0);
}

#[test]
fn a_bad_request_is_an_error_at_the_panels_control() {
    let cases: [(SweepRequest, &str); 7] = [
        (request(Axis::Epsilon, &[1.0], &[], 3.0), field::VALUES),
        (
            request(Axis::Epsilon, &[1.0, -2.0], &[], 3.0),
            field::VALUES,
        ),
        (request(Axis::N, &[100.0, 2.5], &[], 3.0), field::VALUES),
        (
            request(Axis::Epsilon, &[1.0, 2.0], &[], 0.0),
            field::REPEATS,
        ),
        (
            request(Axis::Epsilon, &[1.0, 2.0], &[], 2.5),
            field::REPEATS,
        ),
        (
            request(Axis::Epsilon, &[1.0, 2.0], &["no_such"], 3.0),
            field::ALGORITHMS,
        ),
        // A point the run refuses (n = 1 is below any batch): named, at the values.
        (request(Axis::N, &[1.0, 100.0], &[], 3.0), field::VALUES),
    ];
    for (req, at) in cases {
        let e = PageSweep::new(base(), &req).expect_err(at);
        assert_eq!(e.field(), Some(at), "{e}");
        assert!(e.to_string().starts_with(at), "{e}");
    }
    let many = [
        "noisy_gd",
        "dp_sgd",
        "dp_svrg",
        "output_perturbation",
        "dp_accmd",
    ];
    let e = PageSweep::new(base(), &request(Axis::Epsilon, &[1.0, 2.0], &many, 3.0)).unwrap_err();
    assert_eq!(e.field(), Some(field::ALGORITHMS));
    // A summary of the wrong size is refused, not indexed past its end.
    let page = PageSweep::new(base(), &request(Axis::Epsilon, &[1.0, 2.0], &[], 2.0)).unwrap();
    assert!(page.summary(vec![Some(1.0)], vec![None, None]).is_err());
    assert!(page.point(2).is_err());
}

/// A sweep of a heavy-tail family (Lowy 2026) carries the reference curves Lowy 2026 asks for
/// beside the family's own upper bound: Theorem 4.1's pure-DP lower bound (only where ε ≤ 1, its
/// range) and the approximate-DP rate, each at the declared constants of its point; other sweeps
/// carry none.
#[test]
fn a_heavy_tail_sweep_carries_the_pure_dp_lower_bound_and_the_approximate_dp_rate() {
    use dp_playground::data::Tail;
    use dp_playground::session::heavy_rates::{APPROXIMATE_LABEL, LOWER_LABEL};
    let heavy = RunConfig {
        n: 1000,
        d: 2,
        tail: Tail::ParetoRadial { alpha: 3.0 },
        feature_scale: 0.5,
        feature_bound: 1e3,
        l2: 0.01,
        moment_k: 2.0,
        delta: 0.0,
        epsilon: 0.5,
        algorithm: AlgorithmKind::LocalisedDoubleOutputPerturbation,
        ..RunConfig::default()
    };
    let summary_of = |axis, values: &[f64], algorithms: &[&str]| {
        let page = PageSweep::new(heavy.clone(), &request(axis, values, algorithms, 1.0)).unwrap();
        // The references are computed from the configs alone: no lane needs to run.
        page.summary(
            vec![Some(0.1); page.lanes()],
            vec![None; page.points().len()],
        )
        .unwrap()
    };
    // Declared closed forms (logistic: |φ′| ≤ 1; Pareto-radial α = 3 at scale 0.5): G₁ = 0.75,
    // G₂ = G_k = 0.5·√3 (k = 2); D = 8; δ = 0.1 (a failure probability).
    let (g1, g2, d, diameter, l) = (0.75, 0.5 * 3f64.sqrt(), 2.0, 8.0, 10f64.ln());
    let lower = |n: f64, eps: f64| {
        diameter * f64::min(g1, g2 * (l / n).sqrt() + g2 * ((d + l) / (n * eps)).sqrt())
    };
    let approximate =
        |n: f64, eps: f64| g2 * diameter / n.sqrt() + g2 * diameter * (d.sqrt() / (n * eps)).sqrt();
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b;

    let ns = [1000.0, 4000.0, 16000.0];
    let summary = summary_of(
        Axis::N,
        &ns,
        &["localized_double_output_perturbation", "pure_clipped_gd"],
    );
    let labels: Vec<&str> = summary
        .references
        .iter()
        .map(|r| r.label.as_str())
        .collect();
    assert_eq!(labels, [LOWER_LABEL, APPROXIMATE_LABEL]);
    for (r, f) in summary
        .references
        .iter()
        .zip([&lower as &dyn Fn(f64, f64) -> f64, &approximate])
    {
        assert_eq!(r.x, ns, "{}", r.label);
        for (&n, &y) in ns.iter().zip(&r.y) {
            assert!(
                close(y, f(n, 0.5)),
                "{} at n = {n}: {y} vs {}",
                r.label,
                f(n, 0.5)
            );
        }
        // Both fall in n; pure DP's lower bound stays above the (ε, δ) rate (d against √d).
        assert!(r.y.windows(2).all(|w| w[1] < w[0]), "{r:?}");
    }
    let (lo, approx) = (&summary.references[0].y, &summary.references[1].y);
    assert!(
        lo.iter().zip(approx).all(|(a, b)| a > b),
        "{lo:?} vs {approx:?}"
    );

    // Against ε: the lower bound only where ε ≤ 1 (Theorem 4.1's range), the rate everywhere.
    let summary = summary_of(Axis::Epsilon, &[0.25, 1.0, 4.0], &["pure_clipped_gd"]);
    assert_eq!(summary.references[0].x, [0.25, 1.0]);
    assert!(close(summary.references[0].y[1], lower(1000.0, 1.0)));
    assert_eq!(summary.references[1].x, [0.25, 1.0, 4.0]);
    assert!(close(summary.references[1].y[2], approximate(1000.0, 4.0)));

    // No heavy-tail family, no reference curves.
    let page = PageSweep::new(
        base(),
        &request(Axis::N, &[100.0, 400.0], &["output_perturbation"], 1.0),
    )
    .unwrap();
    let summary = page
        .summary(vec![Some(0.1); page.lanes()], vec![None; 2])
        .unwrap();
    assert!(summary.references.is_empty());
}
