//! The attacker's view's plot: the empirical ROC of a test of "D or D′?" against the trade-off
//! curve the stated guarantee allows, on log–log axes (the low false-positive rates are where a
//! membership attack matters; Carlini et al. 2022).

use serde::Deserialize;

use super::{Floats, check_positive, check_same_len};
use crate::error::Error;

/// The ROC plot.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RocSpec {
    /// The empirical ROC's false-positive rates (0 to 1).
    pub fpr: Floats,
    /// Its true-positive rates.
    pub tpr: Floats,
    /// The allowed curve's false-positive rates.
    pub allowed_fpr: Floats,
    /// The most TPR the guarantee allows at each.
    pub allowed_tpr: Floats,
    /// The smallest FPR and TPR shown (the axes run from it to 1); a rate below it is drawn at it.
    pub floor: f64,
    /// FPRs marked with a dotted vertical line (1 % and 10 %).
    #[serde(default)]
    pub marks: Vec<f64>,
    /// The empirical curve's legend text.
    #[serde(default)]
    pub label: String,
    /// The allowed curve's legend text.
    #[serde(default)]
    pub allowed_label: String,
}

impl RocSpec {
    /// Checks the spec (see the module docs of [`super`]).
    pub fn check(&self) -> Result<(), Error> {
        check_positive("roc.floor", self.floor)?;
        if self.floor >= 0.5 {
            return Err(Error::invalid("roc.floor", "a rate below 0.5", self.floor));
        }
        check_same_len("roc.tpr", &self.tpr, "fpr", &self.fpr)?;
        check_same_len(
            "roc.allowedTpr",
            &self.allowed_tpr,
            "allowedFpr",
            &self.allowed_fpr,
        )?;
        for (i, m) in self.marks.iter().enumerate() {
            if !(m.is_finite() && *m > 0.0 && *m <= 1.0) {
                return Err(Error::invalid(
                    format!("roc.marks[{i}]"),
                    "a rate in (0, 1]",
                    m,
                ));
            }
        }
        if self.marks.len() > 8 {
            return Err(Error::invalid(
                "roc.marks",
                "at most 8 marks",
                self.marks.len(),
            ));
        }
        Ok(())
    }
}
