//! The saddle page's views as the session sends them: the ternary path and the vertex
//! draws of a vertex-sampling run beside its dense iterate, Zhang et al.'s phase timeline, and the
//! sentence saying why González et al.'s Algorithm 3 stopped.

use dp_playground::algo::family::ProblemKind;
use dp_playground::config::menu;
use dp_playground::config::{AlgorithmKind, GameChoice, RunConfig};
use dp_playground::session::game_views::{GameViews, KEPT_PER_SLICE};
use dp_playground::session::{Lab, Release};

/// Rock–paper–scissors at d = 3 with `kind`, picked as the page's menu picks it.
fn rps(kind: AlgorithmKind, n: usize) -> RunConfig {
    let raw = RunConfig {
        problem: ProblemKind::Saddle,
        game: GameChoice::RockPaperScissors,
        d: 3,
        n,
        ..RunConfig::default()
    };
    menu::pick(&raw, kind).0
}

/// Runs `config` to its release, `steps` steps a slice; returns the main lane's views of every
/// slice and the release.
fn run(config: RunConfig, steps: usize) -> (Vec<GameViews>, Release) {
    let mut lab = Lab::new(config, None).expect("lab");
    let (mut views, mut release) = (Vec::new(), None);
    while !lab.is_done() {
        for lane in lab.advance(steps, || true) {
            if (lane.algorithm, lane.repeat) == (0, 0) {
                views.push(lane.batch.views.expect("a game's slice has views"));
                release = lane.batch.release.or(release);
            }
        }
    }
    (views, release.expect("a release"))
}

#[test]
fn the_public_vertex_draws_average_to_the_release_and_the_ternary_path_ends_on_it() {
    // One step a slice: nothing is thinned, so every output vertex crosses.
    let (views, release) = run(rps(AlgorithmKind::PrivateSmd, 2000), 1);
    assert!(
        views.iter().all(|v| v.ternary),
        "both players have three strategies"
    );
    let draws: Vec<f64> = views.iter().flat_map(|v| v.draws.clone()).collect();
    let steps: usize = views.iter().map(|v| v.steps.len()).sum();
    assert_eq!(draws.len(), 2 * steps);
    // The release entry draws nothing; every step drew one vertex per player, a strategy 0..3.
    let drawn: Vec<&[f64]> = draws.chunks(2).filter(|d| !d[0].is_nan()).collect();
    assert_eq!(drawn.len(), steps - 1);
    let mut counts = [[0.0; 3]; 2];
    for d in &drawn {
        for p in 0..2 {
            assert!([0.0, 1.0, 2.0].contains(&d[p]), "{d:?}");
            counts[p][d[p] as usize] += 1.0;
        }
    }
    // What an outsider saw, averaged, is the release.
    let t = drawn.len() as f64;
    let y = release.y().unwrap();
    for (j, c) in counts[0].iter().enumerate() {
        assert!(
            (c / t - release.w()[j]).abs() < 1e-12,
            "x{j}: {} vs {}",
            c / t,
            release.w()[j]
        );
    }
    for (j, c) in counts[1].iter().enumerate() {
        assert!((c / t - y[j]).abs() < 1e-12, "y{j}");
    }
    // The curator's dense iterate: a point of the simplex with full support (a Gibbs law).
    let dense = views
        .last()
        .unwrap()
        .dense
        .as_ref()
        .expect("the dense iterate");
    for v in [&dense.x, &dense.y] {
        assert!((v.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(v.iter().all(|p| *p > 0.0));
    }
    // The ternary path: both players per step, ending on the release.
    let path: Vec<f64> = views.iter().flat_map(|v| v.simplex_path.clone()).collect();
    assert_eq!(path.len(), 6 * steps);
    let last = &path[path.len() - 6..];
    assert_eq!(&last[..3], release.w());
    assert_eq!(&last[3..], y);
    assert!(
        views
            .iter()
            .all(|v| v.phases.is_empty() && v.stopped.is_none())
    );
}

#[test]
fn a_fast_slice_thins_its_rows_before_they_cross() {
    let (views, _) = run(rps(AlgorithmKind::PrivateSmd, 20_000), usize::MAX);
    let big = views.iter().max_by_key(|v| v.steps.len()).unwrap();
    assert!(big.steps.len() <= KEPT_PER_SLICE + 1, "{}", big.steps.len());
    assert_eq!(big.draws.len(), 2 * big.steps.len());
    assert_eq!(big.simplex_path.len(), 6 * big.steps.len());
    // Evenly spaced steps from the slice's first (the thinned body; the last is appended).
    let body = &big.steps[..big.steps.len() - 1];
    let gap = body[1] - body[0];
    assert!(gap > 1.0, "a slice of many steps was thinned: gap {gap}");
    assert!(body.windows(2).all(|w| w[1] - w[0] == gap));
}

#[test]
fn a_game_without_vertex_sampling_or_three_strategies_has_neither_view() {
    let baseline = rps(AlgorithmKind::SmdBaseline, 2000);
    let (views, _) = run(baseline, usize::MAX);
    assert!(
        views
            .iter()
            .all(|v| v.draws.is_empty() && v.dense.is_none())
    );
    assert!(
        views.iter().all(|v| v.ternary),
        "still three strategies each"
    );
    let random = RunConfig {
        game: GameChoice::RandomMatrix,
        d: 5,
        ..rps(AlgorithmKind::PrivateSmd, 2000)
    };
    let (views, _) = run(random, usize::MAX);
    assert!(
        views
            .iter()
            .all(|v| !v.ternary && v.simplex_path.is_empty())
    );
    assert!(
        views
            .iter()
            .all(|v| v.dense.as_ref().is_some_and(|d| d.x.len() == 5))
    );
}

#[test]
fn the_phased_timeline_is_planned_before_the_run_and_filled_as_it_goes() {
    let config = rps(AlgorithmKind::ByoaMinimaxPhased, 2000);
    let lab = Lab::new(config.clone(), None).expect("lab");
    let planned = lab.game_views().expect("a game").phases;
    assert!(planned.len() >= 4, "{planned:?}");
    assert!(
        planned
            .iter()
            .all(|p| p.state == "waiting" && p.gradients == 0.0)
    );
    // Algorithm 4's phases, then Algorithm 5's, μ_k doubling and σ_k shrinking within each.
    let k = planned.len() / 2;
    for (alg, rows) in [(4, &planned[..k]), (5, &planned[k..])] {
        assert!(rows.iter().all(|p| p.algorithm.number() == alg));
        for w in rows.windows(2) {
            assert!((w[1].mu_k / w[0].mu_k - 2.0).abs() < 1e-12);
            assert!(w[1].sigma < w[0].sigma);
            assert!(w[1].target_radius < w[0].target_radius);
            assert_eq!(w[0].records, w[1].records, "n̄");
        }
    }
    let (views, _) = run(config, 1);
    // While it ran, some slice showed a phase running with gradients used.
    assert!(views.iter().any(|v| {
        v.phases
            .iter()
            .any(|p| p.state == "running" && p.gradients > 0.0)
    }));
    let end = &views.last().unwrap().phases;
    assert_eq!(end.len(), planned.len());
    for (p, q) in end.iter().zip(&planned) {
        assert!(p.state.starts_with("released"), "{p:?}");
        assert!(p.gradients > 0.0);
        // The schedule never changes once the data are read.
        assert_eq!(
            (p.mu_k, p.sigma, p.target_radius, p.records),
            (q.mu_k, q.sigma, q.target_radius, q.records)
        );
    }
}

#[test]
fn algorithm_3_says_why_it_stopped_once_it_has() {
    let (views, _) = run(rps(AlgorithmKind::BiasReducedSmd, 2000), usize::MAX);
    let (last, earlier) = views.split_last().unwrap();
    assert!(earlier.iter().all(|v| v.stopped.is_none()));
    let said = last.stopped.as_deref().expect("the reason");
    assert!(said.starts_with("Stopped after "), "{said}");
    assert!(
        said.contains("budget") || said.contains("records") || said.contains("privacy filter"),
        "{said}"
    );
    assert!(
        last.dense.is_some() && !last.draws.is_empty(),
        "Algorithm 3 samples vertices too"
    );
}
