//! AUC maximisation (Ying, Wen & Lyu 2016's square-loss saddle form; Zhang et al. 2022) as the
//! page poses it: the C-SC game of Zhang et al. 2022's Section 4.3. Picking it
//! from the game menu picks an algorithm that runs it; families whose assumptions it breaks are
//! refused before any data at the field to change; the C-SC variant releases with the paper's
//! noise scales; noise off, extragradient closes the certified gap; bad settings are errors.

use crate::common;
use dp_playground::config::{menu, pose};

use common::lab_release as release;

use dp_playground::algo::NoiseShape;
use dp_playground::algo::byoa_minimax::{Declared, paper_mu_csc};
use dp_playground::algo::registry::FAMILIES;
use dp_playground::config::{AlgorithmKind, GameChoice, ProblemKind, RecordChoice, RunConfig};
use dp_playground::data::Tail;
use dp_playground::minimax::SaddleProblem;
use dp_playground::minimax::auc::{AucGame, CLASS_PRIOR};
use dp_playground::session::Lab;

fn auc() -> RunConfig {
    RunConfig {
        problem: ProblemKind::Saddle,
        game: GameChoice::AucMaximisation,
        d: 2,
        n: 400,
        radius: 1.0,
        epsilon: 0.5,
        ..RunConfig::default()
    }
}

/// Picking AUC from the game menu on a fresh page's config (mirror descent, which needs
/// simplices) gives way to the C-SC variant, which plans, with a note saying why.
#[test]
fn picking_auc_from_the_game_menu_picks_the_csc_variant() {
    let fresh = RunConfig {
        problem: ProblemKind::Saddle,
        algorithm: AlgorithmKind::PrivateSmd,
        d: 3,
        ..RunConfig::default()
    };
    menu::plan(&fresh).expect("mirror descent runs rock–paper–scissors");
    let (picked, notes) = menu::pick_game(&fresh, GameChoice::AucMaximisation);
    assert_eq!(picked.game, GameChoice::AucMaximisation);
    assert_eq!(picked.algorithm, AlgorithmKind::ByoaMinimaxCsc, "{notes:?}");
    assert!(notes[0].starts_with("algorithm set to C-SC"), "{notes:?}");
    menu::plan(&picked).unwrap();
    // A game the algorithm in use runs changes nothing else.
    let (same, notes) = menu::pick_game(&fresh, GameChoice::RandomMatrix);
    assert_eq!((same.algorithm, notes.len()), (fresh.algorithm, 0));
}

/// Every saddle family is refused before any data at the field to change, or runs AUC to a
/// release, bounded and heavy-tailed, whose ledger states its guarantee. The refusals: mirror
/// descent (simplices) and the families that need μₓ > 0 (Algorithm 3, Algorithm 8), at `game`.
#[test]
fn each_saddle_family_runs_auc_or_is_refused_at_a_field_before_the_data() {
    let mut ran = Vec::new();
    for family in FAMILIES
        .iter()
        .filter(|f| f.solves.contains(&ProblemKind::Saddle))
    {
        let (config, _) = menu::pick(&auc(), family.kind);
        match menu::plan(&config) {
            Err(e) => {
                assert_eq!(e.field(), Some("game"), "{:?}: {e}", family.kind);
                let text = e.to_string();
                assert!(
                    text.contains("simplices") || text.contains("strongly convex in x"),
                    "{:?}: {text}",
                    family.kind
                );
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
                    assert!(r.ledger.is_private(), "{:?}", r.ledger.leaks);
                    assert_eq!(r.ledger.guarantee.epsilon, config.epsilon);
                    assert_eq!(r.w().len(), 4, "x = (w, s, t)");
                    // y = α, released by every family but the C-SC variant (x alone).
                    let y = (family.kind != AlgorithmKind::ByoaMinimaxCsc).then_some(1);
                    assert_eq!(r.y().map(<[f64]>::len), y, "y = α");
                    assert!(r.excess.is_some_and(|g| g.is_finite() && g >= 0.0));
                }
                ran.push(family.kind);
            }
        }
    }
    for kind in [
        AlgorithmKind::ByoaMinimaxCsc,
        AlgorithmKind::ByoaMinimaxPhased,
    ] {
        assert!(ran.contains(&kind), "{kind:?} did not run: {ran:?}");
    }
    for kind in [
        AlgorithmKind::ByoaMinimax,
        AlgorithmKind::AdversarialTraining,
        AlgorithmKind::PrivateSmd,
    ] {
        assert!(
            !ran.contains(&kind),
            "{kind:?} ran on a game with μₓ = 0 off the simplex"
        );
    }
}

/// The C-SC variant's noise is Zhang et al. 2022's, from declared constants alone: phase k of
/// K = ⌊log₂ n⌋ releases x with σ_k = (4L/(n̄ε))√(2 ln(2.5/δ)/(μ_k·min(μ_k, μᵧ))), μ_k = μ·2^k,
/// μ = 3(L/D)·max{1/√n, 4K√(dₓ ln(2.5/δ))/(nε)}, μᵧ = 2p(1 − p); and the run releases.
#[test]
fn the_csc_variant_releases_with_the_papers_noise_scales() {
    let (config, _) = menu::pick(&auc(), AlgorithmKind::ByoaMinimaxCsc);
    let declared = config.game_declaration();
    let c = declared.constants;
    assert_eq!(c.mu_y, 2.0 * CLASS_PRIOR * (1.0 - CLASS_PRIOR));
    let (n, dx) = (config.n, declared.dims.0);
    let k_count = (n as f64).log2().floor() as usize;
    let n_bar = (n / k_count) as f64;
    // D: the radius of X × Y, √(R² + 2(Rc)²) against 2Rc.
    let (r, ca) = (config.radius, config.entry_bound);
    let big_d = (r * r + 2.0 * (r * ca).powi(2)).sqrt().max(2.0 * r * ca);
    let mu = paper_mu_csc(c.lipschitz, big_d, n, dx, config.epsilon, config.delta);
    let planned = menu::plan(&config).unwrap();
    assert_eq!(planned.preview.draws.len(), k_count);
    for (k, draw) in (1..=k_count).zip(&planned.preview.draws) {
        let mu_k = mu * 2f64.powi(k as i32);
        let sigma = 4.0 * c.lipschitz / (n_bar * config.epsilon)
            * (2.0 * (2.5 / config.delta).ln() / (mu_k * mu_k.min(c.mu_y))).sqrt();
        let NoiseShape::Gaussian { sigma: got, d } = draw.noise else {
            panic!("{draw:?}")
        };
        assert_eq!(d, dx);
        assert!(
            (got - sigma).abs() <= 1e-12 * sigma,
            "phase {k}: {got} vs {sigma}"
        );
    }
    let r = release(config.clone());
    assert_eq!(r.ledger.guarantee.epsilon, config.epsilon);
    assert_eq!(r.ledger.guarantee.delta, config.delta);
    assert!(r.ledger.is_private());
}

/// Noise off, extragradient on the empirical game (its full gradients, step 1/(2ℓ) with ℓ the
/// declared smoothness) drives the certified gap below 1e-6 on a small instance: the gap's
/// Frank–Wolfe certificate says the point has arrived, whatever the solver.
#[test]
fn noise_off_extragradient_closes_the_certified_gap_below_1e_6() {
    let config = RunConfig { n: 200, ..auc() };
    let game = AucGame::new(config.auc_spec().unwrap()).unwrap();
    let eta = 0.5 / config.game_declaration().constants.smoothness;
    let (mut x, mut y) = (vec![0.0; 4], vec![0.0]);
    let (mut gx, mut gy) = (vec![0.0; 4], vec![0.0]);
    let start = game.duality_gap(&x, &y, &mut gx, &mut gy).unwrap().gap();
    for _ in 0..200_000 {
        game.value_and_gradients(&x, &y, &mut gx, &mut gy).unwrap();
        let mut xh: Vec<f64> = x.iter().zip(&gx).map(|(v, g)| v - eta * g).collect();
        let mut yh = vec![y[0] + eta * gy[0]];
        game.x_domain().project(&mut xh);
        game.y_domain().project(&mut yh);
        game.value_and_gradients(&xh, &yh, &mut gx, &mut gy)
            .unwrap();
        x.iter_mut().zip(&gx).for_each(|(v, g)| *v -= eta * g);
        y[0] += eta * gy[0];
        game.x_domain().project(&mut x);
        game.y_domain().project(&mut y);
    }
    let gap = game.duality_gap(&x, &y, &mut gx, &mut gy).unwrap();
    assert!(gap.gap() >= -1e-12 && gap.gap() <= 1e-6, "{gap:?}");
    assert!(start > 1e-2, "the start's gap is far from 0: {start}");
    // The readout: the equilibrium's scorer ranks most pairs correctly (non-private).
    assert!(game.auc(&x[..2]).unwrap() > 0.8);
}

/// The plan's constants are the built game's, from the configuration alone.
#[test]
fn the_plan_declares_what_the_built_game_reports() {
    let config = auc();
    let built = pose::game(&config).unwrap();
    assert_eq!(
        Declared::of(built.game.as_ref()),
        Declared::of_declaration(&config.game_declaration())
    );
    assert_eq!(built.game.dims(), config.game_dims());
    assert_eq!(
        built.game.x_domain_kind(),
        config.game_declaration().x_domain
    );
}

/// Bad settings are refused at their control with what to do, never a panic; unclipped heavy
/// records say NOT PRIVATE before the run and after it.
#[test]
fn bad_settings_are_refused_at_their_control() {
    let (ok, _) = menu::pick(&auc(), AlgorithmKind::ByoaMinimaxCsc);
    type Spoil = fn(&mut RunConfig);
    let cases: [(Spoil, &str); 5] = [
        (|c| c.radius = 0.0, "radius"),
        (|c| c.radius = f64::NAN, "radius"),
        (|c| c.entry_bound = -1.0, "entry_bound"),
        (|c| c.d = 0, "d"),
        (|c| c.feature_scale = -1.0, "feature_scale"),
    ];
    for (spoil, field) in cases {
        let mut config = RunConfig {
            records: RecordChoice::Heavy,
            ..ok.clone()
        };
        spoil(&mut config);
        let e = std::panic::catch_unwind(|| config.validate())
            .expect("no panic")
            .unwrap_err();
        assert_eq!(e.field(), Some(field), "{e}");
        assert!(Lab::new(config, None).is_err());
    }
    // Algorithm 3 needs μₓ > 0, which no μ setting gives this game: refused at the game menu.
    let (sc_sc, notes) = menu::pick(&ok, AlgorithmKind::ByoaMinimax);
    assert!(notes.iter().all(|n| !n.contains("μₓ")), "{notes:?}");
    let e = menu::plan(&sc_sc).err().expect("refused");
    assert_eq!(e.field(), Some("game"), "{e}");
    assert!(e.to_string().contains("μₓ = 0"), "{e}");
    // A link naming the game reads back the same config.
    let json = ok.to_json();
    assert!(json.contains("\"auc_maximisation\""), "{json}");
    assert_eq!(RunConfig::from_json(&json).unwrap(), ok);
    // Unclipped heavy records: NOT PRIVATE before and after.
    let bare = RunConfig {
        records: RecordChoice::Heavy,
        tail: Tail::StudentT { nu: 2.5 },
        clip_records: false,
        ..ok
    };
    assert!(!menu::plan(&bare).unwrap().preview.is_private());
    let r = release(bare);
    assert!(r.ledger.leaks.iter().any(|l| l.contains("NOT clipped")));
}

/// The reference saddle point the AUC readout compares with is the empirical game's: noise
/// off, its certified gap is below 1e-6 (the golden-section search over α and the inner solve
/// meet), and its scorer ranks most pairs correctly.
#[test]
fn the_reference_saddle_point_closes_the_certified_gap() {
    for n in [200, 400] {
        let game = AucGame::new(RunConfig { n, ..auc() }.auc_spec().unwrap()).unwrap();
        let (x, alpha) = game.reference_point();
        let (mut gx, mut gy) = (vec![0.0; 4], vec![0.0]);
        let gap = game.duality_gap(&x, &[alpha], &mut gx, &mut gy).unwrap();
        assert!(gap.gap() >= -1e-12 && gap.gap() <= 1e-6, "n = {n}: {gap:?}");
        assert!(game.auc(&x[..2]).unwrap() > 0.8, "n = {n}");
    }
}

/// The release of an AUC game carries its readout, labelled by the game (non-private,
/// computed after the release): the released w's AUC as the pair count gives it, and the
/// reference saddle point's; a game without a readout carries none.
#[test]
fn the_release_carries_the_auc_of_the_released_and_the_reference_point() {
    let (config, _) = menu::pick(&auc(), AlgorithmKind::ByoaMinimaxCsc);
    let r = release(config.clone());
    let readout = r.readout.expect("an AUC readout");
    assert_eq!(readout.name, "AUC");
    assert_eq!(Some(readout.name), config.game.readout_name());
    let game = AucGame::new(config.auc_spec().unwrap()).unwrap();
    assert_eq!(readout.released, game.auc(&r.w()[..2]).unwrap());
    let (reference, _) = game.reference_point();
    assert_eq!(readout.reference, Some(game.auc(&reference[..2]).unwrap()));
    assert!((0.0..=1.0).contains(&readout.released), "{readout:?}");
    // Serialised for the page beside the release, never as part of the private export's points.
    let json = serde_json::to_string(&r).unwrap();
    assert!(json.contains("\"readout\":{\"name\":\"AUC\""), "{json}");
    let matrix = RunConfig {
        problem: ProblemKind::Saddle,
        d: 3,
        n: 200,
        ..RunConfig::default()
    };
    let (matrix, _) = menu::pick(&matrix, AlgorithmKind::PrivateSmd);
    assert_eq!(matrix.game.readout_name(), None);
    assert_eq!(release(matrix).readout, None);
}
