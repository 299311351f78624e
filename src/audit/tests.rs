//! Unit tests of the engine's statistics and of the targets' input checks; the audits
//! themselves are slow and run in tests/algorithms/privacy_audit.rs.

use super::*;
use crate::config::{DomainChoice, RunConfig};
use crate::noise::Gaussian;
use crate::privacy::calibration::GaussianMethod;
use crate::privacy::{ApproxDp, Relation};
use crate::rng::{Stream, seeded};
use crate::solver::SolverKind;

#[test]
fn identical_samples_give_no_evidence() {
    let mut rng = seeded(1, Stream::Audit);
    let g = Gaussian::new(1.0).unwrap();
    let a: Vec<f64> = (0..2000).map(|_| g.sample(&mut rng)).collect();
    let claim = ApproxDp::new(0.1, 0.0, Relation::ReplaceOne).unwrap();
    let r = audit_samples(&a, &a, claim, 1e-3).unwrap();
    assert_eq!(r.epsilon_lower, 0.0);
    assert!(!r.violation);
}

#[test]
fn disjoint_samples_give_a_large_bound() {
    // All of D's runs above all of D′'s: with 500 runs per half, CP gives p̲ ≈ 0.986 and
    // p̄ ≈ 0.0152 at α/2 = 5e-4, so ε̂ ≈ ln(65) ≈ 4.2.
    let a: Vec<f64> = (0..1000).map(|i| 10.0 + i as f64).collect();
    let b: Vec<f64> = (0..1000).map(|i| -(i as f64)).collect();
    let claim = ApproxDp::new(1.0, 0.0, Relation::ReplaceOne).unwrap();
    let r = audit_samples(&a, &b, claim, 1e-3).unwrap();
    assert!(r.violation && r.epsilon_lower > 4.0, "{r:?}");
}

#[test]
fn invalid_audits_are_refused() {
    let claim = ApproxDp::new(1.0, 0.0, Relation::ReplaceOne).unwrap();
    assert!(audit_samples(&[0.0; 30], &[0.0; 31], claim, 1e-3).is_err());
    assert!(audit_samples(&[0.0; 10], &[0.0; 10], claim, 1e-3).is_err());
    assert!(audit_samples(&[0.0; 30], &[0.0; 30], claim, 0.0).is_err());
    assert!(audit_samples(&[f64::NAN; 30], &[0.0; 30], claim, 0.1).is_err());
    assert!(LaplaceMeanTarget::new(0, 1.0, 1.0, 1, Bug::None).is_err());
    assert!(LaplaceMeanTarget::new(10, 1.0, 1.0, 1, Bug::CertificateSkipped).is_err());
    assert!(dp_svrg_target(base_config(10, 1.0, 1e-5), Bug::NoiseHalved).is_err());
    assert!(ObjectivePerturbationTarget::new(10, 1.0, Bug::ClippingSkipped).is_err());
    assert!(certified_release_target(base_config(10, 1.0, 0.0), Bug::NoiseHalved).is_err());
    assert!(private_sco_target(base_config(10, 1.0, 1e-5), Bug::CertificateSkipped).is_err());
    // Below the page's n ≥ 10: refused by the config's own check, at `n`.
    let few = base_config(2, 1.0, 1e-5);
    assert_eq!(dp_gd_target(few).err().unwrap().field(), Some("n"));
    assert!(OutputPerturbationTarget::new(10, 1.0, 0.0, SolverKind::Gd, Bug::NoiseHalved).is_err());
    assert!(OutputPerturbationTarget::new(1, 1.0, 0.0, SolverKind::Gd, Bug::None).is_err());
    assert!(
        GaussianMeanTarget::new(10, 1.0, 2.0, 1e-5, GaussianMethod::Classical, Bug::None).is_err()
    );
}

/// The whole-algorithm targets of tests/algorithms/privacy_audit.rs and tests/algorithms/output_perturbation.rs, each
/// with the configuration it runs.
fn family_targets() -> Vec<(&'static str, Box<dyn Auditable>, RunConfig)> {
    let family = |name, t: FamilyTarget| {
        let config = t.config().clone();
        (name, Box::new(t) as Box<dyn Auditable>, config)
    };
    let with = |n, batch, steps, leak| RunConfig {
        batch,
        steps,
        leak,
        ..base_config(n, 1.0, 1e-5)
    };
    let op = ObjectivePerturbationTarget::new(10, 1.0, Bug::NoiseHalved).unwrap();
    let op_config = op.family().config().clone();
    let out =
        OutputPerturbationTarget::new(100, 1.0, 1e-5, SolverKind::Gd, Bug::CertificateSkipped)
            .unwrap();
    let out_config = out.family().config().clone();
    let l1 = RunConfig {
        domain: DomainChoice::L1Ball,
        ..with(10, 10, 3, false)
    };
    let picked = |kind, config| crate::config::menu::pick(&config, kind).0;
    let regularised = picked(
        crate::config::AlgorithmKind::RegularisedOutputPerturbation,
        base_config(100, 1.0, 0.0),
    );
    let byoa = picked(
        crate::config::AlgorithmKind::ByoaPhased,
        base_config(100, 1.0, 1e-5),
    );
    let sco = picked(
        crate::config::AlgorithmKind::PrivateSco,
        base_config(100, 1.0, 1e-5),
    );
    vec![
        family(
            "Algorithm 6",
            certified_release_target(regularised, Bug::None).unwrap(),
        ),
        family(
            "phased BYOA, unclipped",
            certified_release_target(byoa, Bug::ClippingSkipped).unwrap(),
        ),
        family("Algorithm 5", private_sco_target(sco, Bug::None).unwrap()),
        family("DP-GD", dp_gd_target(with(20, 20, 3, false)).unwrap()),
        family("DP-GD leak", dp_gd_target(with(20, 20, 3, true)).unwrap()),
        family("DP-SGD", dp_sgd_target(with(20, 2, 20, false)).unwrap()),
        family("DP-SGD leak", dp_sgd_target(with(10, 5, 1, true)).unwrap()),
        family(
            "DP-SVRG unclipped",
            dp_svrg_target(with(10, 5, 1, false), Bug::ClippingSkipped).unwrap(),
        ),
        family(
            "DP-SVRG++ leak",
            svrg_bb_target(with(10, 5, 2, true)).unwrap(),
        ),
        family("DP-AccMD ℓ1", dp_accmd_target(l1).unwrap()),
        family("grid", grid_target(100, 1.0).unwrap()),
        family(
            "output perturbation",
            output_perturbation_target(base_config(100, 1.0, 0.0)).unwrap(),
        ),
        (
            "objective perturbation, noise halved",
            Box::new(op),
            op_config,
        ),
        (
            "output perturbation, certificate skipped",
            Box::new(out),
            out_config,
        ),
    ]
}

#[test]
fn an_audits_claim_is_the_plans_guarantee() {
    // An audit tests the promise the page shows, computed once by the family's
    // plan, not a statement the target makes up from its arguments. The plan's statement is
    // not always the config's (ε, δ, relation): DP-SGD's accountant states the ε it reaches.
    let mut rng = seeded(2, Stream::Audit);
    for (name, mut target, config) in family_targets() {
        let planned = crate::config::menu::plan(&config).unwrap();
        let g = &planned.preview.guarantee;
        let claim = target.claim();
        assert_eq!(
            (claim.epsilon, claim.delta, claim.relation),
            (g.epsilon, g.delta, g.relation),
            "{name}"
        );
        // And the target runs (Planned::build refuses a run whose promise differs from the plan's).
        for side in [Side::D, Side::DPrime] {
            let x = target.run(side, &mut rng).unwrap();
            assert!(x.is_finite(), "{name}: {x}");
        }
    }
}
