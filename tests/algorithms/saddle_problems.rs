//! Worst-group (group DRO) logistic regression and least squares, and Zhang et al.'s ℓ1 system
//! fit, as games, as the page poses them: every saddle family whose
//! assumptions the problem meets runs to a release, those it breaks are refused before any data
//! at the field to change, noise off a certified solver closes the gap, and bad settings are
//! errors, never panics.

use crate::common;

use common::lab_release as release;

use std::sync::Arc;

use dp_playground::algo::byoa_minimax::{
    Declared, MinimaxLeak, MinimaxOutputPerturbation, MinimaxSettings, Variant,
};
use dp_playground::algo::registry::FAMILIES;
use dp_playground::config::{AlgorithmKind, GameChoice, ProblemKind, RecordChoice, RunConfig};
use dp_playground::config::{menu, pose};
use dp_playground::data::Tail;
use dp_playground::minimax::solvers::SaddleSolverKind;
use dp_playground::minimax::{RecordGame, SaddleProblem};
use dp_playground::rng::{Stream, seeded};
use dp_playground::session::Lab;

const GAMES: [GameChoice; 3] = [
    GameChoice::GroupDroLogistic,
    GameChoice::GroupDroSquares,
    GameChoice::L1SystemFit,
];

/// y's dimension at d = 3: three groups, or three equations.
const DY: usize = 3;

fn dro(game: GameChoice) -> RunConfig {
    RunConfig {
        problem: ProblemKind::Saddle,
        game,
        d: 3,
        n: 400,
        radius: 2.0,
        ..RunConfig::default()
    }
}

/// Noise off ([`MinimaxLeak::NoiseOff`]: σ = 0, each phase certified to 1e-16 of its target),
/// Algorithm 3 with every certified solver on the group DRO game the session poses reaches a
/// certified duality gap ≤ 1e-6 (the certificate's upper bound, so the true gap is smaller).
#[test]
fn noise_off_a_certified_solver_closes_the_certified_gap_below_1e_6() {
    for game in GAMES {
        let config = RunConfig {
            mu_x: 0.5,
            mu_y: 0.5,
            n: 200,
            ..dro(game)
        };
        let posed = pose::game(&config).unwrap();
        for solver in [
            SaddleSolverKind::Extragradient,
            SaddleSolverKind::VrExtragradient,
        ] {
            let mut settings = MinimaxSettings::new(1.0, 1e-6);
            settings.solver = solver;
            settings.leak = MinimaxLeak::NoiseOff;
            let records: Arc<dyn RecordGame> = posed.game.clone();
            let mut run = MinimaxOutputPerturbation::new(
                Variant::ScSc,
                records,
                settings,
                seeded(1, Stream::Noise),
                true,
            )
            .unwrap();
            let (x, y) = run.run_to_end();
            let (x, y) = (x.to_vec(), y.to_vec());
            assert!(
                !run.aborted() && run.logs()[0].certified,
                "{game:?} {solver:?}"
            );
            let (mut gx, mut gy) = (vec![0.0; 3], vec![0.0; DY]);
            let gap = posed.game.duality_gap(&x, &y, &mut gx, &mut gy).unwrap();
            assert!(
                gap.gap() >= -1e-12 && gap.gap() <= 1e-6,
                "{game:?} {solver:?}: {gap:?}"
            );
            // The start's certified gap is far from 0: the bound is not vacuous.
            let start = posed
                .game
                .duality_gap(&[0.0; 3], &[1.0 / 3.0; DY], &mut gx, &mut gy)
                .unwrap();
            assert!(start.gap() > 1e-3, "{game:?}: {start:?}");
        }
    }
}

/// Every saddle family is either refused before any data, at the field to change, or runs to a
/// release on both problems, bounded and heavy-tailed, whose ledger states its guarantee.
#[test]
fn each_saddle_family_runs_or_is_refused_at_a_field_before_the_data() {
    let saddle: Vec<_> = FAMILIES
        .iter()
        .filter(|f| f.solves.contains(&ProblemKind::Saddle))
        .collect();
    let mut ran = Vec::new();
    for game in GAMES {
        for family in &saddle {
            let (config, _) = menu::pick(&dro(game), family.kind);
            match menu::plan(&config) {
                Err(e) => {
                    // Mirror descent with vertex sampling needs simplices: refused at the game menu.
                    assert_eq!(e.field(), Some("game"), "{:?}: {e}", family.kind);
                    assert!(e.to_string().contains("simplices"), "{e}");
                    assert!(Lab::new(config, None).is_err());
                }
                Ok(planned) => {
                    assert!(planned.preview.is_private(), "{:?}", family.kind);
                    for records in [RecordChoice::Bounded, RecordChoice::Heavy] {
                        let config = RunConfig {
                            records,
                            tail: Tail::StudentT { nu: 2.5 },
                            ..config.clone()
                        };
                        let r = release(config.clone());
                        assert!(
                            r.ledger.is_private(),
                            "{:?}: {:?}",
                            family.kind,
                            r.ledger.leaks
                        );
                        assert_eq!(r.ledger.guarantee.epsilon, config.epsilon);
                        assert_eq!(r.w().len(), 3);
                        // The C-SC variant releases x alone.
                        let y = (family.kind != AlgorithmKind::ByoaMinimaxCsc).then_some(DY);
                        assert_eq!(r.y().map(<[f64]>::len), y, "{:?}", family.kind);
                        assert!(r.excess.is_some_and(|g| g.is_finite() && g >= 0.0));
                    }
                    ran.push(family.kind);
                }
            }
        }
    }
    // Zhang et al.'s three and Algorithm 8 meet the assumptions (ℓ2 ball × simplex).
    for kind in [
        AlgorithmKind::ByoaMinimax,
        AlgorithmKind::ByoaMinimaxPhased,
        AlgorithmKind::ByoaMinimaxCsc,
        AlgorithmKind::AdversarialTraining,
    ] {
        assert!(ran.contains(&kind), "{kind:?} did not run: {ran:?}");
    }
    for kind in [AlgorithmKind::PrivateSmd, AlgorithmKind::BiasReducedSmd] {
        assert!(!ran.contains(&kind), "{kind:?} ran off the simplex");
    }
}

/// The plan's constants are the built game's: computed from the configuration alone.
#[test]
fn the_plan_declares_what_the_built_game_reports() {
    for game in GAMES {
        let config = RunConfig {
            mu_x: 0.2,
            mu_y: 0.1,
            ..dro(game)
        };
        let built = pose::game(&config).unwrap();
        assert_eq!(
            Declared::of(built.game.as_ref()),
            Declared::of_declaration(&config.game_declaration())
        );
        assert_eq!(built.game.dims(), config.game_dims());
    }
}

/// Unclipped heavy-tailed records say NOT PRIVATE before the run and in the ledger after it.
#[test]
fn unclipped_heavy_records_say_not_private_before_and_after() {
    let (config, _) = menu::pick(
        &RunConfig {
            records: RecordChoice::Heavy,
            tail: Tail::StudentT { nu: 2.5 },
            clip_records: false,
            ..dro(GameChoice::GroupDroSquares)
        },
        AlgorithmKind::ByoaMinimax,
    );
    let planned = menu::plan(&config).unwrap();
    assert!(!planned.preview.is_private());
    let r = release(config);
    assert!(!r.ledger.is_private());
    assert!(r.ledger.leaks.iter().any(|l| l.contains("NOT clipped")));
}

/// Bad settings are refused at their control with what to do, and never panic.
#[test]
fn bad_settings_are_refused_at_their_control() {
    let (ok, _) = menu::pick(
        &dro(GameChoice::GroupDroLogistic),
        AlgorithmKind::ByoaMinimax,
    );
    type Spoil = fn(&mut RunConfig);
    let cases: [(Spoil, &str); 5] = [
        (|c| c.radius = 0.0, "radius"),
        (|c| c.radius = f64::NAN, "radius"),
        (|c| c.entry_bound = -1.0, "entry_bound"),
        (|c| c.d = 0, "d"),
        (|c| c.mu_x = -1.0, "mu_x"),
    ];
    for (spoil, field) in cases {
        let mut config = ok.clone();
        spoil(&mut config);
        let e = std::panic::catch_unwind(|| config.validate())
            .expect("no panic")
            .unwrap_err();
        assert_eq!(e.field(), Some(field), "{e}");
        assert!(Lab::new(config, None).is_err());
    }
    // A link naming the problem reads back the same config.
    let json = ok.to_json();
    assert!(json.contains("\"group_dro_logistic\""), "{json}");
    assert_eq!(RunConfig::from_json(&json).unwrap(), ok);
}

/// The ℓ1 system fit's gap is the closed form of Zhang et al. 2022 on the empirical means:
/// ‖Āx − b̄‖₁ + R‖Āᵀy‖ + b̄ᵀy (Ā = M̄ᵀ in the game's form), and its primal side is the non-smooth
/// ℓ1 objective itself.
#[test]
fn the_l1_system_fits_gap_is_its_closed_form() {
    use dp_playground::minimax::game::StochasticGame;
    let config = dro(GameChoice::L1SystemFit);
    let game = StochasticGame::new(config.game_spec()).unwrap();
    let (m, b) = game.mean_payoffs();
    let (dx, dy) = (3, 3);
    let (x, y) = ([0.5, -1.0, 0.3], [0.2, -0.9, 1.0]);
    // Āx − b̄, with Ā[k][j] = M̄[j][k].
    let residual: Vec<f64> = (0..dy)
        .map(|k| (0..dx).map(|j| m[j * dy + k] * x[j]).sum::<f64>() - b[k])
        .collect();
    let at_y: Vec<f64> = (0..dx)
        .map(|j| (0..dy).map(|k| m[j * dy + k] * y[k]).sum())
        .collect();
    let l1: f64 = residual.iter().map(|r| r.abs()).sum();
    let norm = at_y.iter().map(|v| v * v).sum::<f64>().sqrt();
    let by: f64 = b.iter().zip(&y).map(|(bi, yi)| bi * yi).sum();
    let (mut gx, mut gy) = ([0.0; 3], [0.0; 3]);
    let gap = game.duality_gap(&x, &y, &mut gx, &mut gy).unwrap();
    assert!((gap.upper - l1).abs() < 1e-12, "{} vs {l1}", gap.upper);
    assert!((gap.gap() - (l1 + config.radius * norm + by)).abs() < 1e-12);
}
