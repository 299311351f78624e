//! Every algorithm family, in menu order, and the three things done with one: check a config
//! against it, plan a run of it, and pick it from the menu.
//!
//! Adding an algorithm: its file (declaring a [`Family`]) and one line in the table of
//! [`super::kinds`], which makes its [`AlgorithmKind`], its place in [`FAMILIES`] and the menu.
//! Nothing in `session/`, `catalog.rs` or `www/` names an algorithm.

use super::family::{Demonstration, Family, Plan, Preview, ProblemKind, Purity, same_promise};
use super::run::Run;
use super::{NoiseShape, same_law};
use crate::algo::problem::{Posed, ProblemDeclaration};
use crate::config::{AlgorithmKind, Control, DataSource, GameChoice, RunConfig, at_control};
use crate::error::{Error, Result};
use crate::privacy::Rdp;
use crate::privacy::calibration::{GaussianRow, compare_gaussian};
use crate::rng::DpRng;
use crate::theory::curve::Curve;

pub use super::kinds::{FAMILIES, family};

/// Whether `config` (with `family` as one of its algorithms) asks for something the family
/// cannot do: a problem kind it does not solve, or a need the settings leave unmet. Errors name the field to change.
pub fn check(family: &Family, config: &RunConfig) -> Result<()> {
    if !family.solves.contains(&config.problem) {
        return Err(Error::invalid(
            "problem",
            format!(
                "choose a {} problem: {} solves no other",
                family
                    .solves
                    .iter()
                    .map(|k| k.name())
                    .collect::<Vec<_>>()
                    .join(" or "),
                family.card.name,
            ),
            config.problem.name(),
        ));
    }
    family.needs.iter().try_for_each(|need| need.check(config))
}

/// The plan of the config's main algorithm, from the configuration alone: its guarantee, noise
/// law and theory, before any data are read. Errors name the page's control for the setting at
/// fault ([`at_control`]).
pub fn plan(config: &RunConfig) -> Result<Planned> {
    let family = family(config.algorithm);
    check(family, config)?;
    let declared = ProblemDeclaration::of(config);
    let mut planned = (family.plan)(config, &declared).map_err(at_control)?;
    // A game's own demonstration (records left unclipped) voids whatever the family promises.
    if let Some(leak) = game_leak(config) {
        planned.preview.leaks.push(leak.to_string());
    }
    finite_noise(&planned.preview)?;
    planned.preview.single_release = single_release(&planned.preview)?;
    Ok(planned)
}

/// The leak of the game `config` poses, if any ([`crate::minimax::game::GameSpec::leak`]).
pub fn game_leak(config: &RunConfig) -> Option<&'static str> {
    (config.problem == ProblemKind::Saddle)
        .then(|| config.game_declaration().leak)
        .flatten()
}

/// Every number that feeds the noise, checked once for every family before any run: σ, each
/// draw's scale and sensitivity, and the step size must be finite and > 0 (without this check a step
/// 1/β of ∞, a sensitivity of ∞ and σ = ∞ each released NaN, ∞ or a noiseless point). The ranges of
/// [`RunConfig::validate`] keep the settings inside what the families serve; this is the backstop
/// that names the control setting the offending number.
fn finite_noise(preview: &Preview) -> Result<()> {
    let usable = |v: f64| v.is_finite() && v > 0.0;
    let constants = || {
        format!(
            "lower it, the loss's parameters or the domain's radius: the declared constants \
             must be finite (G = {:e}, sensitivity {:e})",
            preview.lipschitz, preview.sensitivity
        )
    };
    // With ε ≥ 10⁻⁴ and δ ≥ MIN_DELTA (validate), a scale overflows only through the constants.
    let numbers = std::iter::once(preview.sensitivity)
        .chain(preview.draws.iter().map(|d| d.sensitivity))
        .chain([preview.lipschitz, preview.sigma])
        .chain(preview.draws.iter().filter_map(|d| d.noise.scale()));
    if let Some(bad) = numbers.into_iter().find(|v| !usable(*v)) {
        return Err(Error::invalid(Control::FeatureBound.id(), constants(), bad));
    }
    match preview.step_size {
        Some(eta) if !usable(eta) => Err(Error::invalid(
            Control::StepSize.id(),
            "set a step size: the default 1/β is not a finite number > 0",
            eta,
        )),
        _ => Ok(()),
    }
}

/// A family's preview (what the page shows before the run, with the teaching table of single
/// Gaussian releases once [`plan`] fills it) and its plan: the one way to start a run of it.
pub struct Planned {
    /// The guarantee and noise law, stated before any data are read.
    pub preview: Preview,
    plan: Box<dyn Plan>,
}

impl Planned {
    /// `preview` with the `plan` that keeps it.
    pub fn new(preview: Preview, plan: impl Plan + 'static) -> Self {
        Self {
            preview,
            plan: Box::new(plan),
        }
    }

    /// The theory curve on `problem` (see [`Plan::theory`]).
    pub fn theory(&self, problem: &Posed) -> Option<Curve> {
        self.plan.theory(problem, &self.preview)
    }

    /// What would make a bound apply where [`Planned::theory`] has none (see
    /// [`Plan::theory_missing`]).
    pub fn theory_missing(&self, problem: &Posed) -> Option<String> {
        self.plan.theory_missing(problem, &self.preview)
    }

    /// The run's RDP curve, when the family accounts in RDP (see [`Plan::rdp`]).
    pub fn rdp(&self) -> Option<Rdp> {
        self.plan.rdp()
    }

    /// The running algorithm on `problem`. The promise shown before the run must be the one the
    /// algorithm keeps: the guarantee and the whole noise law (every draw's kind, scale, count
    /// and sensitivity); a difference is refused here, before the first step.
    pub fn build(&self, problem: &Posed, noise: DpRng, seeded: bool) -> Result<Box<dyn Run>> {
        let run = self
            .plan
            .build(problem, noise, seeded)
            .map_err(at_control)?;
        if !same_promise(run.guarantee(), &self.preview.guarantee) {
            return Err(Error::invalid(
                "algorithm",
                format!("the previewed guarantee {:?}", self.preview.guarantee),
                format!("{:?} (a bug: please report it)", run.guarantee()),
            ));
        }
        if !same_law(&run.draws(), &self.preview.draws) {
            return Err(Error::invalid(
                "algorithm",
                format!("the previewed noise {:?}", self.preview.draws),
                format!("{:?} (a bug: please report it)", run.draws()),
            ));
        }
        Ok(run)
    }
}

/// The teaching table of a preview: σ of one Gaussian release of the same sensitivity at the
/// whole (ε, δ), by each calibration (empty for pure ε and for non-Gaussian noise).
fn single_release(preview: &Preview) -> Result<Vec<GaussianRow>> {
    if preview.guarantee.delta > 0.0 && matches!(preview.noise, NoiseShape::Gaussian { .. }) {
        compare_gaussian(
            preview.sensitivity,
            preview.guarantee.epsilon,
            preview.guarantee.delta,
        )
    } else {
        Ok(Vec::new())
    }
}

/// `config` with `kind` picked from the menu, as a newcomer would: every need of the family met
/// (a ridge, a domain, a step count …), and one line per change saying what changed and why.
pub fn pick(config: &RunConfig, kind: AlgorithmKind) -> (RunConfig, Vec<String>) {
    let family = family(kind);
    let mut picked = RunConfig {
        algorithm: kind,
        ..config.clone()
    };
    picked.compare.retain(|k| *k != kind);
    let mut notes = Vec::new();
    if !family.solves.contains(&picked.problem) {
        picked.problem = family.solves[0];
        notes.push(format!(
            "problem set to {}: {} solves no other kind",
            picked.problem.name(),
            family.card.name
        ));
    }
    let before = picked.compare.len();
    picked
        .compare
        .retain(|k| self::family(*k).solves.contains(&picked.problem));
    if picked.compare.len() < before {
        notes.push(format!(
            "compared algorithms that solve no {} problem dropped",
            picked.problem.name()
        ));
    }
    notes.extend(meet_problem_needs(&mut picked));
    if picked.delta == 0.0 && family.purity == Purity::Approximate {
        picked.delta = RunConfig::default().delta;
        notes.push(format!(
            "δ set to {:e}: {} has no pure ε-DP version",
            picked.delta, family.card.name
        ));
    }
    if picked.leak && family.demonstration == Demonstration::None {
        picked.leak = false;
        notes.push(format!(
            "pitfall demonstration turned off: {} has none",
            family.card.name
        ));
    }
    notes.extend(
        family
            .needs
            .iter()
            .filter_map(|need| need.meet(&mut picked)),
    );
    (picked, notes)
}

/// `config` posing a `problem` of another kind, as a newcomer switching the problem menu would:
/// an algorithm that cannot solve it gives way to the first in the menu that can (picked as
/// [`pick`] does), and the new problem's own needs are met, each change with its note.
pub fn pose(config: &RunConfig, problem: ProblemKind) -> Result<(RunConfig, Vec<String>)> {
    let posed = RunConfig {
        problem,
        ..config.clone()
    };
    if family(posed.algorithm).solves.contains(&problem) {
        let (picked, notes) = pick(&posed, posed.algorithm);
        return Ok((picked, notes));
    }
    let first = FAMILIES
        .iter()
        .find(|f| f.solves.contains(&problem))
        .ok_or_else(|| {
            Error::invalid(
                Control::Problem.id(),
                "a problem some algorithm of the menu solves",
                problem.name(),
            )
        })?;
    let (picked, mut notes) = pick(&posed, first.kind);
    notes.insert(
        0,
        format!(
            "algorithm set to {}: {} solves no {} problem",
            first.card.name,
            family(config.algorithm).card.name,
            problem.name()
        ),
    );
    Ok((picked, notes))
}

/// `config` with `game` picked from the game menu, as a newcomer would: the game is posed (as
/// [`pose`] poses a saddle problem), and when the algorithm in use cannot run it (its needs or
/// its plan refuse it, say mirror descent off the simplex), the algorithm gives way to one that
/// can: the game's own suggestion first ([`GameChoice::suggested_algorithm`]), then the menu's
/// order. Each change comes with its note. When no family runs it, the config is returned as
/// posed, and planning names the field.
pub fn pick_game(config: &RunConfig, game: GameChoice) -> (RunConfig, Vec<String>) {
    let chosen = RunConfig {
        game,
        ..config.clone()
    };
    let (posed, notes) = match pose(&chosen, ProblemKind::Saddle) {
        Ok(posed) => posed,
        Err(_) => (chosen.clone(), Vec::new()),
    };
    let refusal = match plan(&posed) {
        Ok(_) => return (posed, notes),
        Err(e) => e,
    };
    let candidates = game
        .suggested_algorithm()
        .into_iter()
        .chain(FAMILIES.iter().map(|f| f.kind))
        .filter(|kind| family(*kind).solves.contains(&ProblemKind::Saddle));
    for kind in candidates {
        let (picked, mut more) = pick(&chosen, kind);
        if plan(&picked).is_ok() {
            more.insert(
                0,
                format!(
                    "algorithm set to {}: {} cannot run {} ({refusal})",
                    family(kind).card.name,
                    family(config.algorithm).card.name,
                    crate::config::choice_label(&game),
                ),
            );
            return (picked, more);
        }
    }
    (posed, notes)
}

/// What a problem kind needs of the settings before any family's needs: a game's records stream
/// from the seed (no loaded file), and rock–paper–scissors has three strategies.
fn meet_problem_needs(config: &mut RunConfig) -> Vec<String> {
    let mut notes = Vec::new();
    if config.problem != ProblemKind::Saddle {
        return notes;
    }
    if config.data == DataSource::Csv {
        config.data = DataSource::Synthetic;
        notes.push("data set to synthetic: a game's records stream from its seed".to_string());
    }
    if config.game == GameChoice::RockPaperScissors && config.d < 3 {
        config.d = 3;
        notes.push("dimension d set to 3: rock–paper–scissors has three strategies".to_string());
    }
    notes
}

// Beside the menu names it reads, so that `error` stays below the algorithms: a compared
// algorithm's error names it through `Error::in_compare`.
impl crate::error::Compared for AlgorithmKind {
    fn menu_name(self) -> &'static str {
        family(self).card.name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `kind` picked on the defaults (González et al.'s Algorithm 4 raises n so that its candidate
    /// parts can step: `picking_algorithm_4_raises_n_to_where_its_candidates_can_step`).
    fn picked_on_defaults(kind: AlgorithmKind) -> (RunConfig, Vec<String>) {
        pick(&RunConfig::default(), kind)
    }

    #[test]
    fn every_family_picked_on_default_settings_plans_a_run() {
        // Five of eleven did not run on the defaults when picked from the menu.
        for family in FAMILIES {
            let (config, notes) = picked_on_defaults(family.kind);
            config
                .validate()
                .unwrap_or_else(|e| panic!("{:?} after {notes:?}: {e}", family.kind));
            plan(&config).unwrap_or_else(|e| panic!("{:?} after {notes:?}: {e}", family.kind));
            // A note for every change, and none when nothing changed.
            let changed = RunConfig {
                epsilon: RunConfig::default().epsilon,
                ..config.clone()
            } != RunConfig {
                algorithm: family.kind,
                ..RunConfig::default()
            };
            assert_eq!(changed, !notes.is_empty(), "{:?}: {notes:?}", family.kind);
        }
    }

    #[test]
    fn a_family_refuses_a_problem_kind_it_cannot_solve_before_any_data_are_read() {
        // A loaded-file config with no file: reaching the data would fail at `csv`/`data`, so an
        // error at `problem` proves the refusal comes first.
        for family in FAMILIES {
            // The kind it does not solve (González, Guzmán & Paquette 2024's families solve games only).
            let other = if family.solves.contains(&ProblemKind::Saddle) {
                ProblemKind::Minimisation
            } else {
                ProblemKind::Saddle
            };
            let config = RunConfig {
                problem: other,
                data: crate::config::DataSource::Csv,
                // Rock–paper–scissors needs three strategies: a valid game, so only the
                // family's refusal is left to fail.
                d: 3,
                ..pick(&RunConfig::default(), family.kind).0
            };
            let refused = crate::session::Lab::new(config, None)
                .err()
                .expect("refused");
            assert_eq!(
                refused.field(),
                Some("problem"),
                "{:?}: {refused}",
                family.kind
            );
        }
    }

    #[test]
    fn picking_a_family_meets_its_needs_and_says_what_changed_and_why() {
        // Without the default's ridge, so that the pick has a need to meet.
        let bare = RunConfig {
            l2: 0.0,
            ..RunConfig::default()
        };
        let (config, notes) = pick(&bare, AlgorithmKind::OutputPerturbation);
        assert!(config.l2 > 0.0);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].starts_with("ridge l2 set to"), "{notes:?}");
        assert!(notes[0].contains("strongly convex"), "{notes:?}");
        // A setting the family does not need is left alone, and a met need says nothing.
        let (again, notes) = pick(&config, AlgorithmKind::OutputPerturbation);
        assert_eq!((again, notes.len()), (config, 0));
        // DP-SVRG++'s doubling epochs: the default T = 200 would be 2^201·m releases.
        let (svrg, notes) = pick(&RunConfig::default(), AlgorithmKind::DpSvrgPlusPlus);
        assert!(svrg.steps <= 12, "{}", svrg.steps);
        assert!(notes.iter().any(|n| n.contains("double")), "{notes:?}");
        // A loaded file's dimension is the file's: the grid mechanism's d ≤ 2 stays unmet there,
        // and validation names `d`.
        let file = RunConfig {
            data: crate::config::DataSource::Csv,
            d: 5,
            ..RunConfig::default()
        };
        let (grid, _) = pick(&file, AlgorithmKind::ExponentialGrid);
        assert_eq!(grid.d, 5);
        assert_eq!(grid.validate().unwrap_err().field(), Some("d"));
    }

    #[test]
    fn every_number_that_feeds_the_noise_is_checked_finite_before_the_run() {
        // A step 1/β of ∞, a sensitivity of ∞ and σ = ∞ each reached a run.
        // The ranges of `validate` now keep the settings clear of them; this backstop catches
        // any that slips through, at a page control, for every family.
        let planned = plan(&RunConfig::default()).unwrap().preview;
        type Spoil = fn(&mut Preview);
        let spoiled: [(Spoil, Control); 6] = [
            (|p| p.sigma = f64::INFINITY, Control::FeatureBound),
            (|p| p.sensitivity = f64::NAN, Control::FeatureBound),
            (|p| p.lipschitz = f64::INFINITY, Control::FeatureBound),
            (|p| p.draws[0].sensitivity = 0.0, Control::FeatureBound),
            (
                |p| {
                    p.draws[0].noise = NoiseShape::Gaussian {
                        sigma: f64::INFINITY,
                        d: 2,
                    }
                },
                Control::FeatureBound,
            ),
            (|p| p.step_size = Some(f64::INFINITY), Control::StepSize),
        ];
        for (spoil, control) in spoiled {
            let mut preview = planned.clone();
            spoil(&mut preview);
            let e = finite_noise(&preview).unwrap_err();
            assert_eq!(e.field().and_then(Control::of), Some(control), "{e}");
        }
        // Every family's own preview on the defaults passes.
        for family in FAMILIES {
            let config = picked_on_defaults(family.kind).0;
            finite_noise(&plan(&config).unwrap().preview).unwrap();
        }
    }

    #[test]
    fn an_unmet_need_of_a_compared_algorithm_is_named_at_compare() {
        let config = RunConfig {
            compare: vec![AlgorithmKind::OutputPerturbation],
            l2: 0.0,
            ..RunConfig::default()
        };
        let e = config.validate().unwrap_err();
        assert_eq!(e.field(), Some("compare"), "{e}");
        assert!(e.to_string().contains("ridge"), "{e}");
    }

    #[test]
    fn switching_the_problem_menu_picks_an_algorithm_that_solves_it_and_meets_its_needs() {
        let start = RunConfig {
            compare: vec![AlgorithmKind::DpSgd],
            ..RunConfig::default()
        };
        let (game, notes) = pose(&start, ProblemKind::Saddle).unwrap();
        let solver = family(game.algorithm);
        assert!(solver.solves.contains(&ProblemKind::Saddle), "{notes:?}");
        assert_eq!(
            game.algorithm,
            FAMILIES
                .iter()
                .find(|f| f.solves.contains(&ProblemKind::Saddle))
                .unwrap()
                .kind
        );
        assert_eq!((game.problem, game.d), (ProblemKind::Saddle, 3));
        assert!(game.compare.is_empty(), "DP-SGD solves no game");
        for words in [
            "algorithm set to",
            "dimension d set to 3",
            "compared algorithms",
        ] {
            assert!(
                notes.iter().any(|n| n.contains(words)),
                "{words}: {notes:?}"
            );
        }
        // The posed game runs as picked.
        plan(&game).unwrap();
        // And back: a minimisation algorithm again; a family that solves the kind stays.
        let (back, notes) = pose(&game, ProblemKind::Minimisation).unwrap();
        assert!(
            family(back.algorithm)
                .solves
                .contains(&ProblemKind::Minimisation)
        );
        plan(&back).unwrap();
        assert!(notes[0].starts_with("algorithm set to"), "{notes:?}");
        let (same, notes) = pose(&start, ProblemKind::Minimisation).unwrap();
        assert_eq!((same.algorithm, notes.len()), (start.algorithm, 0));
        // A loaded file is for minimisation: a game switches to the seed's records.
        let csv = RunConfig {
            data: DataSource::Csv,
            ..start
        };
        let (game, notes) = pose(&csv, ProblemKind::Saddle).unwrap();
        assert_eq!(game.data, DataSource::Synthetic);
        assert!(notes.iter().any(|n| n.contains("synthetic")), "{notes:?}");
    }

    #[test]
    fn unclipped_heavy_game_records_say_not_private_before_the_run_whatever_the_family() {
        for family in FAMILIES
            .iter()
            .filter(|f| f.solves.contains(&ProblemKind::Saddle))
        {
            let (game, _) = picked_on_defaults(family.kind);
            let heavy = RunConfig {
                records: crate::config::RecordChoice::Heavy,
                tail: crate::data::Tail::StudentT { nu: 3.0 },
                ..game
            };
            let clipped = plan(&heavy).unwrap();
            let bare = RunConfig {
                clip_records: false,
                ..heavy
            };
            let unclipped = plan(&bare).unwrap();
            let leak = game_leak(&bare).unwrap();
            assert!(
                !clipped.preview.leaks.iter().any(|l| l == leak),
                "{:?}",
                family.kind
            );
            assert!(
                unclipped.preview.leaks.iter().any(|l| l == leak),
                "{:?}",
                family.kind
            );
            assert!(!unclipped.preview.is_private());
        }
    }

    #[test]
    fn a_family_shows_the_pitfall_toggle_exactly_when_it_has_a_demonstration() {
        // The page shows a setting's control only while a family reads it: a demonstration the
        // family does not list under `leak` could never be switched on.
        for family in FAMILIES {
            assert_eq!(
                family.takes(Control::Leak),
                family.demonstration != Demonstration::None,
                "{:?}",
                family.kind
            );
        }
    }
}
