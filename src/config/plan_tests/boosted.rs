//! González, Guzmán & Paquette 2024, Algorithm 4 (`algo::smd::boosted`) planned from a whole
//! configuration: the pick's n, the check's refusals, and runs of the planned algorithm.

use crate::algo::family::ProblemKind;
use crate::algo::kinds::AlgorithmKind;
use crate::algo::problem::Posed;
use crate::algo::run::{Point, Run};
use crate::algo::smd::boosted::*;
use crate::algo::smd::family::simplex_game;
use crate::config::GameChoice;
use crate::config::RunConfig;
use crate::minimax::game::StochasticGame;
use crate::minimax::{RecordGame, SaddleProblem};
use crate::rng::{Stream, seeded};
use std::ops::Range;
use std::sync::Arc;

#[test]
fn the_declared_least_records_is_four_i_j() {
    let (i, j) = repetitions(FAILURE_PROBABILITY);
    assert_eq!(4 * i * j, LEAST_RECORDS);
    // Picking the family raises n to the need (at an ε large enough that the need, not the
    // step, is what binds).
    let start = RunConfig {
        problem: ProblemKind::Saddle,
        game: GameChoice::RockPaperScissors,
        d: 3,
        n: 300,
        epsilon: 100.0,
        ..RunConfig::default()
    };
    let picked = crate::config::menu::pick(&start, AlgorithmKind::BoostedSmd).0;
    assert_eq!(picked.n, LEAST_RECORDS);
    // A compare lane below the need is refused by the check, before any data, at `compare`
    // with n named.
    let mut config = picked;
    config.n = LEAST_RECORDS - 1;
    config.algorithm = AlgorithmKind::PrivateSmd;
    config.compare = vec![AlgorithmKind::BoostedSmd];
    let e = config.check().err().unwrap();
    assert!(e.to_string().contains("samples n"), "{e}");
}

fn game_config(game: GameChoice, d: usize, n: usize, epsilon: f64) -> RunConfig {
    let config = RunConfig {
        problem: ProblemKind::Saddle,
        game,
        d,
        n,
        epsilon,
        algorithm: AlgorithmKind::BoostedSmd,
        ..RunConfig::default()
    };
    // The pick meets the family's needs; the test's n stays (a pick may raise it).
    RunConfig {
        n,
        ..crate::config::menu::pick(&config, AlgorithmKind::BoostedSmd).0
    }
}

#[test]
fn picking_algorithm_4_raises_n_to_where_its_candidates_can_step() {
    // On the page's defaults (ε = 1, n = 2000) each candidate part held 71 records, fewer
    // than Algorithm 3's smallest batch: every run released the uniform start. Raised only to
    // where a part could take a step (n = 4228), a candidate ran at U = 4 on too few records
    // for its larger levels, often took no step, and the selection picked it (the uniform start
    // is rock–paper–scissors' equilibrium): seeds 1–3 all released the start. The pick now
    // raises n to where Theorem 3.14 itself runs in every candidate part (its U ≥ 4), says so,
    // and the plan runs; one record fewer per part and the theorem no longer applies.
    let (picked, notes) =
        crate::config::menu::pick(&RunConfig::default(), AlgorithmKind::BoostedSmd);
    assert!(picked.n > 4228, "n = {}", picked.n);
    assert!(
        notes
            .iter()
            .any(|n| n.contains(&format!("samples n set to {}", picked.n))),
        "{notes:?}"
    );
    assert!(crate::config::menu::plan(&picked).is_ok());
    assert!(plan_of(&picked).theorem_3_14_applies);
    let short = RunConfig {
        n: picked.n - 4 * plan_of(&picked).candidates,
        ..picked
    };
    assert!(!plan_of(&short).theorem_3_14_applies);
    assert!(crate::config::menu::plan(&short).is_ok());
}

fn plan_of(config: &RunConfig) -> BoostedPlan {
    let (n, dims, constants) = simplex_game(&config.settings()).unwrap();
    let bound = value_bound(&config.game_spec());
    BoostedPlan::new(
        n,
        dims,
        constants,
        bound,
        (config.epsilon, config.delta),
        usize::MAX,
    )
    .unwrap()
}

#[test]
fn the_selection_is_the_papers_exp_of_minus_n_eps_g_over_32_b_f() {
    // |S₄| = n/4: the score sensitivity 4B_f/|S₄| is 16B_f/n, and the exponential mechanism's
    // log-weight −εG/(2Δ) is the paper's −nεG/(32B_f).
    let config = game_config(GameChoice::RandomMatrix, 4, 4000, 0.7);
    let p = plan_of(&config);
    assert_eq!(p.value_bound, 1.0);
    assert!((p.selection_sensitivity - 16.0 / 4000.0).abs() < 1e-15);
    let g = [0.3, 0.05, 1.2];
    for (w, g) in p.selection_log_weights(&g).iter().zip(g) {
        let paper = -4000.0 * 0.7 * g / 32.0;
        assert!((w / paper - 1.0).abs() < 1e-12, "{w} vs {paper}");
    }
    // Query release has an offset b: B_f = 2c.
    let qr = game_config(GameChoice::QueryRelease, 4, 4000, 0.7);
    assert_eq!(value_bound(&qr.game_spec()), 2.0 * qr.entry_bound);
}

#[test]
fn every_record_is_read_by_one_part_at_most() {
    let p = plan_of(&game_config(GameChoice::RockPaperScissors, 3, 2001, 1.0));
    let mut parts: Vec<Range<usize>> = (0..p.candidates).map(|i| p.candidate_records(i)).collect();
    for q in [1, 2] {
        for i in 0..p.candidates {
            for j in 0..p.responses {
                parts.push(p.response_records(q, i, j));
            }
        }
    }
    parts.push(p.selection_records());
    let mut owner = vec![0u32; p.n];
    for part in &parts {
        assert!(!part.is_empty() && part.end <= p.n, "{part:?}");
        for r in part.clone() {
            owner[r] += 1;
        }
    }
    assert!(owner.iter().all(|c| *c <= 1));
    assert_eq!(p.selection_records().len(), 2001 / 4);
}

#[test]
fn the_declared_value_bound_holds_for_every_record_at_every_vertex() {
    // |f(x, y; ξ)| ≤ B_f for every record at every pair of vertices (f is bilinear, so its
    // extremes on the simplices are at vertices), on the three games on simplices.
    for (game, d) in [
        (GameChoice::RockPaperScissors, 4),
        (GameChoice::RandomMatrix, 5),
        (GameChoice::QueryRelease, 3),
    ] {
        let config = game_config(game, d, 400, 1.0);
        let g = StochasticGame::new(config.game_spec()).unwrap();
        let bound = value_bound(&config.game_spec());
        let (dx, dy) = g.dims();
        let mut scratch = g.scratch();
        let mut largest = 0.0_f64;
        for i in 0..50 {
            for a in 0..dx {
                for b in 0..dy {
                    let (mut x, mut y) = (vec![0.0; dx], vec![0.0; dy]);
                    x[a] = 1.0;
                    y[b] = 1.0;
                    let v = g.batch_value(i..i + 1, &x, &y, &mut scratch).unwrap();
                    largest = largest.max(v.abs());
                }
            }
        }
        assert!(largest <= bound + 1e-12, "{game:?}: {largest} > {bound}");
        // The mean over every record is the empirical game's value.
        let (x, y) = (vec![1.0 / dx as f64; dx], vec![1.0 / dy as f64; dy]);
        let all = g.batch_value(0..400, &x, &y, &mut scratch).unwrap();
        assert!((all - g.value(&x, &y).unwrap()).abs() < 1e-12);
    }
}

#[test]
fn too_few_records_is_an_error_naming_n() {
    let mut config = game_config(GameChoice::RockPaperScissors, 3, 300, 1.0);
    config.n = 300;
    let e = config.check().err().unwrap();
    assert_eq!(e.field(), Some("n"), "{e}");
    // The plan refuses it too, whatever reaches it.
    let e = crate::config::menu::plan(&config).err().unwrap();
    assert_eq!(e.field(), Some("n"), "{e}");
    assert!(e.to_string().contains("308"), "{e}");
}

#[test]
fn the_running_epsilon_climbs_to_the_stated_epsilon_and_never_above() {
    let config = game_config(GameChoice::RandomMatrix, 5, 6000, 2.0);
    let planned = crate::config::menu::plan(&config).unwrap();
    let stated = planned.preview.guarantee.clone();
    let game = crate::config::pose::game(&config).unwrap();
    let posed = Posed::Saddle(Arc::new(game));
    let mut run = planned
        .build(&posed, seeded(3, Stream::Noise), true)
        .unwrap();
    let mut spent = Vec::new();
    while let Some(step) = run.step() {
        spent.push(step.report.epsilon_spent);
    }
    assert_eq!(run.guarantee(), &stated);
    assert!(spent.windows(2).all(|w| w[0] <= w[1]), "not monotone");
    assert!(spent.iter().all(|e| *e <= stated.epsilon));
    assert_eq!(*spent.last().unwrap(), stated.epsilon);
    // Some sub-run spent a real part of ε before the selection.
    assert!(spent[spent.len() - 2] > 0.0);
    assert!(run.ledger().is_private());
    let Point::Saddle { x, y } = run.point() else {
        panic!()
    };
    assert!((x.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    assert!((y.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    println!("{} steps, {:.3} passes", spent.len(), run.grad_evals());
}

#[test]
fn the_selected_candidate_is_one_of_the_candidates_with_the_smallest_score_most_often() {
    // A large sample and ε: the scores differ by far more than 2Δ_G/ε, so the exponential
    // mechanism picks the candidate of the smallest score (its release is that candidate).
    let config = game_config(GameChoice::RockPaperScissors, 3, 40_000, 8.0);
    let plan = plan_of(&config);
    let game = Arc::new(StochasticGame::new(config.game_spec()).unwrap());
    let mut run = BoostedSmd::new(game, plan, seeded(4, Stream::Noise), true).unwrap();
    while run.step().is_some() {}
    let chosen = run.selected().unwrap();
    let scores = run.scores().to_vec();
    assert_eq!(scores.len(), run.plan().candidates);
    let best = scores.iter().copied().fold(f64::INFINITY, f64::min);
    println!("scores {scores:?}, chosen {chosen}");
    assert!(scores[chosen] - best <= 20.0 * run.plan().selection_sensitivity / 8.0);
    let Point::Saddle { x, y } = run.point() else {
        panic!()
    };
    assert_eq!(
        (x, y),
        (
            &run.candidates()[chosen].0[..],
            &run.candidates()[chosen].1[..]
        )
    );
}
