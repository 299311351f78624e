//! In a seeded run, every compared algorithm draws its noise from its own
//! stream (seed, algorithm, repeat, draw), so no two releases of one run carry proportional noise;
//! and every statement of the run's composed guarantee carries the seeded caveat.
#![cfg(not(target_arch = "wasm32"))]

use dp_playground::config::menu;
use dp_playground::config::{AlgorithmKind, RunConfig};
use dp_playground::session::{Lab, export, publish};

/// Output perturbation (Chaudhuri et al. 2011; Lowy & Razaviyayn 2021, Algorithm 1) and BYOA (Zhang et al. 2022
/// Algorithm 1) both release a certified solver's point plus one Gaussian vector: the point does
/// not depend on the noise stream, so across repeats a release moves by its noise alone.
fn compared(repeats: usize) -> RunConfig {
    let base = RunConfig {
        n: 300,
        d: 10,
        l2: 0.1,
        ..RunConfig::default()
    };
    let mut config = menu::pick(&base, AlgorithmKind::OutputPerturbation).0;
    config.compare = vec![AlgorithmKind::Byoa];
    config.repeats = repeats;
    config
}

/// The releases of a run to its end: `[algorithm][repeat]`.
fn releases(config: RunConfig) -> Vec<Vec<Vec<f64>>> {
    let mut lab = Lab::new(config.clone(), None).unwrap();
    let record = export::run_to_end(&mut lab);
    let mut out = vec![vec![Vec::new(); config.repeats]; 1 + config.compare.len()];
    for (a, r, release) in record.releases() {
        out[a][r] = release.w().to_vec();
    }
    out
}

fn minus(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(x, y)| x - y).collect()
}

fn cosine(a: &[f64], b: &[f64]) -> f64 {
    let dot = |u: &[f64], v: &[f64]| u.iter().zip(v).map(|(x, y)| x * y).sum::<f64>();
    dot(a, b) / (dot(a, a) * dot(b, b)).sqrt()
}

/// The neighbouring-style attack: on main, repeat r of both algorithms drew
/// the same Gaussian vector g_r (scaled by each one's σ), so the moves between two repeats,
/// w_A(r) − w_A(0) = σ_A (g_r − g_0) and w_B(r) − w_B(0) = σ_B (g_r − g_0), were parallel
/// (cosine 1 to rounding) and w_A − (σ_A/σ_B) w_B was the same point in every repeat: the noise
/// cancelled. With one stream per algorithm they are independent d = 10 Gaussian directions: a
/// cosine above 0.9 in absolute value has probability below 10⁻³ for each pair, and the seed is
/// fixed.
#[test]
fn compared_algorithms_at_one_seed_draw_independent_noise() {
    let w = releases(compared(4));
    for r in 1..4 {
        let (a, b) = (minus(&w[0][r], &w[0][0]), minus(&w[1][r], &w[1][0]));
        assert!(a.iter().chain(&b).all(|v| v.is_finite()));
        assert!(a.iter().any(|&v| v != 0.0) && b.iter().any(|&v| v != 0.0));
        let c = cosine(&a, &b);
        assert!(
            c.abs() < 0.9,
            "repeat {r}: the two algorithms' noise moved in parallel (cosine {c})"
        );
    }
}

/// The main algorithm keeps the stream it has alone (a link made before the fix reproduces its
/// run), a compared algorithm's stream follows its key, not its place in the compare list, and
/// the same seed still repeats bit for bit.
#[test]
fn streams_follow_the_algorithm_and_the_seed() {
    let with = releases(compared(2));
    let alone = releases(RunConfig {
        compare: Vec::new(),
        ..compared(2)
    });
    assert_eq!(with[0], alone[0], "the main algorithm's noise changed");
    let mut two = compared(2);
    two.compare = vec![AlgorithmKind::NoisyGd, AlgorithmKind::Byoa];
    let moved = releases(two);
    assert_eq!(
        moved[2], with[1],
        "BYOA's noise followed its place in the list"
    );
    assert_eq!(releases(compared(2)), with, "a seeded run did not repeat");
}

/// The seeded caveat is in the composed guarantee (the page's composed line and the compare
/// table's total read it from there) and in the private export's `composed`; an unseeded run
/// drops it.
#[test]
fn every_composed_statement_of_a_seeded_run_carries_the_seeded_caveat() {
    let seeded = compared(2);
    let c = publish::compose_run(&seeded).unwrap();
    assert_eq!(c.seeded, Some(publish::SEEDED_TOTAL));
    assert!(publish::SEEDED_TOTAL.contains("not a private release"));
    let unseeded = RunConfig {
        unseeded_noise: true,
        ..seeded.clone()
    };
    assert_eq!(publish::compose_run(&unseeded).unwrap().seeded, None);
    // One seeded run among unseeded ones is enough.
    let runs = publish::compose_runs(&[unseeded.clone(), seeded.clone()]).unwrap();
    assert_eq!(runs.seeded, Some(publish::SEEDED_TOTAL));
    let mut lab = Lab::new(seeded, None).unwrap();
    let record = export::run_to_end(&mut lab);
    let json: serde_json::Value =
        serde_json::from_str(&export::run_json(&lab, &record).unwrap()).unwrap();
    assert_eq!(
        json["private"]["composed"]["seeded"],
        serde_json::json!(publish::SEEDED_TOTAL),
        "{}",
        json["private"]["composed"]
    );
}

/// Every algorithm of the menu draws a compared run's noise from a stream of its own (the keys'
/// hashes differ, so the generators do), never the main algorithm's (crates/core/src/rng.rs,
/// `seeded_algorithm`; its unit test checks the same on a few keys).
#[test]
fn every_menu_key_has_its_own_compared_stream() {
    use dp_playground::rng::{Stream, seeded_algorithm, seeded_draw};
    use rand::Rng;
    let keys: Vec<String> = AlgorithmKind::ALL.iter().map(|k| k.key()).collect();
    let first = |key: &str| seeded_algorithm(7, Stream::Noise, key, 0, 0).next_u64();
    let firsts: Vec<u64> = keys.iter().map(|k| first(k)).collect();
    for (i, a) in firsts.iter().enumerate() {
        assert!(
            !firsts[..i].contains(a),
            "{} draws another key's stream",
            keys[i]
        );
        assert_ne!(
            *a,
            seeded_draw(7, Stream::Noise, 0, 0).next_u64(),
            "{}",
            keys[i]
        );
        assert_ne!(
            *a,
            seeded_draw(7, Stream::Noise, 0, 1).next_u64(),
            "{}",
            keys[i]
        );
    }
    assert!(keys.len() > 10, "{keys:?}");
}
