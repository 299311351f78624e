//! González, Guzmán & Paquette 2024's families (private SMD, its leaky demonstration, the
//! non-private baseline, Algorithm 3) run through the session on the page's saddle configs.

use dp_playground::algo::family::ProblemKind;
use dp_playground::config::{AlgorithmKind, GameChoice, RunConfig};
use dp_playground::session::Lab;
use dp_playground::session::Release;

fn game(algorithm: AlgorithmKind, game: GameChoice, d: usize) -> RunConfig {
    RunConfig {
        problem: ProblemKind::Saddle,
        game,
        d,
        algorithm,
        ..RunConfig::default()
    }
}

/// Runs `config` to its release; returns it with the gaps the session scored at every step.
fn release(config: RunConfig) -> (Release, Vec<f64>, f64) {
    let mut lab = Lab::new(config.clone(), None).unwrap_or_else(|e| panic!("{config:?}: {e}"));
    let theory_end = lab.theories()[0]
        .as_ref()
        .map_or(f64::NAN, |c| *c.y.last().unwrap());
    let (mut out, mut gaps) = (None, Vec::new());
    while !lab.is_done() {
        for lane in lab.advance(usize::MAX, || true) {
            gaps.extend(&lane.batch.excess);
            if let Some(r) = lane.batch.release {
                out = Some(r);
            }
        }
    }
    (out.expect("a release"), gaps, theory_end)
}

#[test]
fn private_smd_releases_a_sparse_pair_whose_ledger_states_its_guarantee() {
    let config = RunConfig {
        n: 20_000,
        epsilon: 2.0,
        ..game(AlgorithmKind::PrivateSmd, GameChoice::RandomMatrix, 10)
    };
    let (r, _, bound) = release(config);
    let ledger = &r.ledger;
    assert!(ledger.is_private(), "{ledger:?}");
    assert_eq!(
        (ledger.guarantee.epsilon, ledger.guarantee.delta),
        (2.0, 1e-6)
    );
    assert!(
        ledger.mechanism.contains("Algorithm 1"),
        "{}",
        ledger.mechanism
    );
    assert!(ledger.guarantee.accounting.contains("(ACC)"));
    // Preset (7) for the bilinear game: the release is an average of T drawn vertices.
    let y = r.y().expect("a game releases y");
    let gap = r.excess.expect("the exact gap");
    println!("gap {gap:.4}, theory {bound:.4}");
    assert!(gap.is_finite() && gap <= bound, "{gap} > {bound}");
    for v in [r.w(), y] {
        assert!((v.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    }
}

#[test]
fn the_dense_gradient_demonstration_runs_to_a_release_marked_not_private() {
    let config = RunConfig {
        leak: true,
        ..game(AlgorithmKind::PrivateSmd, GameChoice::RockPaperScissors, 3)
    };
    let lab = Lab::new(config.clone(), None).unwrap();
    assert!(!lab.previews()[0].is_private());
    let (r, _, _) = release(config);
    assert!(!r.ledger.is_private());
    assert!(
        r.ledger.leaks[0].starts_with("NOT PRIVATE"),
        "{:?}",
        r.ledger.leaks
    );
    assert!(r.ledger.leaks[0].contains("dense iterate"));
}

#[test]
fn the_non_private_baseline_releases_with_a_ledger_saying_not_private() {
    let (r, _, _) = release(game(
        AlgorithmKind::SmdBaseline,
        GameChoice::RockPaperScissors,
        3,
    ));
    assert!(!r.ledger.is_private());
    assert!(r.ledger.leaks[0].starts_with("NOT PRIVATE"));
    assert!(r.ledger.guarantee.epsilon.is_infinite());
}

#[test]
fn algorithm_3_releases_under_its_privacy_filter_and_states_its_guarantee() {
    // n = 2000 is too small for Theorem 3.14's U ≥ 4: the run goes on at U = 4 and its filter
    // keeps it within ε; n = 100 000 takes the theorem's parameters and draws its bound.
    for n in [2000, 100_000] {
        let config = RunConfig {
            n,
            ..game(AlgorithmKind::BiasReducedSmd, GameChoice::RandomMatrix, 10)
        };
        let (r, _, bound) = release(config);
        assert!(r.ledger.is_private(), "{:?}", r.ledger);
        assert_eq!(r.ledger.guarantee.epsilon, 1.0);
        assert!(r.ledger.guarantee.accounting.contains("privacy filter"));
        assert!(r.ledger.mechanism.contains("Algorithms 2–3"));
        println!("n = {n}: gap {:?}, Theorem 3.14 {bound}", r.excess);
        assert_eq!(bound.is_nan(), n == 2000);
    }
}

/// The non-private baseline with B ≥ n: deterministic entropic mirror descent on the empirical
/// game, whose gap must stay below Lemma 3.8's 2ℓ/(τT) + 5τL₀² and fall with T.
fn deterministic_gap(game_choice: GameChoice, d: usize, steps: usize) -> (f64, f64) {
    let config = RunConfig {
        n: 200,
        steps,
        batch: 200,
        ..game(AlgorithmKind::SmdBaseline, game_choice, d)
    };
    let (r, gaps, bound) = release(config);
    // The start and every step.
    assert_eq!(gaps.len(), steps + 1);
    (r.excess.unwrap(), bound)
}

#[test]
fn the_baseline_gap_falls_within_its_bound_on_rock_paper_scissors_and_a_random_10_by_10_game() {
    // The issue asks gap ≤ 1e-6 with noise off; mirror descent's average converges like
    // 1/√T (ℓ/(τT) + τL₀² at best), so 1e-6 would take ~10¹² steps. What is checked instead: the
    // deterministic run's exact gap is within its bound at every T and falls with T.
    for (game_choice, d) in [
        (GameChoice::RockPaperScissors, 3),
        (GameChoice::RandomMatrix, 10),
    ] {
        let (mut last, mut first) = (f64::INFINITY, None);
        for steps in [100, 1000, 10_000] {
            let (gap, bound) = deterministic_gap(game_choice, d, steps);
            println!("{game_choice:?} d = {d}, T = {steps}: gap {gap:.3e}, bound {bound:.3e}");
            assert!(gap <= bound, "{gap} > {bound}");
            assert!(gap < last, "T = {steps}: {gap} vs {last}");
            last = gap;
            first.get_or_insert(gap);
        }
        // Two decades of T: the bound falls by √100 = 10; the gap by at least half that
        // (measured: 9.9 on rock–paper–scissors, 9.5 on the random game).
        assert!(last < first.unwrap() / 5.0, "{last} vs {first:?}");
    }
}

#[test]
fn seed_001_families_refuse_the_ball_game_at_its_control() {
    for kind in [
        AlgorithmKind::PrivateSmd,
        AlgorithmKind::SmdBaseline,
        AlgorithmKind::BiasReducedSmd,
    ] {
        let e = Lab::new(game(kind, GameChoice::BallGame, 3), None)
            .err()
            .expect("refused");
        assert_eq!(e.field(), Some("game"), "{kind:?}: {e}");
    }
}
