//! The pure-DP rates of Lowy 2026 ([`crate::theory::heavy_tails`]) at a localized schedule's
//! declared numbers: the families' own dashed bound (Theorem 3.1's upper bound). The reference
//! curves a sweep draws beside its measurements are `session::heavy_rates`' (a sweep builds whole
//! runs).

use crate::algo::kinds::AlgorithmKind;
use crate::theory::heavy_tails::Rates;

/// ln(1/δ) of the failure probability δ = 0.1 every heavy-tail curve is drawn at (Theorem 4.1
/// needs δ < 1/5).
pub fn log_inv_delta() -> f64 {
    libm::log(10.0)
}

/// Whether `kind` is a heavy-tail family (its sweeps get the reference curves).
pub fn is_heavy_tail(kind: AlgorithmKind) -> bool {
    matches!(
        kind,
        AlgorithmKind::LocalisedDoubleOutputPerturbation
            | AlgorithmKind::PureClippedGd
            | AlgorithmKind::OutputPerturbationLipschitzExtension
    )
}

/// The rates of a localized schedule's declared numbers (G₁ bounded by G₂: the upper bound does
/// not read it), at δ = 0.1 ([`log_inv_delta`]): the families' dashed bound.
pub fn schedule_rates(declared: &super::localised::Declared) -> Rates {
    Rates {
        n: declared.n as f64,
        d: declared.d as f64,
        epsilon: declared.epsilon,
        k: declared.k,
        g1: declared.moment_2,
        g2: declared.moment_2,
        gk: declared.moment_k,
        diameter: declared.diameter,
        log_inv_delta: log_inv_delta(),
    }
}
