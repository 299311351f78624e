//! A family's [`Need`]s checked against, and met on, a whole configuration: the error at the
//! control a person changes, and what picking the family from the menu sets. The needs are data
//! a family declares (in `algo`); what they ask of a [`RunConfig`] is said here.

use serde::Serialize;

use super::{DataSource, RunConfig};
use crate::algo::family::Need;
use crate::controls::choice_label;
use crate::error::{Error, Result};
use crate::loss::{Glm, Wrap};
use crate::solver::SolverKind;

/// The error when `config` does not meet this need, at the field a person changes.
pub fn check(need: &Need, config: &RunConfig) -> Result<()> {
    match *need {
        Need::Ridge { why, .. } if config.l2 <= 0.0 => Err(Error::invalid(
            "l2",
            format!("raise it above 0: {why}"),
            config.l2,
        )),
        Need::Domains { allowed, why } if !allowed.contains(&config.domain) => {
            let names: Vec<String> = allowed.iter().map(choice_label).collect();
            Err(Error::invalid(
                "domain",
                format!("choose {}: {why}", names.join(" or ")),
                choice_label(&config.domain),
            ))
        }
        Need::SmoothSolver { why }
            if matches!(
                config.solver,
                SolverKind::Subgradient | SolverKind::StochasticSubgradient
            ) =>
        {
            Err(Error::invalid(
                "solver",
                format!("choose GD, AGD, SGD, SVRG or Katyusha: {why}"),
                choice_label(&config.solver),
            ))
        }
        Need::Logistic { why } if config.loss != Glm::Logistic => Err(Error::invalid(
            "loss",
            format!("choose the logistic loss: {why}"),
            choice_label(&config.loss),
        )),
        Need::SmoothLoss { why } if !config.loss.is_smooth() => Err(Error::invalid(
            "loss",
            format!("choose a smooth loss (logistic, smoothed hinge, squared or Huber): {why}"),
            choice_label(&config.loss),
        )),
        Need::PolyhedralLoss { why }
            if !matches!(config.loss, Glm::Hinge | Glm::Absolute { .. }) =>
        {
            Err(Error::invalid(
                "loss",
                format!("choose the absolute value or hinge loss: {why}"),
                choice_label(&config.loss),
            ))
        }
        // The aggregation's control sits under the loss's, which shows its errors.
        Need::PlainErm { why } if config.wrap != Wrap::None => Err(Error::invalid(
            "loss",
            format!("choose the aggregation mean (ERM): {why}"),
            choice_label(&config.wrap),
        )),
        Need::NotTilted { why } if matches!(config.wrap, Wrap::Tilted { .. }) => {
            Err(Error::invalid(
                "loss",
                format!("choose the aggregation mean (ERM) or adversarially robust: {why}"),
                "tilted ERM",
            ))
        }
        Need::MaxSteps { max, why, .. } if config.steps > max => Err(Error::invalid(
            "steps",
            format!("lower it to at most {max}: {why}"),
            config.steps,
        )),
        Need::MaxDimension { max, why } if config.d > max => Err(Error::invalid(
            "d",
            format!("lower it to at most {max}: {why}"),
            config.d,
        )),
        Need::MinRecords { min, why, .. } if config.n < min => Err(Error::invalid(
            "n",
            format!("raise it to at least {min}: {why}"),
            config.n,
        )),
        Need::NoLasso { why } if config.l1 != 0.0 => Err(Error::invalid(
            "l1",
            format!("set it to 0: {why}"),
            config.l1,
        )),
        // A game whose moduli are its own (AUC maximisation): no setting can meet the need,
        // the game must change.
        Need::GameModuli { x, why, .. } if config.game.own_moduli() => {
            let own = config.game_declaration().constants;
            if (x && own.mu_x <= 0.0) || own.mu_y <= 0.0 {
                return Err(Error::invalid(
                    "game",
                    format!(
                        "choose a game strongly convex in x, or another algorithm: {why}, and \
                         this game's moduli are its own (μₓ = {}, μᵧ = {}), not the μ settings",
                        own.mu_x, own.mu_y
                    ),
                    choice_label(&config.game),
                ));
            }
            Ok(())
        }
        Need::GameModuli { x: true, why, .. } if config.mu_x <= 0.0 => Err(Error::invalid(
            "mu_x",
            format!("raise it above 0: {why}"),
            config.mu_x,
        )),
        Need::GameModuli { why, .. } if config.mu_y <= 0.0 => Err(Error::invalid(
            "mu_y",
            format!("raise it above 0: {why}"),
            config.mu_y,
        )),
        _ => Ok(()),
    }
}

/// Changes `config` so that it meets this need, and says what changed and why (`None` when
/// it was already met). A loaded file's dimension is not the page's to change: a need of
/// d ≤ max on a file stays unmet, and the run says so at `d`.
pub fn meet(need: &Need, config: &mut RunConfig) -> Option<String> {
    // A record need is met up to what the settings ask, above the bare minimum `check` asks.
    if !matches!(need, Need::MinRecords { .. }) {
        check(need, config).err()?;
    }
    let (what, why) = match *need {
        Need::Ridge { value, why } => {
            config.l2 = value;
            (format!("ridge l2 set to {value}"), why)
        }
        Need::Domains { allowed, why } => {
            config.domain = allowed[0];
            (format!("domain set to {}", serde_name(&allowed[0])), why)
        }
        Need::SmoothSolver { why } => {
            config.solver = SolverKind::Agd;
            ("base solver set to agd".to_string(), why)
        }
        Need::Logistic { why } | Need::SmoothLoss { why } => {
            config.loss = Glm::Logistic;
            ("loss set to logistic".to_string(), why)
        }
        Need::PolyhedralLoss { why } => {
            config.loss = Glm::absolute();
            ("loss set to absolute value".to_string(), why)
        }
        Need::PlainErm { why } | Need::NotTilted { why } => {
            config.wrap = Wrap::None;
            ("aggregation set to plain ERM".to_string(), why)
        }
        Need::MaxSteps { pick, why, .. } => {
            config.steps = pick;
            (format!("steps set to {pick}"), why)
        }
        Need::MaxDimension { max, why } => {
            if config.data == DataSource::Csv {
                return None;
            }
            config.d = max;
            config.sparsity = config.sparsity.min(max);
            (format!("dimension d set to {max}"), why)
        }
        Need::MinRecords {
            min,
            at_settings,
            why,
        } => {
            // Never above what validation admits (n·d, and a game's n·dₓ·dᵧ, in browser
            // memory): a pick must leave a config that runs; short of the family's n, its plan
            // then says what to change.
            let (dx, dy) = config.game_dims();
            let mut most = super::MAX_ENTRIES / config.d.max(1);
            if config.problem == crate::algo::family::ProblemKind::Saddle {
                most = most.min(super::MAX_GAME_ENTRIES / (dx * dy).max(1));
            }
            let fewest = min
                .max((at_settings.0)(&config.settings(), &config.declaration()))
                .min(most.max(min));
            if config.n >= fewest || config.data == DataSource::Csv {
                return None;
            }
            config.n = fewest;
            (format!("samples n set to {fewest}"), why)
        }
        Need::NoLasso { why } => {
            config.l1 = 0.0;
            ("lasso l1 set to 0".to_string(), why)
        }
        // Its moduli are the game's own: no setting meets the need (the plan says so).
        Need::GameModuli { .. } if config.game.own_moduli() => return None,
        Need::GameModuli { x, value, why } => {
            let mut set = Vec::new();
            if x && config.mu_x <= 0.0 {
                config.mu_x = value;
                set.push("μₓ");
            }
            if config.mu_y <= 0.0 {
                config.mu_y = value;
                set.push("μᵧ");
            }
            (format!("{} set to {value}", set.join(" and ")), why)
        }
    };
    Some(format!("{what}: {why}"))
}

/// A serde enum's snake_case name (the page's option value).
fn serde_name<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}
