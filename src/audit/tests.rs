//! Unit tests of the engine's statistics and of the targets' input checks; the audits
//! themselves are slow and run in tests/privacy_audit.rs.

use super::*;
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
    assert!(NoisyGdTarget::new(10, 3, 1.0, 1e-5, Bug::NoiseHalved).is_err());
    assert!(LaplaceMeanTarget::new(0, 1.0, 1.0, 1, Bug::None).is_err());
    assert!(LaplaceMeanTarget::new(10, 1.0, 1.0, 1, Bug::CertificateSkipped).is_err());
    assert!(NoisyGdTarget::new(10, 3, 1.0, 1e-5, Bug::CertificateSkipped).is_err());
    assert!(OutputPerturbationTarget::new(10, 1.0, 0.0, SolverKind::Gd, Bug::NoiseHalved).is_err());
    assert!(OutputPerturbationTarget::new(1, 1.0, 0.0, SolverKind::Gd, Bug::None).is_err());
    assert!(
        GaussianMeanTarget::new(10, 1.0, 2.0, 1e-5, GaussianMethod::Classical, Bug::None).is_err()
    );
}
