//! Every algorithm family, in menu order, and the plan of a lane from its typed settings (checking
//! a whole configuration against a family and picking one from the menu are `config::menu`'s).
//!
//! Adding an algorithm: its file (declaring a [`Family`](super::family::Family)) and one line in
//! the `algorithms!` table of `algo/mod.rs` ([`super::kinds`] holds the macro), which makes its
//! [`AlgorithmKind`], its place in [`FAMILIES`] and the menu.
//! Nothing in `session/`, `catalog.rs` or `www/` names an algorithm.

use super::family::{Plan, Preview, same_promise};
use super::kinds::AlgorithmKind;
use super::route::at_control;
use super::run::Run;
use super::settings::Settings;
use super::{NoiseShape, same_law};
use crate::algo::problem::{Posed, ProblemDeclaration};
use crate::controls::Control;
use crate::error::{Error, Result};
use crate::privacy::Rdp;
use crate::privacy::calibration::{GaussianRow, compare_gaussian};
use crate::rng::DpRng;
use crate::theory::curve::Curve;

pub use super::kinds::{FAMILIES, family};

/// The plan of a lane from its typed `settings` and the `declared` problem: its guarantee, noise
/// law and theory, before any data are read. Errors name the page's control for the setting at
/// fault ([`at_control`]). The family's needs are checked before, on the whole configuration
/// (`config::menu::plan`).
pub fn plan(settings: &Settings, declared: &ProblemDeclaration) -> Result<Planned> {
    let mut planned = (family(settings.kind).plan)(settings, declared).map_err(at_control)?;
    // A game's own demonstration (records left unclipped) voids whatever the family promises.
    if let Some(leak) = settings.game.as_ref().and_then(|g| g.declaration.leak) {
        planned.preview.leaks.push(leak.to_string());
    }
    finite_noise(&planned.preview)?;
    planned.preview.single_release = single_release(&planned.preview)?;
    Ok(planned)
}

/// Every number that feeds the noise, checked once for every family before any run: σ, each
/// draw's scale and sensitivity, and the step size must be finite and > 0 (without this check a step
/// 1/β of ∞, a sensitivity of ∞ and σ = ∞ each released NaN, ∞ or a noiseless point). The ranges of
/// `RunConfig::validate` keep the settings inside what the families serve; this is the backstop
/// that names the control setting the offending number.
pub fn finite_noise(preview: &Preview) -> Result<()> {
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

// Beside the menu names it reads, so that `error` stays below the algorithms: a compared
// algorithm's error names it through `Error::in_compare`.
impl crate::error::Compared for AlgorithmKind {
    fn menu_name(self) -> &'static str {
        family(self).card.name
    }
}
