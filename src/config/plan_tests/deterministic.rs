//! Lowy 2026's Lemma D.5 (`algo::heavy_tails::deterministic`) planned from a whole configuration:
//! its pure-ε statement and draws, and its refusals at the loss and at λ₁.

use crate::algo::NoiseShape;
use crate::algo::heavy_tails::deterministic::*;
use crate::algo::heavy_tails::localised::calibrated_lambda;
use crate::algo::kinds::AlgorithmKind;
use crate::config::RunConfig;
use crate::loss::Glm;

fn picked() -> RunConfig {
    let (config, notes) = crate::config::menu::pick(
        &RunConfig {
            delta: 0.0,
            ..RunConfig::default()
        },
        AlgorithmKind::DeterministicDoubleOutputPerturbation,
    );
    assert!(
        notes.iter().any(|n| n.contains("absolute value")),
        "{notes:?}"
    );
    config
}

#[test]
fn its_pure_epsilon_statement_and_noise_law_come_from_the_config_alone() {
    let config = picked();
    config.validate().unwrap();
    let planned = crate::config::menu::plan(&config).unwrap();
    let preview = &planned.preview;
    assert_eq!(
        (preview.guarantee.epsilon, preview.guarantee.delta),
        (1.0, 0.0)
    );
    assert!(
        preview.guarantee.accounting.contains("Lemma D.5"),
        "{}",
        preview.guarantee.accounting
    );
    // Another seed (other data) plans the same draws: nothing read the sample.
    let other = crate::config::menu::plan(&RunConfig {
        seed: 9,
        ..config.clone()
    })
    .unwrap();
    assert_eq!(preview.draws, other.preview.draws);
    // Each phase's two draws are Algorithm 4's: β_t = 12C_t/(λ_t m_t ε), Δ = 6C_t/(λ_t m_t) at ε/2,
    // the law Localized Double Output Perturbation draws at the same λ₁.
    let declared = config.declaration();
    let settings = config.settings();
    let plan = match config.lambda1 {
        Some(_) => unreachable!(),
        None => {
            let lambda = calibrated_lambda(&plan_at(&settings, &declared, None).unwrap().declared);
            plan_at(
                &settings,
                &declared,
                Some(affordable_lambda(&settings, &declared, lambda).unwrap()),
            )
            .unwrap()
        }
    };
    assert_eq!(plan.draws(), preview.draws);
    for (p, draws) in plan.phases.iter().zip(&preview.draws) {
        let beta = 12.0 * p.clip / (p.lambda * p.m as f64 * config.epsilon);
        match draws.noise {
            NoiseShape::L2Laplace { scale, .. } => {
                assert!((scale - beta).abs() <= 1e-12 * beta, "{scale} vs {beta}");
                assert!((scale - draws.sensitivity / (config.epsilon / 2.0)).abs() <= 1e-12 * beta);
            }
            _ => panic!("ℓ2-Laplace"),
        }
        assert_eq!(draws.count, 2);
    }
    // The run fits the allowance, with λ₁ lowered from the localisation's (utility only).
    assert!(lemma_work(&plan) <= WORK_ALLOWANCE);
    assert!(plan.phases[0].lambda < calibrated_lambda(&plan.declared));
}

#[test]
fn a_non_polyhedral_loss_is_refused_at_the_loss_and_a_costly_lambda_at_its_control() {
    let config = picked();
    let smooth = RunConfig {
        loss: Glm::Logistic,
        ..config.clone()
    };
    let e = crate::config::menu::plan(&smooth).err().expect("refused");
    assert_eq!(e.field(), Some("loss"), "{e}");
    assert!(e.to_string().contains("absolute value or hinge"), "{e}");
    let hinge = RunConfig {
        loss: Glm::Hinge,
        ..config.clone()
    };
    crate::config::menu::plan(&hinge).unwrap();
    let costly = RunConfig {
        lambda1: Some(1.0),
        ..config
    };
    let e = crate::config::menu::plan(&costly).err().expect("refused");
    assert_eq!(e.field(), Some("lambda1"), "{e}");
    assert!(e.to_string().contains("Lemma D.5"), "{e}");
}
