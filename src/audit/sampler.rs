//! Runs of a target on both sides of its pair, drawn a few at a time: the one loop behind the
//! audit ([`super::audit`]) and the page's chunked jobs (the audit tab and the neighbouring
//! view), which must yield to the worker's event loop between chunks so cancel arrives.

use super::{Auditable, Side};
use crate::error::Result;
use crate::rng::DpRng;

/// The statistics drawn so far: run i on D, then run i on D′, all from one generator, so the
/// draws are the same whether they are made at once or in chunks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PairDraws {
    /// Statistics of the runs on D.
    pub on_d: Vec<f64>,
    /// Statistics of the runs on D′.
    pub on_d_prime: Vec<f64>,
}

impl PairDraws {
    /// No draws yet, with room for `runs_per_side`.
    pub fn with_capacity(runs_per_side: usize) -> Self {
        Self {
            on_d: Vec::with_capacity(runs_per_side),
            on_d_prime: Vec::with_capacity(runs_per_side),
        }
    }

    /// Runs per side drawn so far.
    pub fn len(&self) -> usize {
        self.on_d.len()
    }

    /// Whether nothing was drawn yet.
    pub fn is_empty(&self) -> bool {
        self.on_d.is_empty()
    }

    /// Draws `pairs` more runs on each side of `target`'s pair with `rng`.
    pub fn draw(
        &mut self,
        target: &mut dyn Auditable,
        rng: &mut DpRng,
        pairs: usize,
    ) -> Result<()> {
        for _ in 0..pairs {
            self.on_d.push(target.run(Side::D, rng)?);
            self.on_d_prime.push(target.run(Side::DPrime, rng)?);
        }
        Ok(())
    }
}
