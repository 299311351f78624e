//! A run publishes only what passed through its noise: for every algorithm of the menu, the
//! point the session hands out (and the export writes) is the run's own release
//! ([`Run::release`](dp_playground::algo::run::Run::release)), a
//! [`Noised`](dp_playground::privacy::release::Noised) made by the run's noise draws, and
//! another noise seed moves it. A NOT PRIVATE demonstration is published as such, never as a
//! `Noised`, and its export says so.
#![cfg(not(target_arch = "wasm32"))]

use dp_playground::algo::registry::{self, FAMILIES};
use dp_playground::algo::run::RunState;
use dp_playground::config::{AlgorithmKind, RunConfig};
use dp_playground::privacy::release::Published;
use dp_playground::rng::{self, Stream};
use dp_playground::session::problem::Posed;
use dp_playground::session::{Lab, Release, Session, export};

/// A small config each family accepts (its own settings picked as the menu picks them).
fn config(kind: AlgorithmKind, noise_draw: u32) -> RunConfig {
    let base = RunConfig {
        // The boosted run splits its records into parts: at n = 400 its candidates stop before
        // their first vertex draw and release the public uniform start. Adversarial training
        // projects x + N(0, σ²) onto the simplex: at n = 400, σ ≈ 2.6 and both seeds land on
        // the same vertex; at n = 50 000, σ ≈ 0.02.
        n: match kind {
            AlgorithmKind::BoostedSmd => 20_000,
            AlgorithmKind::AdversarialTraining => 50_000,
            _ => 400,
        },
        d: 2,
        steps: 40,
        noise_draw,
        ..RunConfig::default()
    };
    registry::pick(&base, kind).0
}

/// The session's release at the end of its run.
fn session_release(config: &RunConfig) -> Release {
    let mut session = Session::new(config.clone()).expect("the family's picked config runs");
    loop {
        let batch = session.advance(usize::MAX, || true);
        if batch.done {
            return batch
                .release
                .expect("a run that is done publishes its release");
        }
    }
}

/// The same run driven directly (the session's main noise stream, repeat 0): what its
/// `release()` says once done.
fn run_release(config: &RunConfig) -> Published {
    let plan = registry::plan(config).expect("the plan");
    let posed = Posed::new(config, None).expect("the problem");
    let noise = rng::seeded_draw(config.seed, Stream::Noise, 0, config.noise_draw);
    let mut run = plan.build(&posed, noise, true).expect("the run");
    assert!(run.release().is_none(), "a release before the run started");
    // Stepped until a step reports the run done, as the session does: the release is due then.
    let mut state = RunState::default();
    while !state.done {
        let step = run.step();
        state.record(step.as_ref().map(|s| &s.report));
    }
    run.release().expect("a finished run releases")
}

#[test]
fn every_family_publishes_its_runs_release_and_the_release_moves_with_the_noise_seed() {
    let mut demonstrations = Vec::new();
    for family in FAMILIES.iter() {
        let kind = family.kind;
        let config = config(kind, 0);
        let published = session_release(&config);
        assert_eq!(
            published.published,
            run_release(&config),
            "{kind:?}: the session published something other than the run's release"
        );
        match &published.published {
            Published::Private(noised) => {
                assert_eq!(published.w(), noised.x(), "{kind:?}");
                // A trail that came up short releases around a public point and says NOT
                // PRIVATE: no family's default run may end that way.
                assert!(
                    published.ledger.is_private(),
                    "{kind:?}: {:?}",
                    published.ledger.leaks
                );
                assert!(published.w().iter().all(|v| v.is_finite()), "{kind:?}");
                let other = session_release(&RunConfig {
                    noise_draw: 1,
                    ..config.clone()
                });
                assert_ne!(
                    (published.w(), published.y()),
                    (other.w(), other.y()),
                    "{kind:?}: two noise seeds released the same point"
                );
            }
            Published::NotPrivate(_) => {
                assert!(!published.ledger.is_private(), "{kind:?}: no NOT PRIVATE");
                demonstrations.push(kind);
            }
        }
    }
    // Only the mirror-descent baseline releases without noise, and it is typed so.
    assert_eq!(demonstrations, vec![AlgorithmKind::SmdBaseline]);
}

#[test]
fn a_demonstration_without_noise_is_marked_not_private_in_the_export() {
    let mut lab = Lab::new(config(AlgorithmKind::SmdBaseline, 0), None).unwrap();
    let record = export::run_to_end(&mut lab);
    let json = export::run_json(&lab, &record).unwrap();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let private = &value["private"];
    assert_eq!(private["composed"]["not_private"], true, "{json}");
    assert_eq!(private["releases"][0]["not_private"], true, "{json}");
}
