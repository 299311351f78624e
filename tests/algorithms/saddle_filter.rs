//! González, Guzmán & Paquette 2024's Algorithm 3 stopped by its privacy filter from the page's
//! settings: a gradient budget U typed well above Theorem 3.14's makes each
//! draw dearer (α = 2U/n), and the filter, not the budget, ends the run, within the stated ε; at
//! the theorem's U the budget ends it. The guarantee is the same whatever U is, and the theorem's
//! bound is drawn only at its own U.

use dp_playground::algo::family::ProblemKind;
use dp_playground::config::menu;
use dp_playground::config::{AlgorithmKind, Control, GameChoice, RunConfig};
use dp_playground::session::Lab;
use dp_playground::session::game_views::GameViews;

/// Rock–paper–scissors at d = 3, n = 20 000 (large enough for Theorem 3.14: U ≈ 30.4), with
/// Algorithm 3 picked as the page's menu picks it and the budget U typed or blank; n is set
/// back to 20 000 after the pick (which raises it to where Theorem 3.14's U reaches 64).
fn algorithm_3(budget_u: Option<f64>) -> RunConfig {
    let raw = RunConfig {
        problem: ProblemKind::Saddle,
        game: GameChoice::RockPaperScissors,
        d: 3,
        n: 20_000,
        ..RunConfig::default()
    };
    RunConfig {
        budget_u,
        n: raw.n,
        ..menu::pick(&raw, AlgorithmKind::BiasReducedSmd).0
    }
}

/// What a run to its release shows: the stop sentence, the ledger's caveats, whether a theory
/// curve is drawn, the ε the release states and the ε its filter spent (the privacy plot's last).
struct Ended {
    stopped: String,
    caveats: Vec<String>,
    theory: bool,
    stated: f64,
    spent: f64,
}

fn run(config: RunConfig) -> Ended {
    let mut lab = Lab::new(config, None).expect("lab");
    let theory = lab.theories()[0].as_ref().is_some_and(|c| !c.x.is_empty());
    let (mut views, mut release, mut spent) = (Vec::<GameViews>::new(), None, f64::NAN);
    while !lab.is_done() {
        for lane in lab.advance(usize::MAX, || true) {
            views.push(lane.batch.views.expect("a game's slice has views"));
            spent = lane.batch.epsilon_spent.last().copied().unwrap_or(spent);
            release = lane.batch.release.or(release);
        }
    }
    let release = release.expect("a release");
    Ended {
        stopped: views
            .iter()
            .rev()
            .find_map(|v| v.stopped.clone())
            .expect("why it stopped"),
        caveats: release.ledger.caveats,
        theory,
        stated: release.ledger.guarantee.epsilon,
        spent,
    }
}

/// Theorem 3.14's U for `config`, as the page shows it in the blank field.
fn theorem_budget(config: &RunConfig) -> f64 {
    let preview = menu::plan(config).unwrap().preview;
    let (key, u) = preview.defaults[0];
    assert_eq!(key, Control::BudgetU);
    u
}

#[test]
fn at_theorem_3_14s_budget_the_budget_ends_the_run_and_the_bound_is_drawn() {
    let config = algorithm_3(None);
    let u = theorem_budget(&config);
    assert!((u - 30.42).abs() < 0.01, "{u}");
    let ended = run(config);
    println!("{}", ended.stopped);
    assert!(
        ended.stopped.contains("the run spent its budget"),
        "{}",
        ended.stopped
    );
    assert!(ended.stopped.contains("the privacy filter did not bind"));
    assert!(ended.theory, "Theorem 3.14's bound is drawn at its own U");
    assert!(!ended.caveats.iter().any(|c| c.contains("typed")));
    assert!(
        ended.spent <= ended.stated,
        "{} > {}",
        ended.spent,
        ended.stated
    );
}

#[test]
fn a_budget_ten_times_the_theorems_is_stopped_by_the_privacy_filter_within_epsilon() {
    let blank = algorithm_3(None);
    let typed = algorithm_3(Some(10.0 * theorem_budget(&blank)));
    typed.validate().unwrap();
    // The guarantee is computed from the config alone and does not move with U.
    let (before, after) = (
        menu::plan(&blank).unwrap().preview.guarantee,
        menu::plan(&typed).unwrap().preview.guarantee,
    );
    assert_eq!(
        (before.epsilon, before.delta, before.relation),
        (after.epsilon, after.delta, after.relation)
    );
    let ended = run(typed);
    println!("{}", ended.stopped);
    assert!(
        ended
            .stopped
            .contains("the privacy filter stopped the run before step"),
        "{}",
        ended.stopped
    );
    assert!(ended.stopped.contains("above the budget ε = 1"));
    assert!(
        ended.spent <= ended.stated,
        "{} > {}",
        ended.spent,
        ended.stated
    );
    assert!(
        ended.spent > 0.5,
        "the filter bound near ε: {}",
        ended.spent
    );
    // Off the theorem's U: no bound drawn, and the ledger says why.
    assert!(!ended.theory, "no theory curve off Theorem 3.14's U");
    assert!(
        ended
            .caveats
            .iter()
            .any(|c| c.contains("typed, not Theorem 3.14's U = 30.4")
                && c.contains("does not apply")),
        "{:#?}",
        ended.caveats
    );
}

#[test]
fn a_budget_the_records_cannot_last_for_is_refused_at_its_field() {
    // U ≤ n/2: each step reads ⌈2^N/α⌉ fresh records with α ≤ 1.
    let error = menu::plan(&algorithm_3(Some(10_001.0))).err().unwrap();
    assert_eq!(error.field(), Some("budget_u"));
    assert!(error.to_string().contains("at most n/2 = 10000"), "{error}");
    // U ≥ 4 (Theorem 3.14), refused by the config's validation.
    let error = algorithm_3(Some(3.0)).validate().err().unwrap();
    assert_eq!(error.field(), Some("budget_u"));
    assert!(
        error.to_string().starts_with("gradient budget U"),
        "{error}"
    );
}
