//! The record gate on replace-one pairs: one record whose
//! features overflow (an ∞ entry) against its bounded neighbour. Before the gate, clipping by
//! c/‖a‖ turned the ∞ entry into ∞·0 = NaN: private mirror descent's softmax was NaN and its
//! vertex sampling always returned vertex 0, Zhang et al.'s certificates failed and released the
//! noiseless start, and the AUC game refused the whole run — an event of probability 1 on D and 0
//! on D′. Through the gate both datasets hold finite records within the declared bound and every
//! run releases with its noise.

use std::sync::Arc;

use dp_playground::algo::family::ProblemKind;
use dp_playground::algo::run::Point;
use dp_playground::config::{AlgorithmKind, DataSource, GameChoice, RecordChoice, RunConfig};
use dp_playground::config::{menu, pose};
use dp_playground::data::{CsvOptions, Tail, load_csv};
use dp_playground::linalg::norm2;
use dp_playground::minimax::PosedGame;
use dp_playground::minimax::auc::AucGame;
use dp_playground::minimax::group_dro::GroupDro;
use dp_playground::rng::DpRng;
use dp_playground::session::problem::{Game, Plane, Posed};
use rand::SeedableRng;

/// A heavy-tailed game of the page's defaults, records clipped to the declared bound.
fn game_config(game: GameChoice, algorithm: AlgorithmKind) -> RunConfig {
    let base = RunConfig {
        problem: ProblemKind::Saddle,
        game,
        algorithm,
        records: RecordChoice::Heavy,
        tail: Tail::StudentT { nu: 2.5 },
        d: 3,
        n: 400,
        ..RunConfig::default()
    };
    menu::pick(&base, algorithm).0
}

/// The plane of x's first two coordinates (the parameter view's; unused by the runs).
fn axes(d: usize) -> Plane {
    let unit = |j: usize| (0..d).map(|i| f64::from(u8::from(i == j))).collect();
    Plane {
        origin: vec![0.0; d],
        e1: unit(0),
        e2: unit(1),
    }
}

/// The release's point (x then y) on `game` with the noise of `seed`.
fn release(config: &RunConfig, game: Arc<dyn PosedGame>, seed: u64) -> Vec<f64> {
    let posed = Posed::Saddle(Arc::new(Game {
        plane: axes(config.game_dims().0),
        game,
    }));
    let plan = menu::plan(config).unwrap_or_else(|e| panic!("{config:?}: {e}"));
    let mut run = plan
        .build(&posed, DpRng::seed_from_u64(seed), true)
        .unwrap_or_else(|e| panic!("{:?}: {e}", config.algorithm));
    while run.step().is_some() {}
    match run.point() {
        Point::Saddle { x, y } => x.iter().chain(y.iter()).copied().collect(),
        Point::Min(_) => panic!("a game releases a saddle point"),
    }
}

/// On each side of the pair the run releases a finite point that moves with the noise seed:
/// the release went through its noise, on D as on D′.
fn assert_released_with_noise(config: &RunConfig, sides: [Arc<dyn PosedGame>; 2], what: &str) {
    for (side, game) in ["D (∞ entry)", "D′ (bounded)"].iter().zip(sides) {
        let a = release(config, Arc::clone(&game), 1);
        let b = release(config, game, 2);
        assert!(
            a.iter().chain(&b).all(|v| v.is_finite()),
            "{what} on {side}: {a:?} {b:?}"
        );
        assert_ne!(a, b, "{what} on {side}: the release ignored its noise");
    }
}

/// Group DRO's record (a, label, group) with a[0] = `first`.
fn dro_record(d: usize, first: f64) -> Vec<f64> {
    let mut r = vec![0.0; d + 2];
    r[0] = first;
    r[d] = 1.0;
    r[d + 1] = 2.0;
    r
}

#[test]
fn an_infinite_group_dro_record_and_its_bounded_neighbour_both_release_with_noise() {
    for (game, algorithm, what) in [
        (
            GameChoice::GroupDroLogisticSimplex,
            AlgorithmKind::PrivateSmd,
            "private mirror descent (vertex sampling)",
        ),
        (
            GameChoice::GroupDroLogistic,
            AlgorithmKind::ByoaMinimaxPhased,
            "Zhang et al.'s phased output perturbation",
        ),
    ] {
        let config = game_config(game, algorithm);
        let spec = config.dro_spec().expect("a group DRO game");
        let side = |first: f64| -> Arc<dyn PosedGame> {
            Arc::new(GroupDro::with_record(spec, dro_record(spec.d, first)).unwrap())
        };
        // The gate keeps the ∞ record's direction: ‖a‖ = c along e₁, as its neighbour.
        let gated = GroupDro::with_record(spec, dro_record(spec.d, f64::INFINITY)).unwrap();
        let mut buf = vec![0.0; spec.d + 2];
        gated.fill_record(0, &mut buf);
        assert_eq!(
            buf[..spec.d].to_vec(),
            dro_record(spec.d, spec.bound)[..spec.d]
        );
        assert_released_with_noise(&config, [side(f64::INFINITY), side(spec.bound)], what);
    }
}

#[test]
fn an_infinite_auc_record_and_its_bounded_neighbour_both_release_with_noise() {
    let config = game_config(GameChoice::AucMaximisation, AlgorithmKind::ByoaMinimaxCsc);
    let spec = config.auc_spec().expect("the AUC game");
    let side = |first: f64| -> Arc<dyn PosedGame> {
        let mut record = vec![0.0; spec.d + 1];
        record[0] = first;
        record[spec.d] = 1.0;
        // Before the gate: "the records' moments: value is not finite", a refusal on D alone.
        Arc::new(AucGame::with_record(spec, record).unwrap())
    };
    assert_released_with_noise(
        &config,
        [side(f64::INFINITY), side(spec.bound)],
        "the AUC game's C-SC variant",
    );
}

/// a CSV row of fifty entries of 1e308 (‖x‖ ≈ 7·10³⁰⁸, beyond f64) was clipped to the
/// zero vector (c/‖x‖ = 0); the gate scales it onto the sphere along its own direction.
#[test]
fn a_csv_row_whose_norm_overflows_is_clipped_along_its_direction() {
    let d = 50;
    let row = |v: &str, label: &str| format!("{}{label}\n", format!("{v},").repeat(d));
    let text = row("1e308", "1") + &row("-1e-3", "-1") + &row("0.5", "1").repeat(8);
    let file = load_csv(text.as_bytes(), &CsvOptions::for_page("last", true)).unwrap();
    let config = RunConfig {
        data: DataSource::Csv,
        n: 10,
        d,
        batch: 10,
        ..RunConfig::default()
    };
    let problem = pose::problem(&config, Some(file)).unwrap();
    let x = problem.data.features(0);
    let bound = config.feature_bound;
    assert!(
        (norm2(x) - bound).abs() < 1e-12 * bound,
        "‖x‖ = {}",
        norm2(x)
    );
    let each = bound / (d as f64).sqrt();
    assert!(x.iter().all(|v| (v - each).abs() < 1e-14), "{x:?}");
    // Its neighbours are clipped as they always were.
    assert_eq!(problem.data.features(1), &[-1e-3; 50]);
    let k = bound / norm2(&[0.5; 50]);
    assert_eq!(problem.data.features(2), &[0.5 * k; 50]);
}
