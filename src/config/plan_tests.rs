//! The families' plans reached through a whole [`RunConfig`], as the page reaches them
//! (`menu::pick` to meet a family's needs, `menu::plan` to plan it): tests that build a
//! configuration live here, above the algorithms, so that `algo` does not reach up to `config`.

// Tests that once sat in the families' files, by family; each reaches the plan through a config.
mod adversarial_training;
mod boosted;
mod deterministic;
mod em_phases;

use super::menu::{pick, plan};
use super::{GameChoice, MAX_RUN_STEPS, ProblemKind, RunConfig};
use crate::algo::kinds::AlgorithmKind;
use crate::algo::smd::Regime;
use crate::algo::smd::family::regime_of;
use crate::controls::Control;
use crate::data::Tail;
use crate::error::Error;

// Mirror descent on simplices (González, Guzmán & Paquette 2024; `algo::smd::family`).

fn saddle(algorithm: AlgorithmKind) -> RunConfig {
    RunConfig {
        problem: ProblemKind::Saddle,
        d: 3,
        algorithm,
        ..RunConfig::default()
    }
}

#[test]
fn the_regime_follows_the_declared_second_order_constant() {
    let mut c = saddle(AlgorithmKind::PrivateSmd).game_spec().constants();
    assert_eq!(regime_of(&c), Regime::Quadratic);
    c.second_order = 0.5;
    assert_eq!(regime_of(&c), Regime::SecondOrder);
    c.second_order = f64::INFINITY;
    assert_eq!(regime_of(&c), Regime::FirstOrder);
}

/// The ε and n the refusal names (its "raise it to X (or n to Y)").
fn suggested(e: &Error) -> (f64, usize) {
    let text = e.to_string();
    let after = |key: &str| {
        let at = text.find(key).unwrap_or_else(|| panic!("{text}")) + key.len();
        text[at..]
            .split(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == '-'))
            .next()
            .unwrap()
            .to_string()
    };
    (
        after("raise it to ").parse().unwrap(),
        after("or n to ").parse().unwrap(),
    )
}

#[test]
fn a_run_that_could_never_step_is_refused_at_epsilon_with_what_would_let_it() {
    // Rock–paper–scissors (L₀ = L₁ = 1, ℓ = 2 ln 3), δ = 1e-6: Theorem 3.14's smallest
    // budget lets a level-0 batch fit only for nε ≥ √(24 ln 10⁶)·20·τL₀ ≈ 151. At ε = 1e-4
    // and n = 2000 the smallest batch is ⌈1/α⌉ ≈ 1.0e5 records: before this refusal every
    // draw released the uniform start (tests/algorithms/privacy_edges.rs, its ε = 1e-4 corner).
    for (kind, n, epsilon) in [
        (AlgorithmKind::BiasReducedSmd, 2000, 1e-4),
        (AlgorithmKind::BiasReducedSmd, 60, 1.0),
        // Algorithm 4 at its default n: each candidate part has ⌊⌊n/4⌋/7⌋ = 71 records.
        (AlgorithmKind::BoostedSmd, 2000, 1.0),
        (AlgorithmKind::BoostedSmd, 308, 1e-4),
    ] {
        let config = RunConfig {
            n,
            epsilon,
            game: GameChoice::RockPaperScissors,
            ..saddle(kind)
        };
        let e = plan(&config).err().unwrap_or_else(|| panic!("{kind:?}"));
        assert_eq!(e.field(), Some(Control::Epsilon.id()), "{e}");
        let text = e.to_string();
        assert!(text.chars().count() < 300, "{} chars: {text}", text.len());
        assert!(text.contains("uniform start"), "{text}");
        // The ε it names is accepted at this n, and the n it names at this ε.
        let (at_epsilon, at_n) = suggested(&e);
        plan(&RunConfig {
            epsilon: at_epsilon,
            ..config.clone()
        })
        .unwrap_or_else(|e| panic!("{kind:?} at ε = {at_epsilon}: {e}"));
        plan(&RunConfig {
            n: at_n,
            ..config.clone()
        })
        .unwrap_or_else(|e| panic!("{kind:?} at n = {at_n}: {e}"));
        // And just below the ε it names, refused still (the bound is tight to rounding).
        assert!(
            plan(&RunConfig {
                epsilon: at_epsilon * 0.99,
                ..config.clone()
            })
            .is_err(),
            "{kind:?}"
        );
    }
}

#[test]
fn algorithm_1s_steps_are_capped_like_the_configs_steps() {
    // The largest n and ε = 100: preset (7) asks T = n = 10⁶ steps; with 4 repeats the
    // page's rows allow 2.5·10⁵, and the draws (4T for K = 1) follow.
    let config = RunConfig {
        n: 1_000_000,
        epsilon: 100.0,
        repeats: 4,
        ..saddle(AlgorithmKind::PrivateSmd)
    };
    config.validate().unwrap();
    let p = plan(&config).unwrap().preview;
    assert_eq!(p.draws[0].count, 4 * MAX_RUN_STEPS / 4);
    assert!(p.is_private());
}

// The localized heavy-tail families (Lowy 2026; `algo::heavy_tails::family`).

/// Pareto-radial features with tail index α = 3 (G_k finite for k < 3, G₂ = 0.5·√3),
/// logistic loss, picked as the page's menu picks `kind`: how every heavy-tail family is
/// tested.
fn heavy(kind: AlgorithmKind) -> RunConfig {
    let base = RunConfig {
        n: 4000,
        d: 2,
        tail: Tail::ParetoRadial { alpha: 3.0 },
        feature_scale: 0.5,
        feature_bound: 1e3,
        // A small ridge keeps the certified reference F* within its caps on heavy data.
        l2: 0.01,
        moment_k: 2.0,
        delta: 0.0,
        epsilon: 1.0,
        steps: 50,
        ..RunConfig::default()
    };
    pick(&base, kind).0
}

#[test]
fn the_threshold_comes_from_the_declared_moment_never_the_sample() {
    // Two datasets (seeds 1 and 2) of the same declared distribution get the same C_t and the
    // same noise law: the plan never reads the data.
    let config = heavy(AlgorithmKind::LocalisedDoubleOutputPerturbation);
    let other = RunConfig {
        seed: 2,
        ..config.clone()
    };
    let (a, b) = (
        plan(&config).unwrap().preview,
        plan(&other).unwrap().preview,
    );
    assert_eq!(a.draws, b.draws);
    // C₁ = G_2 (m₁ε/d)^(1/2) with G_2 = 0.5·√3 (Pareto α = 3: E ρ² = 3) and m₁ = 2000.
    let c1 = 0.5 * 3f64.sqrt() * (2000.0f64 / 2.0).sqrt();
    assert!(
        (a.lipschitz - c1).abs() < 1e-9 * c1,
        "{} vs {c1}",
        a.lipschitz
    );
}

#[test]
fn bad_heavy_tail_settings_are_refused_at_their_controls() {
    let config = heavy(AlgorithmKind::LocalisedDoubleOutputPerturbation);
    let at = |c: RunConfig| plan(&c).err().and_then(|e| e.field().map(String::from));
    let bad_k = RunConfig {
        moment_k: 1.5,
        ..config.clone()
    };
    assert_eq!(bad_k.validate().unwrap_err().field(), Some("moment_k"));
    let too_many = RunConfig {
        repetitions: 101,
        n: 1000,
        ..config.clone()
    };
    assert_eq!(at(too_many).as_deref(), Some("repetitions"));
    let squared = RunConfig {
        loss: crate::loss::Glm::Squared { label_bound: 1.0 },
        ..config.clone()
    };
    assert_eq!(at(squared).as_deref(), Some("loss"));
    let add_remove = RunConfig {
        relation: crate::privacy::Relation::AddRemove,
        ..config
    };
    assert_eq!(at(add_remove).as_deref(), Some("relation"));
}
