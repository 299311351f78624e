//! The corners of what the page accepts, and one check of a run at a corner through the page's
//! own path: shared by the property test (tests/algorithms/privacy_edges.rs) and the fuzz target `edges`
//! (tests/fuzz).

#![allow(dead_code)]

use std::panic::{AssertUnwindSafe, catch_unwind};

use dp_playground::algo::family::ProblemKind;
use dp_playground::algo::registry::{self, FAMILIES};
use dp_playground::config::menu;
use dp_playground::config::pose::load_file;
use dp_playground::config::{
    AlgorithmKind, Control, DataSource, DomainChoice, GameChoice, MIN_DELTA, RecordChoice,
    RunConfig,
};
use dp_playground::data::Tail;
use dp_playground::privacy::Guarantee;
use dp_playground::session::problem::ReferenceClock;
use dp_playground::session::{Lab, export, preview};

/// Most steps a corner's run takes in the ordinary suite (the step-count corner itself is 1).
pub const MAX_STEPS: usize = 12;

/// A corner: its name, the control it pushes to the end of its range, and the push.
pub struct Corner {
    pub name: &'static str,
    /// The control this corner sets, when it is an algorithm's setting (`None`: the data, the
    /// privacy settings, the game: every family reads them).
    pub control: Option<Control>,
    pub apply: fn(&mut RunConfig),
}

macro_rules! corner {
    ($name:expr, $control:expr, |$c:ident| $body:expr) => {
        Corner {
            name: $name,
            control: $control,
            apply: |$c: &mut RunConfig| {
                $body;
            },
        }
    };
}

/// Every corner, each at one end of a range `RunConfig::validate` accepts (or of a tail
/// parameter it accepts: any finite number > 0).
pub const CORNERS: &[Corner] = &[
    corner!("base", None, |c| c.repeats = 1),
    corner!("epsilon = 1e-4", None, |c| c.epsilon = 1e-4),
    corner!("epsilon = 100", None, |c| c.epsilon = 100.0),
    corner!("delta = 1e-100", None, |c| if c.delta > 0.0 {
        c.delta = MIN_DELTA
    }),
    corner!("delta = 0.4999", None, |c| if c.delta > 0.0 {
        c.delta = 0.4999
    }),
    corner!("n = 10", None, |c| {
        c.n = 10;
        c.batch = c.batch.min(10);
    }),
    corner!("steps = 1", Some(Control::Steps), |c| c.steps = 1),
    corner!("student-t nu = 0.25", None, |c| c.tail =
        Tail::StudentT { nu: 0.25 }),
    corner!("pareto alpha = 0.25", None, |c| c.tail =
        Tail::ParetoRadial { alpha: 0.25 }),
    corner!("log-normal sigma = 8", None, |c| c.tail =
        Tail::LogNormal { sigma: 8.0 }),
    corner!("contaminated p = 1, scale = 1e300", None, |c| c.tail =
        Tail::Contaminated {
            p: 1.0,
            scale: 1e300
        }),
    corner!("feature scale = 1e3", None, |c| c.feature_scale = 1e3),
    corner!("feature scale = 1e-6", None, |c| c.feature_scale = 1e-6),
    corner!("signal = 1e3", None, |c| c.signal = 1e3),
    corner!("feature bound = 1e-6", None, |c| c.feature_bound = 1e-6),
    corner!("feature bound = 1e6", None, |c| c.feature_bound = 1e6),
    corner!("radius = min", None, |c| c.radius =
        if game(c) { 1e-3 } else { 1e-6 }),
    corner!("radius = max", None, |c| c.radius =
        if game(c) { 1e3 } else { 1e6 }),
    corner!("l2 = 0", Some(Control::L2), |c| c.l2 = 0.0),
    corner!("l2 = 1e3", Some(Control::L2), |c| c.l2 = 1e3),
    corner!("l1 = 1e3", Some(Control::L1), |c| c.l1 = 1e3),
    corner!("clip = 1e-9", Some(Control::Clip), |c| c.clip = Some(1e-9)),
    corner!("clip = 1e6", Some(Control::Clip), |c| c.clip = Some(1e6)),
    corner!("lambda1 = 1e-9", Some(Control::Lambda1), |c| c.lambda1 =
        Some(1e-9)),
    corner!("lambda1 = 1e6", Some(Control::Lambda1), |c| c.lambda1 =
        Some(1e6)),
    corner!("moment k = 2", Some(Control::MomentK), |c| c.moment_k = 2.0),
    corner!("moment k = 100", Some(Control::MomentK), |c| c.moment_k =
        100.0),
    corner!("grid resolution = 2", Some(Control::GridResolution), |c| {
        c.grid_resolution = 2
    }),
    corner!("budget U = 4", Some(Control::BudgetU), |c| c.budget_u =
        Some(4.0)),
    corner!("step size = 1e6", Some(Control::StepSize), |c| c
        .step_size =
        Some(1e6)),
    corner!("step size = 1e-9", Some(Control::StepSize), |c| c
        .step_size =
        Some(1e-9)),
    corner!(
        "clip = 1e-6 with lambda = 1e6, feature bound = 1e6",
        Some(Control::Clip),
        |c| {
            // The corner of a budget measured from the data: single-stage output perturbation's solver budget.
            c.clip = Some(1e-6);
            c.lambda1 = Some(1e6);
            c.feature_bound = 1e6;
            c.tail = Tail::ParetoRadial { alpha: 3.5 };
        }
    ),
    corner!("entry bound = 1e-3", Some(Control::EntryBound), |c| c
        .entry_bound =
        1e-3),
    corner!("entry bound = 1e3", Some(Control::EntryBound), |c| c
        .entry_bound =
        1e3),
    corner!("mu = 1e3", Some(Control::MuX), |c| {
        c.mu_x = 1e3;
        c.mu_y = 1e3;
    }),
    corner!(
        "heavy records, log-normal sigma = 8",
        Some(Control::Records),
        |c| {
            c.records = RecordChoice::Heavy;
            c.clip_records = true;
            c.tail = Tail::LogNormal { sigma: 8.0 };
        }
    ),
    corner!(
        "heavy records, pareto alpha = 0.25",
        Some(Control::Records),
        |c| {
            c.records = RecordChoice::Heavy;
            c.clip_records = true;
            c.tail = Tail::ParetoRadial { alpha: 0.25 };
            c.feature_scale = 1e3;
        }
    ),
];

/// The corners of the ordinary suite (about a minute for every family): the ends of ε, n and
/// the step count, the heaviest tails on each data path, the largest declared bound, the
/// smallest clip, the largest ridges, the smallest δ and the corner of a budget measured from the data. The others
/// run in the ignored full sweep.
pub const FAST: [&str; 13] = [
    "epsilon = 1e-4",
    "epsilon = 100",
    "delta = 1e-100",
    "n = 10",
    "steps = 1",
    "log-normal sigma = 8",
    "pareto alpha = 0.25",
    "feature bound = 1e6",
    "clip = 1e-9",
    "l2 = 1e3",
    "lambda1 = 1e6",
    "clip = 1e-6 with lambda = 1e6, feature bound = 1e6",
    "heavy records, log-normal sigma = 8",
];

/// Families whose runs take seconds each in a debug build (Lowy 2026 Theorem D.4's
/// deterministic solver): the ordinary suite runs them at [`SLOW_FAST`]'s corners only.
fn slow(kind: AlgorithmKind) -> bool {
    kind == AlgorithmKind::DeterministicDoubleOutputPerturbation
}

/// The corners a [`slow`] family runs in the ordinary suite.
const SLOW_FAST: [&str; 2] = ["epsilon = 1e-4", "log-normal sigma = 8"];

fn game(c: &RunConfig) -> bool {
    c.problem == ProblemKind::Saddle
}

/// The games a saddle family is also run on at the heavy-record corners (the records that
/// overflowed to NaN under clipping before the record gate).
pub const GAMES: [GameChoice; 3] = [
    GameChoice::RockPaperScissors,
    GameChoice::GroupDroLogistic,
    GameChoice::AucMaximisation,
];

/// A family's configs at every corner that applies to it: the family picked from the menu on a
/// small problem (n = 60, d = 2, at most [`MAX_STEPS`] steps), then pushed to the corner; a
/// saddle family on each game of [`GAMES`] that it runs. Corners of settings the family does not
/// read are left out (they would repeat its base run).
pub fn configs(kind: AlgorithmKind) -> Vec<(String, RunConfig)> {
    corners(kind, false)
}

/// [`configs`] at the [`FAST`] corners only, and on the games after the first only at the
/// heavy-record corner.
pub fn fast_configs(kind: AlgorithmKind) -> Vec<(String, RunConfig)> {
    corners(kind, true)
}

fn corners(kind: AlgorithmKind, fast: bool) -> Vec<(String, RunConfig)> {
    let family = registry::family(kind);
    let small = RunConfig {
        n: 60,
        d: 2,
        repeats: 1,
        ..RunConfig::default()
    };
    let mut bases = Vec::new();
    if family.solves.contains(&ProblemKind::Minimisation) {
        bases.push(("".to_string(), menu::pick(&small, kind).0));
    }
    if family.solves.contains(&ProblemKind::Saddle) {
        for g in GAMES {
            let Ok((posed, _)) = menu::pose(&small, ProblemKind::Saddle) else {
                continue;
            };
            let (gamed, _) = menu::pick_game(&posed, g);
            let (mut picked, _) = menu::pick(&gamed, kind);
            picked.batch = picked.batch.min(picked.n);
            // Only the games the family runs (a refused game is the menu's business). A pick
            // refused at ε alone (González et al.'s Algorithms 3 and 4 on this small n: a step
            // needs a larger ε) is based at the ε its refusal names, so that the other corners
            // run too; the ε corners still push it to both ends.
            let runs = match preview(&picked) {
                Ok(_) => true,
                Err(e) if e.field() == Some(Control::Epsilon.id()) => {
                    if let Some(epsilon) = named_epsilon(&e.to_string()) {
                        picked.epsilon = epsilon;
                    }
                    true
                }
                Err(_) => false,
            };
            if picked.algorithm == kind && picked.game == g && runs {
                bases.push((format!("{g:?}, "), picked));
            }
        }
    }
    let mut out = Vec::new();
    for (i, (prefix, mut base)) in bases.into_iter().enumerate() {
        base.steps = base.steps.min(MAX_STEPS);
        base.batch = base.batch.min(base.n);
        for corner in CORNERS {
            if fast
                && !(FAST.contains(&corner.name)
                    && (i == 0 || corner.name.starts_with("heavy records"))
                    && (!slow(kind) || SLOW_FAST.contains(&corner.name)))
            {
                continue;
            }
            if let Some(control) = corner.control
                && !family.takes(control)
                && !game_control(control, &base)
            {
                continue;
            }
            let mut c = base.clone();
            (corner.apply)(&mut c);
            out.push((format!("{prefix}{}", corner.name), c));
        }
    }
    out
}

/// The ε a refusal at ε names ("raise it to X …").
fn named_epsilon(refusal: &str) -> Option<f64> {
    let at = refusal.find("raise it to ")? + "raise it to ".len();
    refusal[at..]
        .split(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == '-'))
        .next()?
        .parse()
        .ok()
}

/// The game's own controls apply to every saddle family (they pose the game, not the algorithm).
fn game_control(control: Control, c: &RunConfig) -> bool {
    game(c)
        && matches!(
            control,
            Control::EntryBound | Control::MuX | Control::Records
        )
}

/// CSV files with a record planted at the edge of what a float holds (the page's file path
/// reads them as typed; ±∞ cannot be typed as a number the loader accepts, see
/// [`planted_infinity_is_refused`]).
pub const PLANTED: [(&str, f64); 3] = [("1e308", 1e308), ("-1e308", -1e308), ("max", f64::MAX)];

/// A CSV file of `n` rows of `d` features and a ±1 label (last column), row 0's first feature
/// `value`.
pub fn planted_csv(n: usize, d: usize, value: f64) -> String {
    let mut text = String::new();
    for i in 0..n {
        let mut row: Vec<String> = (0..d)
            .map(|j| format!("{}", ((i * 7 + j * 3) % 11) as f64 / 10.0 - 0.5))
            .collect();
        if i == 0 {
            row[0] = format!("{value:e}");
        }
        row.push(if i % 2 == 0 { "1" } else { "-1" }.to_string());
        text.push_str(&row.join(","));
        text.push('\n');
    }
    text
}

/// What one config did.
#[derive(Debug)]
pub enum Outcome {
    /// Refused before the run, at a control (`validate`, the plan, the data).
    Refused(String),
    /// Ran `draws` noise draws; every check held.
    Ran,
}

/// Families whose release is a point of a finite set (a grid point; the average of T sampled
/// vertices, as González et al.'s private mirror descent releases): two noise draws may land on
/// the same point with positive probability, so "differs between draws" is checked only at
/// ε = 1e-4, where the draw is closest to uniform over the set.
pub fn discrete(kind: AlgorithmKind) -> bool {
    use AlgorithmKind::*;
    matches!(
        kind,
        ExponentialGrid
            | EmPgm
            | LocalisedApproxEm
            | LocalisedExponential
            | PrivateSmd
            | BiasReducedSmd
            | BoostedSmd
            | PrivateSco
    )
}

/// Runs `config` (with `file`, a CSV text, when its data are a file) through the page's path —
/// the plan and preview before the data, then the lab to its end and its export, as the
/// terminal's `run` does — at noise draws 0..`draws`, and checks that every release is finite,
/// that the releases differ between draws, and that each carries the guarantee the preview
/// stated before the run, in the release and in the private export. Panics are caught and
/// reported as failures.
pub fn check(config: &RunConfig, file: Option<&str>, draws: u32) -> Result<Outcome, String> {
    match catch_unwind(AssertUnwindSafe(|| check_inner(config, file, draws))) {
        Ok(r) => r,
        Err(panic) => Err(format!(
            "panicked: {}",
            panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("?")
        )),
    }
}

fn check_inner(config: &RunConfig, file: Option<&str>, draws: u32) -> Result<Outcome, String> {
    let mut config = config.clone();
    config.repeats = 1;
    config.compare.clear();
    if let Err(e) = config.validate() {
        return Ok(Outcome::Refused(format!("validate: {e}")));
    }
    let stated = match preview(&config) {
        Ok(p) => p,
        Err(e) => return Ok(Outcome::Refused(format!("preview: {e}"))),
    };
    let mut releases: Vec<Vec<f64>> = Vec::new();
    // A release from a finite set: eight draws at ε = 1e-4, where they are near uniform, so that
    // all of them coinciding is as unlikely as 2⁻⁷ for a set of two points.
    let finite_set = discrete(config.algorithm) || on_simplex(&config);
    let discrete_check = finite_set && config.epsilon <= 1e-4;
    let draws = if discrete_check { draws.max(8) } else { draws };
    for draw in 0..draws {
        config.noise_draw = draw;
        // Draw k is the (k + 1)-th release of the same data: a composed δ the settings cannot
        // afford (δ near ½) is refused by the composition alone, before any data. The draws
        // stop there; two are enough to compare.
        if draw > 1 && dp_playground::session::publish::compose_run(&config).is_err() {
            break;
        }
        let data = match file {
            Some(text) => match load_file(text.as_bytes(), &config, "last") {
                Ok(d) => Some(d),
                Err(e) => return Ok(Outcome::Refused(format!("file: {e}"))),
            },
            None => None,
        };
        let mut lab = match Lab::with_clock(config.clone(), data, ReferenceClock::WorkOnly) {
            Ok(lab) => lab,
            // A refusal that waits for the data would depend on them: only the first draw may
            // be refused, and then every draw is (the same settings, the same data).
            Err(e) if draw == 0 => return Ok(Outcome::Refused(format!("lab: {e}"))),
            Err(e) => return Err(format!("draw {draw} refused after draw 0 ran: {e}")),
        };
        let record = export::run_to_end(&mut lab);
        let mut n = 0;
        for (_, _, release) in record.releases() {
            n += 1;
            let all = release.w().iter().chain(release.y().into_iter().flatten());
            if let Some(v) = all.clone().find(|v| !v.is_finite()) {
                return Err(format!("draw {draw}: a released coordinate is {v}"));
            }
            if statement(&release.ledger.guarantee) != statement(&stated.guarantee) {
                return Err(format!(
                    "draw {draw}: the release states {:?}, the preview stated {:?}",
                    statement(&release.ledger.guarantee),
                    statement(&stated.guarantee)
                ));
            }
            let mut point = release.w().to_vec();
            point.extend(release.y().into_iter().flatten());
            releases.push(point);
        }
        if n != 1 {
            return Err(format!("draw {draw}: {n} releases, expected 1"));
        }
        // The private export of the first draw (a later draw's export composes the earlier
        // draws too, which δ near ½ cannot afford; its releases' ledgers are checked above).
        if draw == 0 {
            let json = export::run_json(&lab, &record).map_err(|e| format!("export: {e}"))?;
            let json: serde_json::Value =
                serde_json::from_str(&json).map_err(|e| format!("export JSON: {e}"))?;
            let exported = &json["private"]["releases"][0]["ledger"]["guarantee"];
            let stated_json = serde_json::to_value(&stated.guarantee).unwrap_or_default();
            for key in ["epsilon", "delta", "relation", "rho"] {
                if exported[key] != stated_json[key] {
                    return Err(format!(
                        "the private export states {key} = {}, the preview stated {}",
                        exported[key], stated_json[key]
                    ));
                }
            }
        }
    }
    let private = stated.is_private();
    if private && discrete_check && releases.iter().all(|r| r == &releases[0]) {
        return Err(format!(
            "all {draws} draws at ε = 1e-4 released the same point {:?}: no noise reached it",
            releases[0]
        ));
    }
    if private && !finite_set && draws > 1 {
        for (i, a) in releases.iter().enumerate() {
            if let Some(j) = releases[..i].iter().position(|b| b == a) {
                return Err(format!(
                    "draws {j} and {i} released the same point {a:?}: no noise reached it"
                ));
            }
        }
    }
    Ok(Outcome::Ran)
}

/// What a guarantee states (its accounting words may grow once the run knows its data-free
/// details, as the solver's certified radius).
fn statement(g: &Guarantee) -> (u64, u64, String, Option<u64>) {
    (
        g.epsilon.to_bits(),
        g.delta.to_bits(),
        format!("{:?}", g.relation),
        g.rho.map(f64::to_bits),
    )
}

/// Whether the release is projected onto a simplex (a minimisation on the simplex, a game whose
/// players are mixed strategies): noise much larger than the simplex lands it on a vertex, so
/// like [`discrete`] releases two draws may coincide with positive probability.
pub fn on_simplex(c: &RunConfig) -> bool {
    use GameChoice::*;
    c.domain == DomainChoice::Simplex
        || (game(c)
            && matches!(
                c.game,
                RockPaperScissors
                    | RandomMatrix
                    | QueryRelease
                    | GroupDroLogisticSimplex
                    | GroupDroSquaresSimplex
            ))
}

/// Every family of the registry.
pub fn kinds() -> impl Iterator<Item = AlgorithmKind> {
    FAMILIES.iter().map(|f| f.kind)
}

/// `config` on a CSV file with a planted record (a minimisation family; `None` for a game or
/// a loss whose labels the file cannot give).
pub fn on_file(config: &RunConfig, value: f64) -> Option<(RunConfig, String)> {
    if game(config) {
        return None;
    }
    let mut c = config.clone();
    c.data = DataSource::Csv;
    let text = planted_csv(c.n, c.d, value);
    Some((c, text))
}
