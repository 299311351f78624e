//! Validation's range checks, read from the table of controls ([`crate::controls`]): a number
//! against its row's range, or against a range a cross-field rule narrows. The playground's
//! `config` validates through them; here, below `config`, so that the methods sit on
//! [`Control`] in the crate that defines it.

use crate::controls::{Control, Kind::*};
use crate::error::{Error, Result};

impl Control {
    /// Checks a number against the row's range: a finite number in [min, max] (0, or one in
    /// [min, max), for [`crate::controls::Kind::ZeroOr`]), else an error naming the control
    /// and the range.
    pub fn check(self, v: f64) -> Result<()> {
        match self.row().kind {
            ZeroOr { min, max } if v != 0.0 && !(v >= min && v < max) => Err(Error::invalid(
                self.id(),
                format!("0 (pure ε) or a number in [{min:e}, {max})"),
                v,
            )),
            ZeroOr { .. } => Ok(()),
            _ => {
                let (lo, hi) = self.range().unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
                self.check_within(v, lo, hi)
            }
        }
    }

    /// Checks a number against [lo, hi], a range a cross-field rule narrows from the row's.
    pub fn check_within(self, v: f64, lo: f64, hi: f64) -> Result<()> {
        if v.is_finite() && v >= lo && v <= hi {
            Ok(())
        } else {
            Err(Error::invalid(
                self.id(),
                format!("a number in [{lo}, {hi}]"),
                v,
            ))
        }
    }

    /// Checks a whole number against the row's range, or against `hi` where a cross-field rule
    /// lowers the largest value (the batch at most n).
    pub fn check_count(self, v: usize, hi: Option<usize>) -> Result<()> {
        let (lo, max) = self.range().unwrap_or((0.0, f64::MAX));
        self.check_count_within(v, lo as usize, hi.unwrap_or(max as usize))
    }

    /// Checks a whole number against [lo, hi], a range a cross-field rule sets.
    pub fn check_count_within(self, v: usize, lo: usize, hi: usize) -> Result<()> {
        if (lo..=hi).contains(&v) {
            Ok(())
        } else {
            Err(Error::invalid(
                self.id(),
                format!("an integer in [{lo}, {hi}]"),
                v,
            ))
        }
    }
}
