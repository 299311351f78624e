//! What one ε-DP call on n records reads, every number declared before the data: the shared
//! part of the plans of EM-PGM ([`super::em_pgm::EmPgmPlan`]), Algorithm 7
//! ([`super::approx_em::ApproxEmPlan`]) and the single-stage output perturbation
//! ([`super::single_stage::SingleStagePlan`]). Inside Algorithm 1 a call's n is its block's m_t,
//! its C and λ the phase's C_t and λ_t ([`super::em_phases`]).

use super::extension::Extension;
use crate::loss::Glm;

/// The declared side of one call: none of it from the sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CallDeclared {
    /// ε of the whole call.
    pub epsilon: f64,
    /// n, public.
    pub n: usize,
    /// d.
    pub d: usize,
    /// The threshold C of the Lipschitz extension.
    pub clip: f64,
    /// λ of the ridge around the call's centre w₀.
    pub lambda: f64,
    /// The problem's ridge l2.
    pub l2: f64,
    /// R of W = B(0, R).
    pub radius: f64,
    /// The loss (smooth, bounded derivative).
    pub loss: Glm,
    /// The declared G_k and k, for the ledger.
    pub moment: (f64, f64),
}

impl CallDeclared {
    /// The R^d Lipschitz extension f_C of the loss at the declared threshold.
    pub fn extension(&self) -> Extension {
        Extension {
            glm: self.loss,
            threshold: self.clip,
        }
    }
}
