//! Reference values and golden sampler bits for the privacy layer, checked natively
//! (`crates/core/tests/base/privacy_*.rs`) and in the browsers (`crates/wasm/tests/web/web_privacy.rs`).

use dp_core::noise::{ExponentialMechanism, Gaussian, L2Laplace, Laplace, gumbel_max};
use dp_core::privacy::calibration::{analytic_gaussian_sigma, gaussian_delta, zwb_gaussian_sigma};
use dp_core::privacy::rdp::{dpsgd_epsilon, dpsgd_noise_multiplier};
use dp_core::rng::{Stream, seeded};
use serde_json::Value;

/// Independent reference values (dp_accounting / mpmath), with their provenance inside.
pub const REFERENCE: &str = include_str!("../../../../tests/data/privacy_reference.json");
/// Golden sampler outputs (f64 bit patterns), produced natively by `print_golden` below.
pub const GOLDEN: &str = include_str!("../../../../tests/data/sampler_golden.json");

fn parse(text: &str) -> Value {
    serde_json::from_str(text).expect("the committed JSON parses")
}

fn f(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} is a number in {v}"))
}

fn rel(a: f64, b: f64) -> f64 {
    (a / b - 1.0).abs()
}

/// Every row of a reference block, with the block's stated relative tolerance.
fn rows(block: &str) -> (Vec<Value>, f64) {
    let r = parse(REFERENCE);
    let b = &r[block];
    (
        b["rows"].as_array().expect("rows").clone(),
        f(b, "tolerance_relative"),
    )
}

/// Analytic Gaussian σ against dp_accounting's `get_sigma_gaussian` (tolerance 1e-9: both sides
/// solve the same exact profile to ~1e-15, the slack covers erfc/logcdf differences).
pub fn check_analytic_gaussian() {
    let (rows, tol) = rows("analytic_gaussian");
    assert!(rows.len() >= 4);
    for row in rows {
        let s =
            analytic_gaussian_sigma(f(&row, "sensitivity"), f(&row, "epsilon"), f(&row, "delta"))
                .unwrap();
        assert!(rel(s, f(&row, "sigma")) <= tol, "{row}: {s}");
    }
}

/// ZWB+19 σ against a 50-digit evaluation of the closed form (1e-12), and our exact profile at
/// that σ against dp_accounting's (1e-6), which must be ≤ δ (ZWB is valid).
pub fn check_zwb_gaussian() {
    let r = parse(REFERENCE);
    let dtol = f(&r["zwb_gaussian"], "exact_delta_tolerance_relative");
    let (rows, tol) = rows("zwb_gaussian");
    for row in rows {
        let (sens, eps, delta) = (f(&row, "sensitivity"), f(&row, "epsilon"), f(&row, "delta"));
        let s = zwb_gaussian_sigma(sens, eps, delta).unwrap();
        assert!(rel(s, f(&row, "sigma")) <= tol, "{row}: {s}");
        let d = gaussian_delta(eps, s, sens).unwrap();
        assert!(
            rel(d, f(&row, "exact_delta_at_sigma")) <= dtol,
            "{row}: δ {d}"
        );
        assert!(d <= delta);
    }
}

/// DP-SGD ε from our RDP accountant against dp_accounting's `RdpAccountant` at the same orders
/// (1e-6 relative: the same integer-order sums, ours with a log1p refinement). Our ε must never be
/// below dp_accounting's default-order ε by more than rounding (fractional orders can only help
/// it), and PLD is printed beside it as a second opinion.
pub fn check_dpsgd_rdp() {
    let (rows, tol) = rows("dpsgd_rdp");
    assert!(rows.len() >= 4);
    for row in rows {
        let e = dpsgd_epsilon(
            f(&row, "q"),
            f(&row, "noise_multiplier"),
            row["steps"].as_u64().expect("steps"),
            f(&row, "delta"),
        )
        .unwrap();
        assert!(rel(e, f(&row, "epsilon")) <= tol, "{row}: {e}");
        assert!(e >= f(&row, "epsilon_default_orders") * (1.0 - 1e-9));
        assert!(e >= f(&row, "epsilon_pld") * (1.0 - 1e-3));
    }
}

/// Noise multiplier for a target ε against dp_accounting's `calibrate_dp_mechanism` (both
/// bisect to ≤ 1e-9 relative; tolerance 1e-6), and ours meets the target.
pub fn check_dpsgd_noise_multiplier() {
    let (rows, tol) = rows("dpsgd_noise_multiplier");
    for row in rows {
        let (q, steps, eps, delta) = (
            f(&row, "q"),
            row["steps"].as_u64().expect("steps"),
            f(&row, "epsilon"),
            f(&row, "delta"),
        );
        let z = dpsgd_noise_multiplier(q, steps, eps, delta).unwrap();
        assert!(rel(z, f(&row, "noise_multiplier")) <= tol, "{row}: {z}");
        assert!(dpsgd_epsilon(q, z, steps, delta).unwrap() <= eps);
    }
}

/// The first draws of every sampler from fixed seeds, as f64 bit patterns (hex strings), in a
/// fixed order: these are what must agree bit for bit between native and wasm.
pub fn sampler_draws() -> Vec<(String, Vec<String>)> {
    let bits = |v: &[f64]| v.iter().map(|x| format!("{:016x}", x.to_bits())).collect();
    let mut out = Vec::new();

    let mut rng = seeded(11, Stream::Noise);
    let mut v = vec![0.0; 6];
    Gaussian::new(1.7).unwrap().fill(&mut rng, &mut v);
    out.push(("gaussian sigma=1.7 seed=11".to_string(), bits(&v)));

    let mut rng = seeded(12, Stream::Noise);
    Laplace::new(0.3).unwrap().fill(&mut rng, &mut v);
    out.push(("laplace b=0.3 seed=12".to_string(), bits(&v)));

    let mut rng = seeded(13, Stream::Noise);
    let mut w = vec![0.0; 5];
    let lap = L2Laplace::new(2.0).unwrap();
    lap.fill(&mut rng, &mut w).unwrap();
    let mut all = w.clone();
    lap.fill(&mut rng, &mut w).unwrap();
    all.extend_from_slice(&w);
    out.push((
        "l2_laplace d=5 b=2 seed=13, two draws".to_string(),
        bits(&all),
    ));

    let mut rng = seeded(14, Stream::Noise);
    let em = ExponentialMechanism::new(2.0, 0.5).unwrap();
    let utilities = [0.1, 0.7, -0.2, 0.4, 0.0];
    let picks: Vec<String> = (0..12)
        .map(|_| em.select(&mut rng, &utilities).unwrap().to_string())
        .collect();
    out.push((
        "exponential eps=2 sens=0.5 seed=14, 12 picks".to_string(),
        picks,
    ));

    let mut rng = seeded(15, Stream::Audit);
    let picks: Vec<String> = (0..12)
        .map(|_| {
            gumbel_max(&mut rng, &[1e9, 1e9 + 0.5, 1e9 - 1.0])
                .unwrap()
                .to_string()
        })
        .collect();
    out.push((
        "gumbel_max large scores seed=15, 12 picks".to_string(),
        picks,
    ));
    out
}

/// Compares [`sampler_draws`] with the committed golden file, entry by entry.
pub fn check_golden() {
    let golden = parse(GOLDEN);
    let entries = golden["draws"].as_array().expect("draws");
    let ours = sampler_draws();
    assert_eq!(entries.len(), ours.len());
    for (g, (name, values)) in entries.iter().zip(ours) {
        assert_eq!(g["name"].as_str(), Some(name.as_str()));
        let expected: Vec<String> = g["values"]
            .as_array()
            .expect("values")
            .iter()
            .map(|v| v.as_str().expect("string").to_string())
            .collect();
        assert_eq!(expected, values, "{name}");
    }
}

/// The golden file's content for the current sampler outputs (used once, natively, to write
/// `tests/data/sampler_golden.json`; see `privacy_samplers.rs::print_golden`).
pub fn golden_json() -> String {
    let draws: Vec<Value> = sampler_draws()
        .into_iter()
        .map(|(name, values)| serde_json::json!({ "name": name, "values": values }))
        .collect();
    serde_json::to_string_pretty(&serde_json::json!({
        "note": "First draws of each sampler from fixed seeds (f64 bit patterns in hex, or selected indices), \
                 written natively by `cargo test -p dp-playground-core --test base privacy_samplers::print_golden -- --ignored --nocapture`. \
                 The native and the browser tests both compare against this file: same seed, same bits.",
        "draws": draws
    }))
    .expect("serialisable")
}
