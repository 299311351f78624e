//! Browser tests of the privacy layer (wasm-bindgen-test, headless Chromium and Firefox):
//! the same reference values and golden sampler bits as the native tests (shared through
//! `tests/common`), a small-N audit, and the OS-keyed generator.
#![cfg(target_arch = "wasm32")]

use crate::common;

use dp_playground::audit::{Bug, GaussianMeanTarget, LaplaceMeanTarget, audit};
use dp_playground::privacy::calibration::GaussianMethod;
use dp_playground::rng::{Stream, from_os, seeded};
use rand::Rng;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn samplers_give_the_native_golden_bits() {
    common::check_golden();
}

#[wasm_bindgen_test]
fn analytic_and_zwb_sigma_match_the_references() {
    common::check_analytic_gaussian();
    common::check_zwb_gaussian();
}

#[wasm_bindgen_test]
fn dpsgd_accountant_matches_the_references() {
    common::check_dpsgd_rdp();
    common::check_dpsgd_noise_multiplier();
}

#[wasm_bindgen_test]
fn small_audit_passes_laplace_and_catches_halved_scale_and_skipped_clipping() {
    // 2·10⁴ runs per side: natively the correct Laplace (ε = 1) measures ε̂ ≈ 0.94 and the
    // halved scale ≈ 1.85 at this size; skipped clipping ε̂ ≫ 1 from 10⁴ runs.
    let mut rng = seeded(21, Stream::Audit);
    let mut ok = LaplaceMeanTarget::new(100, 1.0, 1.0, 1, Bug::None).unwrap();
    assert!(!audit(&mut ok, 20_000, 1e-3, &mut rng).unwrap().violation);
    let mut bad = LaplaceMeanTarget::new(100, 1.0, 1.0, 1, Bug::NoiseHalved).unwrap();
    assert!(audit(&mut bad, 20_000, 1e-3, &mut rng).unwrap().violation);
    let mut unclipped = GaussianMeanTarget::new(
        100,
        1.0,
        1.0,
        1e-5,
        GaussianMethod::Analytic,
        Bug::ClippingSkipped,
    )
    .unwrap();
    assert!(
        audit(&mut unclipped, 5_000, 1e-3, &mut rng)
            .unwrap()
            .violation
    );
}

#[wasm_bindgen_test]
fn unseeded_mode_draws_from_the_browser_entropy_source() {
    let (mut a, mut b) = (from_os().unwrap(), from_os().unwrap());
    assert_ne!(a.next_u64(), b.next_u64());
}
