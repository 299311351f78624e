//! Every error a run's settings can raise lands next to a control the page shows.
//! The walk covers every algorithm × problem kind × neighbouring relation, each over the problem's
//! settings (loss × aggregation × domain × ridge × lasso) and a spread of single changes that
//! provoke errors (dimension, pure ε, step counts, batch edges, the pitfall demonstration,
//! compared algorithms, every base solver, calibrations, sparse data, …). Each error's field must
//! be a [`Control`] the page shows, never an algorithm's internal name.
// Native only: the walk runs on every core (rayon, a native dependency).
#![cfg(not(target_arch = "wasm32"))]

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use rayon::prelude::*;

use dp_playground::Error;
use dp_playground::algo::registry;
use dp_playground::config::menu;
use dp_playground::config::{
    AlgorithmKind, Control, DataSource, DomainChoice, GameChoice, ProblemKind, RecordChoice,
    RunConfig, SvrgNoiseChoice,
};
use dp_playground::data::Tail;
use dp_playground::loss::{Glm, Wrap};
use dp_playground::minimax::solvers::SaddleSolverKind;
use dp_playground::privacy::Relation;
use dp_playground::privacy::calibration::GaussianMethod;
use dp_playground::session::{Lab, preview};
use dp_playground::solver::SolverKind;

/// The ids `x` of the page's error lines `<p … id="x-error">`.
fn error_lines_on_the_page() -> Vec<String> {
    let html = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/index.html"))
        .expect("index.html");
    html.split("id=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next()?.strip_suffix("-error"))
        .map(String::from)
        .collect()
}

/// The names the algorithms use for their own settings: none may reach the page as a field.
const INTERNAL_NAMES: [&str; 14] = [
    "epochs",
    "epoch_length",
    "mu",
    "sampling_rate",
    "strong_convexity",
    "smoothness",
    "lipschitz",
    "tolerance",
    "max_iters",
    "alpha",
    "lambda",
    "regularizer",
    "wrap",
    "dimension",
];

const LOSSES: [Glm; 6] = [
    Glm::Logistic,
    Glm::Hinge,
    Glm::SmoothedHinge { gamma: 0.5 },
    Glm::Squared { label_bound: 1.0 },
    Glm::Huber {
        delta: 1.0,
        label_bound: 10.0,
    },
    Glm::Absolute { label_bound: 10.0 },
];
const WRAPS: [Wrap; 3] = [
    Wrap::None,
    Wrap::Tilted { tau: 1.0 },
    Wrap::Adversarial { radius: 0.1 },
];
const DOMAINS: [DomainChoice; 5] = [
    DomainChoice::L2Ball,
    DomainChoice::L1Ball,
    DomainChoice::Box,
    DomainChoice::Simplex,
    DomainChoice::Unconstrained,
];
const MINIMAX_SOLVERS: [SaddleSolverKind; 3] = [
    SaddleSolverKind::Gda,
    SaddleSolverKind::Extragradient,
    SaddleSolverKind::VrExtragradient,
];
const SOLVERS: [SolverKind; 7] = [
    SolverKind::Gd,
    SolverKind::Agd,
    SolverKind::Sgd,
    SolverKind::Svrg,
    SolverKind::Katyusha,
    SolverKind::Subgradient,
    SolverKind::StochasticSubgradient,
];

/// The problem's settings, every pair of them (all pairs of loss, aggregation, domain, ridge
/// and lasso, the others at the value where the most algorithms run): what the algorithms' needs
/// and plans read most. The full product is five times longer for no pair more.
fn problem_settings(base: &RunConfig) -> Vec<RunConfig> {
    let mut out = Vec::new();
    let at = |loss, wrap, domain, l2, l1| RunConfig {
        loss,
        wrap,
        domain,
        l2,
        l1,
        ..base.clone()
    };
    for loss in LOSSES {
        for wrap in WRAPS {
            out.push(at(loss, wrap, DomainChoice::L2Ball, 0.1, 0.0));
        }
        for domain in DOMAINS {
            out.push(at(loss, Wrap::None, domain, 0.1, 0.0));
        }
        for (l2, l1) in RIDGE_AND_LASSO {
            out.push(at(loss, Wrap::None, DomainChoice::L2Ball, l2, l1));
        }
    }
    for domain in DOMAINS {
        for wrap in WRAPS {
            out.push(at(Glm::Logistic, wrap, domain, 0.1, 0.0));
        }
        for (l2, l1) in RIDGE_AND_LASSO {
            out.push(at(Glm::Logistic, Wrap::None, domain, l2, l1));
        }
    }
    for wrap in WRAPS {
        for (l2, l1) in RIDGE_AND_LASSO {
            out.push(at(Glm::Logistic, wrap, DomainChoice::L2Ball, l2, l1));
        }
    }
    out
}

/// Every entry of the page's game menu (`<select id="game">` in index.html), read as the config
/// reads it: the walk covers what a person can pick, and a new entry joins it by itself.
fn games_on_the_page() -> Vec<GameChoice> {
    let html = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/index.html"))
        .expect("index.html");
    let menu = html
        .split("<select id=\"game\"")
        .nth(1)
        .and_then(|rest| rest.split("</select>").next())
        .expect("the game menu");
    menu.split("value=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(|value| {
            serde_json::from_value(serde_json::Value::String(value.into()))
                .unwrap_or_else(|e| panic!("the game menu's {value}: {e}"))
        })
        .collect()
}

/// A saddle config's game settings: every game of the menu and record law, a
/// regularised game, the smallest and a larger d, the edges of the entry bound, a tiny n (the
/// bias-reduced run's smallest budget), and both ends of ε — what the saddle families' plans read.
fn game_settings(base: &RunConfig) -> Vec<RunConfig> {
    let mut out = Vec::new();
    for game in games_on_the_page() {
        for records in [RecordChoice::Bounded, RecordChoice::Heavy] {
            for (d, mu_x) in [(3, 0.0), (5, 0.5), (1, 0.0)] {
                out.push(RunConfig {
                    game,
                    records,
                    d,
                    mu_x,
                    ..base.clone()
                });
            }
        }
        for (n, entry_bound, epsilon) in [
            (10, 0.5, 1e-4),
            (10, 1e3, 100.0),
            (200, 1e-3, 1.0),
            (5000, 1.0, 1e-4),
        ] {
            out.push(RunConfig {
                game,
                n,
                entry_bound,
                epsilon,
                records: RecordChoice::Heavy,
                ..base.clone()
            });
        }
    }
    out
}

/// No ridge, a tiny one and a plain one, each with and without a lasso.
const RIDGE_AND_LASSO: [(f64, f64); 6] = [
    (0.0, 0.0),
    (0.0, 0.1),
    (1e-6, 0.0),
    (1e-6, 0.1),
    (0.1, 0.0),
    (0.1, 0.1),
];

/// One change at a time from `base`, each near the edge of what some algorithm accepts.
fn single_changes(base: &RunConfig) -> Vec<RunConfig> {
    let with = |f: &dyn Fn(&mut RunConfig)| {
        let mut c = base.clone();
        f(&mut c);
        c
    };
    let mut out = vec![
        with(&|c| c.d = 1),
        with(&|c| c.d = 5),
        with(&|c| c.delta = 0.0),
        with(&|c| c.steps = 1),
        with(&|c| c.steps = 100_000),
        with(&|c| c.batch = c.n),
        with(&|c| c.batch = c.n + 1),
        with(&|c| c.leak = true),
        with(&|c| c.epsilon = 1e-4),
        with(&|c| c.epsilon = 100.0),
        with(&|c| {
            c.epsilon = 10.0;
            c.gaussian = GaussianMethod::Classical
        }),
        with(&|c| c.svrg_noise = SvrgNoiseChoice::AsPrinted),
        with(&|c| c.gd_output = dp_playground::algo::noisy_gd::Output::RandomIterate),
        with(&|c| {
            c.data = DataSource::Sparse;
            c.d = 500
        }),
        with(&|c| {
            c.data = DataSource::Sparse;
            c.loss = Glm::Squared { label_bound: 1.0 }
        }),
        with(&|c| c.grid_resolution = 400),
        // The heavy-tail families' settings (Lowy 2026): k, J, heavy tails and the outlier law.
        with(&|c| c.moment_k = 1.5),
        with(&|c| c.moment_k = 100.0),
        with(&|c| c.repetitions = 101),
        with(&|c| c.repetitions = 0),
        with(&|c| {
            c.tail = Tail::ParetoRadial { alpha: 2.5 };
            c.moment_k = 3.0;
            c.feature_bound = 1e6
        }),
        with(&|c| c.tail = Tail::RareOutlier { p: 0.01, a: 50.0 }),
        with(&|c| c.tail = Tail::RareOutlier { p: 2.0, a: 50.0 }),
        with(&|c| c.lambda1 = Some(0.0)),
        with(&|c| c.lambda1 = Some(1e6)),
        // Algorithm 3's gradient budget U at both ends (U ≤ n/2 is the plan's, at its field).
        with(&|c| c.budget_u = Some(4.0)),
        with(&|c| c.budget_u = Some(1e9)),
        with(&|c| c.clip = Some(1e-9)),
        with(&|c| c.step_size = Some(1e6)),
        with(&|c| {
            c.n = 10;
            c.batch = 10
        }),
        with(&|c| c.compare = vec![c.algorithm]),
        with(&|c| c.compare = AlgorithmKind::ALL[..4].to_vec()),
    ];
    for other in AlgorithmKind::ALL {
        out.push(with(&|c| c.compare = vec![other]));
    }
    // A game's settings where the algorithm reads a minimax solver (Zhang et al.'s
    // minimax families): every solver, each game with no, one and both moduli, tiny and large
    // records, the iteration-cap pitfall, ε at both ends.
    if base.problem == ProblemKind::Saddle
        && registry::family(base.algorithm).takes(Control::MinimaxSolver)
    {
        for solver in MINIMAX_SOLVERS {
            for (game, d) in [
                (GameChoice::RockPaperScissors, 3),
                (GameChoice::RandomMatrix, 4),
                (GameChoice::BallGame, 2),
            ] {
                for (mu_x, mu_y) in [(0.0, 0.0), (0.1, 0.0), (0.0, 0.1), (0.1, 0.1), (1e-9, 1e-9)] {
                    out.push(with(&|c| {
                        c.minimax_solver = solver;
                        c.game = game;
                        c.d = d;
                        c.mu_x = mu_x;
                        c.mu_y = mu_y;
                    }));
                }
            }
        }
        out.push(with(&|c| {
            c.n = 10;
            c.batch = 10
        }));
        out.push(with(&|c| c.entry_bound = 1e3));
        out.push(with(&|c| {
            c.leak = true;
            c.steps = 1
        }));
        out.push(with(&|c| {
            c.records = RecordChoice::Heavy;
            c.entry_bound = 1e-3
        }));
    }
    // Lowy 2026's Algorithm 3 where the algorithm reads `heavy_solver`: refused at that control
    // where Prop 2.9's iteration bound exceeds the work allowance.
    if registry::family(base.algorithm).takes(Control::HeavySolver) {
        out.push(with(&|c| {
            c.heavy_solver = dp_playground::algo::heavy_tails::HeavySolver::AdaptiveSubgradient
        }));
    }
    // Every base solver where the algorithm reads one (the others ignore the setting).
    let solvers = if registry::family(base.algorithm).takes(Control::Solver) {
        &SOLVERS[..]
    } else {
        &[SolverKind::Agd][..]
    };
    for &solver in solvers {
        for loss in [Glm::Logistic, Glm::Hinge] {
            for l2 in [1e-6, 0.1] {
                for l1 in [0.0, 0.1] {
                    out.push(with(&|c| {
                        c.solver = solver;
                        c.loss = loss;
                        c.l2 = l2;
                        c.l1 = l1;
                        c.epsilon = 1e-4;
                    }));
                }
            }
        }
    }
    out
}

/// Every config of the walk, for one algorithm, once each: the problem's settings from the
/// defaults, and the single changes from the defaults and from the algorithm as picked from the
/// menu.
fn walk(algorithm: AlgorithmKind) -> Vec<RunConfig> {
    let mut out: Vec<RunConfig> = Vec::new();
    for problem in [ProblemKind::Minimisation, ProblemKind::Saddle] {
        for relation in [Relation::ReplaceOne, Relation::AddRemove] {
            let raw = RunConfig {
                algorithm,
                problem,
                relation,
                n: 200,
                batch: 32,
                steps: 20,
                ..RunConfig::default()
            };
            let (picked, _) = menu::pick(&raw, algorithm);
            out.extend(problem_settings(&raw));
            out.extend(single_changes(&raw));
            out.extend(single_changes(&picked));
            if problem == ProblemKind::Saddle {
                out.extend(game_settings(&picked));
            }
        }
    }
    let mut seen = BTreeSet::new();
    out.retain(|c| seen.insert(c.to_json()));
    out
}

/// What a run's build reads of `config`, as a key: a game's build reads none of the
/// minimisation's problem settings (`config::pose::game` builds from the game settings alone), and a
/// minimisation's none of the game settings (a minimisation family picked on a game config
/// turns it into a minimisation whose game fields vary for nothing). Both are still validated
/// and previewed.
fn build_key(config: &RunConfig) -> String {
    let plain = RunConfig::default();
    let unread = match config.problem {
        ProblemKind::Saddle => RunConfig {
            loss: plain.loss,
            wrap: plain.wrap,
            domain: plain.domain,
            l2: plain.l2,
            l1: plain.l1,
            ..config.clone()
        },
        ProblemKind::Minimisation => RunConfig {
            game: plain.game,
            records: plain.records,
            entry_bound: plain.entry_bound,
            mu_x: plain.mu_x,
            mu_y: plain.mu_y,
            clip_records: plain.clip_records,
            ..config.clone()
        },
    };
    unread.to_json()
}

/// What is wrong with where `error` would land (`None`: at no field, or at a control the page
/// shows).
fn misplaced(error: &Error) -> Option<String> {
    let field = error.field()?;
    let root = field.split('.').next().unwrap_or(field);
    if INTERNAL_NAMES.contains(&root) {
        return Some(format!("the internal name {field}"));
    }
    match Control::of(field) {
        Some(control) if control.on_page() => None,
        Some(_) => Some(format!("{field}, a setting the page does not show")),
        None => Some(format!("{field}, no control's")),
    }
}

/// An error the walk raised: the entry point, the config (as JSON) and the error.
struct Raised {
    entry: &'static str,
    config: String,
    error: Error,
}

/// What the walk saw: every error, the configs whose run was built, and the settings the preview
/// accepted and the build refused.
struct Walked {
    raised: Vec<Raised>,
    built: usize,
    late: Vec<String>,
    /// The games (menu values) of the runs built.
    games_built: BTreeSet<String>,
}

/// What one config of the walk raised, in the order the entry points were tried.
struct Outcome {
    raised: Vec<Raised>,
    /// The preview passed and the run is small enough to build (reading its data).
    buildable: bool,
    built: bool,
    late: Option<String>,
}

/// Tries one config at validation and the preview.
fn check_config(config: &RunConfig) -> Outcome {
    let mut out = Outcome {
        raised: Vec::new(),
        buildable: false,
        built: false,
        late: None,
    };
    let mut note = |entry, error| {
        out.raised.push(Raised {
            entry,
            config: config.to_json(),
            error,
        })
    };
    if let Err(e) = config.validate() {
        note("validate", e);
    }
    match preview(config) {
        Err(e) => note("preview", e),
        Ok(_) => {
            out.buildable =
                config.steps <= 20 && config.d <= 5 && config.relation == Relation::ReplaceOne;
        }
    }
    out
}

/// Builds the run of a config whose preview passed: errors found only when the (small) data are
/// read land in `out` after the config's earlier ones.
fn build_config(config: &RunConfig, out: &mut Outcome) {
    out.built = true;
    if let Err(e) = Lab::new(config.clone(), None) {
        out.late = Some(format!("{e}\n    with {}", config.to_json()));
        out.raised.push(Raised {
            entry: "Lab::new",
            config: config.to_json(),
            error: e,
        });
    }
}

/// The walk over every algorithm, run once for the tests of this file (it is the slow part).
/// The configs are independent, so they are checked and built on every core; `collect` keeps the
/// walk's order, so what the tests see (and print) is the same as a sequential walk's. A run is
/// built once per what its build reads (`build_key`; the build does not read the relation): the
/// first config in walk order with that key is built, as a sequential walk would.
fn walked() -> &'static Walked {
    static WALKED: OnceLock<Walked> = OnceLock::new();
    WALKED.get_or_init(|| {
        let configs: Vec<RunConfig> = AlgorithmKind::ALL.into_iter().flat_map(walk).collect();
        let mut outcomes: Vec<Outcome> = configs.par_iter().map(check_config).collect();
        let mut keys = BTreeSet::new();
        let to_build: Vec<bool> = configs
            .iter()
            .zip(&outcomes)
            .map(|(config, outcome)| outcome.buildable && keys.insert(build_key(config)))
            .collect();
        outcomes
            .par_iter_mut()
            .zip(&configs)
            .zip(&to_build)
            .filter(|(_, build)| **build)
            .for_each(|((outcome, config), _)| build_config(config, outcome));
        let mut raised = Vec::new();
        let mut built = 0;
        let mut late: Vec<String> = Vec::new();
        let mut games_built = BTreeSet::new();
        for (outcome, config) in outcomes.into_iter().zip(&configs) {
            if outcome.built && config.problem == ProblemKind::Saddle {
                games_built.insert(dp_playground::config::choice_label(&config.game));
            }
            raised.extend(outcome.raised);
            built += usize::from(outcome.built);
            late.extend(outcome.late);
        }
        late.dedup();
        Walked {
            raised,
            built,
            late,
            games_built,
        }
    })
}

#[test]
fn every_error_of_every_algorithm_problem_and_relation_names_a_control_on_the_page() {
    let walked = walked();
    // One example per (entry point, field) that would land far from any control.
    let mut wrong: BTreeMap<String, String> = BTreeMap::new();
    let mut fields: BTreeMap<String, usize> = BTreeMap::new();
    for Raised {
        entry,
        config,
        error,
    } in &walked.raised
    {
        let field = error.field().unwrap_or("(none)").to_string();
        *fields.entry(field).or_default() += 1;
        if let Some(why) = misplaced(error) {
            wrong
                .entry(format!("{entry} at {why}"))
                .or_insert_with(|| format!("{error}\n    with {config}"));
        }
    }
    let built = walked.built;
    eprintln!("fields raised: {fields:?}; {built} runs built");
    assert!(built > 300, "the walk must reach runs that build: {built}");
    // A family refuses what it cannot run before any data are read (its needs and its
    // plan), so no setting the preview accepted fails once the data exist.
    assert!(
        walked.late.is_empty(),
        "accepted by the preview, refused after the data were read:\n{}",
        walked.late.join("\n")
    );
    assert!(
        wrong.is_empty(),
        "errors far from any control:\n{}",
        wrong
            .iter()
            .map(|(k, v)| format!("- {k}: {v}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Every message of the walk names its control by the page's label, says what
/// to do (an instruction verb), in at most two sentences and 300 characters, and leaks none of the
/// code's names (`common::wording`). Each distinct message is listed once with a config raising it.
#[test]
fn every_error_of_the_walk_names_its_control_by_label_and_says_what_to_do() {
    let page = common::page();
    let mut bad: BTreeMap<String, (Vec<String>, String)> = BTreeMap::new();
    let mut distinct = BTreeSet::new();
    for Raised { config, error, .. } in &walked().raised {
        let message = error.to_string();
        distinct.insert(message.clone());
        let faults = common::wording_faults(error, &page, &[]);
        if !faults.is_empty() {
            bad.entry(message).or_insert((faults, config.clone()));
        }
    }
    eprintln!("{} distinct messages", distinct.len());
    if let Ok(path) = std::env::var("DUMP_ERRORS") {
        let all: Vec<String> = distinct.into_iter().collect();
        std::fs::write(path, all.join("\n")).expect("the dump");
    }
    assert!(
        bad.is_empty(),
        "{} messages a person cannot act on:\n{}",
        bad.len(),
        bad.iter()
            .map(|(m, (faults, config))| format!("- {m}\n    {faults:?}\n    with {config}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// No message of the walk names a paper by the project's file numbers ("seed
/// 002", "Lowy & Razaviyayn 2021"): a person sees authors, title and year.
#[test]
fn no_error_of_the_walk_names_a_paper_by_an_internal_number() {
    let bad: BTreeSet<String> = walked()
        .raised
        .iter()
        .map(|r| r.error.to_string())
        .filter(|m| common::names_an_internal_number(m))
        .collect();
    assert!(bad.is_empty(), "{bad:#?}");
}

/// The walk covers every entry of the game menu (group DRO in the ball and on the
/// simplex, AUC maximisation …): some saddle family's run of each is previewed and built.
#[test]
fn the_walk_covers_every_game_of_the_menu() {
    let games = games_on_the_page();
    assert!(games.len() >= 10, "the game menu read: {games:?}");
    let built = &walked().games_built;
    for game in games {
        let label = dp_playground::config::choice_label(&game);
        assert!(built.contains(&label), "{label} is never built: {built:?}");
    }
}

#[test]
fn every_control_the_page_shows_has_an_error_line() {
    let lines = error_lines_on_the_page();
    // `problem` joins the page with the saddle-point menu.
    let missing: Vec<&str> = Control::ALL
        .into_iter()
        .filter(|c| c.on_page())
        .map(Control::id)
        .filter(|id| !lines.iter().any(|line| line == id))
        .collect();
    assert!(missing.is_empty(), "no <id>-error line for {missing:?}");
}

// ---- the walk over the new surface ----

/// The extremes of every setting the heavy-tail families, the games and composition read (issue
/// 32): each tail's parameter at both ends and far past them, the regression noise's, k, J, λ₁,
/// U, the clip, the label bound, the noise draw; a game's radius, entry bound and moduli.
fn new_surface(base: &RunConfig) -> Vec<RunConfig> {
    let with = |f: &dyn Fn(&mut RunConfig)| {
        let mut c = base.clone();
        f(&mut c);
        c
    };
    let mut out = Vec::new();
    let tails = [
        Tail::StudentT { nu: 1e-12 },
        Tail::StudentT { nu: 0.25 },
        Tail::StudentT { nu: 1e308 },
        Tail::ParetoRadial { alpha: 1e-12 },
        Tail::ParetoRadial { alpha: 0.25 },
        Tail::LogNormal { sigma: 8.0 },
        Tail::LogNormal { sigma: 1e6 },
        Tail::Contaminated {
            p: 0.5,
            scale: 1e308,
        },
        Tail::Contaminated { p: 1.0, scale: 1e6 },
        Tail::RareOutlier { p: 1e-9, a: 1e308 },
        Tail::RareOutlier { p: 0.5, a: 1e6 },
    ];
    for tail in tails {
        out.push(with(&|c| {
            c.tail = tail;
            c.feature_scale = 1e3
        }));
        out.push(with(&|c| {
            c.noise_tail = tail;
            c.loss = Glm::Squared { label_bound: 10.0 }
        }));
    }
    for label_bound in [1e6, 1e7, 1e300] {
        out.push(with(&|c| c.loss = Glm::Squared { label_bound }));
        out.push(with(&|c| {
            c.loss = Glm::Absolute { label_bound };
            c.feature_bound = 1e6;
            c.radius = 1e6
        }));
    }
    out.push(with(&|c| c.noise_draw = u32::MAX));
    out.push(with(&|c| c.noise_draw = 999_999));
    out.push(with(&|c| {
        c.noise_draw = 999_999;
        c.delta = 1e-5
    }));
    // What the calibration and a game derive from the settings (the noise multiplier, the
    // sensitivity, the heavy records' scale) at the extremes of the settings they come from.
    for tiny_or_huge in [1e-300, 1e300] {
        out.push(with(&|c| c.feature_bound = tiny_or_huge));
        out.push(with(&|c| c.epsilon = tiny_or_huge));
        out.push(with(&|c| c.delta = tiny_or_huge.min(0.5)));
        out.push(with(&|c| c.feature_scale = tiny_or_huge));
        out.push(with(&|c| c.radius = tiny_or_huge));
        out.push(with(&|c| {
            c.clip = Some(tiny_or_huge);
            c.batch = 1
        }));
    }
    out.push(with(&|c| c.moment_k = 1e308));
    out.push(with(&|c| c.repetitions = usize::MAX));
    out.push(with(&|c| c.lambda1 = Some(1e308)));
    out.push(with(&|c| c.budget_u = Some(1e308)));
    out.push(with(&|c| c.clip = Some(1e308)));
    out.push(with(&|c| c.epsilon = 1e308));
    out.push(with(&|c| {
        c.grid_resolution = 400;
        c.n = 1_000_000;
        c.d = 2
    }));
    if base.problem == ProblemKind::Saddle {
        for game in games_on_the_page() {
            for (radius, entry_bound, mu) in [(1e9, 1e308, 1e-300), (1e-9, 1e-9, 1e308)] {
                out.push(with(&|c| {
                    c.game = game;
                    c.radius = radius;
                    c.entry_bound = entry_bound;
                    c.mu_x = mu;
                    c.mu_y = mu;
                    c.records = RecordChoice::Heavy;
                }));
            }
        }
    }
    out
}

/// Every error the new surface raises at validation, the preview and composition, for every
/// algorithm (as picked from the menu) on both problems.
fn new_surface_errors() -> &'static Vec<(String, Error)> {
    static ERRORS: OnceLock<Vec<(String, Error)>> = OnceLock::new();
    ERRORS.get_or_init(|| {
        let mut configs = Vec::new();
        for algorithm in AlgorithmKind::ALL {
            for problem in [ProblemKind::Minimisation, ProblemKind::Saddle] {
                let raw = RunConfig {
                    algorithm,
                    problem,
                    n: 200,
                    batch: 32,
                    steps: 20,
                    ..RunConfig::default()
                };
                configs.extend(new_surface(&menu::pick(&raw, algorithm).0));
            }
        }
        let mut seen = BTreeSet::new();
        configs.retain(|c| seen.insert(c.to_json()));
        configs
            .par_iter()
            .flat_map_iter(|c| {
                let mut errors = Vec::new();
                if let Err(e) = c.validate() {
                    errors.push(e);
                } else {
                    errors.extend(preview(c).err());
                    errors.extend(dp_playground::session::publish::compose_run(c).err());
                }
                errors.into_iter().map(|e| (c.to_json(), e))
            })
            .collect()
    })
}

/// heavy-tail settings, games and composition, at their extremes, raise only
/// errors that name a control of the page by its label and say what to do, in under 300
/// characters (the rule of `every_error_of_the_walk_names_its_control_by_label_and_says_what_to_do`).
#[test]
fn every_error_of_the_heavy_tail_game_and_composition_extremes_names_its_control() {
    let page = common::page();
    let errors = new_surface_errors();
    let mut bad: BTreeMap<String, (Vec<String>, String)> = BTreeMap::new();
    for (config, error) in errors {
        let mut faults = common::wording_faults(error, &page, &[]);
        faults.extend(misplaced(error));
        if !faults.is_empty() {
            bad.entry(error.to_string())
                .or_insert((faults, config.clone()));
        }
    }
    // The extremes are refused somewhere: the walk is not vacuous.
    assert!(errors.len() > 500, "{} errors", errors.len());
    assert!(
        bad.is_empty(),
        "{} messages a person cannot act on:\n{}",
        bad.len(),
        bad.iter()
            .map(|(m, (faults, config))| format!("- {m}\n    {faults:?}\n    with {config}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// the page's sweep panel names its own controls ("sweep values", "sweep
/// repeats", "sweep algorithms", "sweep settings"), each a label on the page, with what to do.
#[test]
fn every_error_of_the_sweep_panel_names_its_control_and_says_what_to_do() {
    use dp_playground::session::sweep_lanes::{PageSweep, SweepRequest, field};
    let page = common::page();
    let fields = [
        field::VALUES,
        field::REPEATS,
        field::ALGORITHMS,
        field::SETTINGS,
    ];
    // "sweep settings" errors show in the panel's own error line, below its Run button.
    for f in &fields[..3] {
        assert!(page.contains(&format!(">{f}")), "the page shows no {f}");
    }
    let request = |json: &str| -> SweepRequest { serde_json::from_str(json).expect(json) };
    let base = RunConfig::default();
    let csv = RunConfig {
        data: dp_playground::config::DataSource::Csv,
        ..base.clone()
    };
    let cases = [
        (&base, r#"{"axis":"epsilon","values":[1],"repeats":10}"#),
        (&base, r#"{"axis":"epsilon","values":[-1,1],"repeats":10}"#),
        (
            &base,
            r#"{"axis":"epsilon","values":[1e308,1e-308],"repeats":10}"#,
        ),
        (&base, r#"{"axis":"n","values":[1.5,100],"repeats":10}"#),
        (&base, r#"{"axis":"n","values":[5,100],"repeats":10}"#),
        (&base, r#"{"axis":"n","values":[1e9,100],"repeats":10}"#),
        (&base, r#"{"axis":"epsilon","values":[1,2],"repeats":0}"#),
        (&base, r#"{"axis":"epsilon","values":[1,2],"repeats":1e9}"#),
        (
            &base,
            r#"{"axis":"epsilon","values":[1,2],"repeats":10,"algorithms":["nope"]}"#,
        ),
        (
            &base,
            r#"{"axis":"epsilon","values":[1,2],"repeats":10,"algorithms":["a","b","c","d","e"]}"#,
        ),
        (
            &base,
            r#"{"axis":"epsilon","values":[1,2],"repeats":10,"algorithms":["exponential_grid"]}"#,
        ),
        (&csv, r#"{"axis":"epsilon","values":[1,2],"repeats":10}"#),
    ];
    let mut bad = Vec::new();
    for (config, json) in cases {
        let Err(e) = PageSweep::new(config.clone(), &request(json)) else {
            continue;
        };
        let faults = common::wording_faults(&e, &page, &fields);
        if !faults.is_empty() {
            bad.push(format!("- {e}\n    {faults:?}\n    with {json}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// A file's errors that no setting of the walk reaches: labels a margin loss cannot take (the
/// loss is what to change) and a delimiter no control sets (the file is the data source's).
#[test]
fn a_files_labels_and_delimiter_name_the_loss_and_the_data_source() {
    use dp_playground::data::{CsvOptions, Dataset, LabelColumn, LabelRange, load_csv};
    let page = common::page();
    let mut labels: Vec<f64> = (0..10)
        .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
        .collect();
    labels[3] = 2.0;
    let file =
        Dataset::from_samples(1, (0..10).map(|i| i as f64 / 10.0).collect(), labels).unwrap();
    let config = RunConfig {
        data: DataSource::Csv,
        n: 10,
        d: 1,
        batch: 10,
        loss: Glm::Logistic,
        ..RunConfig::default()
    };
    let labels = Lab::new(config, Some(file))
        .err()
        .expect("a label of 2 under the logistic loss");
    let delimiter = load_csv(
        b"1|2\n3|4\n",
        &CsvOptions {
            label: LabelColumn::Last,
            delimiter: Some('|'),
            header: None,
            labels: LabelRange::Real,
        },
    )
    .unwrap_err();
    for (error, at) in [(labels, "loss"), (delimiter, "data")] {
        assert_eq!(error.field(), Some(at), "{error}");
        let faults = common::wording_faults(&error, &page, &[]);
        assert!(faults.is_empty(), "{error}: {faults:?}");
        assert!(misplaced(&error).is_none(), "{error}");
    }
}

/// The numbers the privacy calibration and a game derive from the settings (the accountants'
/// noise multiplier, a mechanism's sensitivity, the heavy records' scale) are refused at the
/// control a person changes, by its label, with what to do there.
#[test]
fn a_derived_numbers_error_names_the_control_it_comes_from() {
    let page = common::page();
    for (key, at) in [
        ("noise_multiplier", "epsilon"),
        ("sensitivity", "feature_bound"),
        ("noise_scale", "feature_scale"),
    ] {
        for got in [0.0, f64::INFINITY, f64::NAN] {
            let error =
                dp_playground::config::at_control(Error::invalid(key, "a finite number > 0", got));
            assert_eq!(error.field(), Some(at), "{error}");
            let faults = common::wording_faults(&error, &page, &[]);
            assert!(faults.is_empty(), "{error}: {faults:?}");
            assert!(misplaced(&error).is_none(), "{error}");
        }
    }
}
