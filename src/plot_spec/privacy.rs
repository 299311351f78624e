//! The privacy plot's spec: ε spent against steps per algorithm, and the claimed ε.

use serde::Deserialize;

use super::{Floats, check_color, check_positive, check_same_len};
use crate::error::Error;

/// One algorithm's privacy spending.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrivacySeries {
    /// Legend text.
    #[serde(default)]
    pub label: String,
    /// Palette index 0..3.
    #[serde(default)]
    pub color: usize,
    /// Steps.
    pub x: Floats,
    /// ε spent after each step.
    pub eps: Floats,
}

/// The privacy plot.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrivacySpec {
    /// One entry per algorithm.
    pub series: Vec<PrivacySeries>,
    /// The claimed ε, a dashed line; `null` when the run claims no privacy (a non-private
    /// baseline's ε = ∞), and the caption says so.
    #[serde(default)]
    pub target: Option<f64>,
    /// The x axis's maximum (e.g. the planned number of steps); by default the data's.
    #[serde(default)]
    pub span: Option<f64>,
    /// Pinned runs' spending, faded; the axes hold them too.
    #[serde(default)]
    pub pinned: Vec<PrivacySeries>,
}

impl PrivacySpec {
    /// Checks the spec (see the module docs of [`super`]).
    pub fn check(&self) -> Result<(), Error> {
        if let Some(target) = self.target {
            check_positive("privacy.target", target)?;
        }
        if let Some(span) = self.span {
            check_positive("privacy.span", span)?;
        }
        super::pinned::check_count(
            "privacy.pinned",
            self.pinned.len(),
            super::pinned::MAX_PINNED_SERIES,
        )?;
        let all = self.series.iter().map(|s| ("series", s));
        let pinned = self.pinned.iter().map(|s| ("pinned", s));
        for (i, (key, s)) in all.enumerate().chain(pinned.enumerate()) {
            check_color(&format!("privacy.{key}[{i}].color"), s.color)?;
            check_same_len(&format!("privacy.{key}[{i}].eps"), &s.eps, "x", &s.x)?;
        }
        Ok(())
    }
}
