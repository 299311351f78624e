//! The menus of settings a family reads or declares a need on: the constraint set and DP-SVRG's
//! noise. Each serialises to the snake_case key a link and the page's menu use; `config`
//! re-exports them beside its own menus.

use serde::{Deserialize, Serialize};

use crate::domain::DomainKind;

/// The constraint set W.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum DomainChoice {
    /// ‖w‖₂ ≤ radius.
    #[default]
    L2Ball,
    /// ‖w‖₁ ≤ radius.
    L1Ball,
    /// The box [−radius, radius]^d.
    Box,
    /// The probability simplex (radius unused).
    Simplex,
    /// R^d (radius unused).
    Unconstrained,
}

impl DomainChoice {
    /// The set itself, with `radius` (the ball's radius, the box's half-width; ignored by the
    /// simplex and R^d).
    pub fn kind(self, radius: f64) -> DomainKind {
        match self {
            DomainChoice::L2Ball => DomainKind::L2Ball { radius },
            DomainChoice::L1Ball => DomainKind::L1Ball { radius },
            DomainChoice::Box => DomainKind::Box {
                lo: -radius,
                hi: radius,
            },
            DomainChoice::Simplex => DomainKind::Simplex,
            DomainChoice::Unconstrained => DomainKind::Unconstrained,
        }
    }
}

/// DP-SVRG's noise: the paper's formula, or what the accountant certifies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SvrgNoiseChoice {
    /// The σ the RDP accountant certifies for the run's (ε, δ).
    #[default]
    Certified,
    /// The printed σ with c = 8, its small-ε limit: NOT a privacy certificate (Wang, Ye & Xu 2017).
    AsPrinted,
}
