//! Lowy & Razaviyayn 2021's Algorithm 8 (`algo::adversarial_training`) planned from the page's
//! configuration.

use crate::algo::adversarial_training::*;
use crate::algo::byoa_minimax::Declared;
use crate::algo::family::ProblemKind;
use crate::algo::kinds::AlgorithmKind;
use crate::config::RunConfig;

fn close(got: f64, want: f64, rel: f64) -> bool {
    (got - want).abs() <= rel * want.abs()
}

/// The page's path: a ball game with μ > 0 plans Algorithm 8 from the config alone, its preview
/// states the corrected sensitivity, and the leak switch flips the preview to NOT PRIVATE.
#[test]
fn the_plan_previews_the_corrected_sensitivity_and_the_leak() {
    use crate::config::GameChoice;
    let config = RunConfig {
        problem: ProblemKind::Saddle,
        game: GameChoice::BallGame,
        algorithm: AlgorithmKind::AdversarialTraining,
        mu_x: 0.5,
        mu_y: 0.5,
        d: 2,
        n: 400,
        epsilon: 1.0,
        delta: 1e-6,
        ..RunConfig::default()
    };
    let planned = crate::config::menu::plan(&config).unwrap();
    let declared = Declared::of_spec(&config.game_spec());
    let c = calibrate(&declared, &AdversarialSettings::new(1.0, 1e-6)).unwrap();
    assert!(close(
        planned.preview.sensitivity,
        corrected_sensitivity(c.minimiser_sensitivity, c.alpha, 0.5),
        1e-12
    ));
    assert!(planned.preview.is_private());
    let leaky = crate::config::menu::plan(&RunConfig {
        leak: true,
        ..config
    })
    .unwrap();
    assert!(!leaky.preview.is_private());
    assert!(leaky.preview.sensitivity < planned.preview.sensitivity);
}
