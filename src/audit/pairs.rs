//! What every whole-algorithm target shares: a one-dimensional neighbouring pair and the
//! configuration it starts from. One copy, so the targets differ only in their pair and their
//! family's settings.

use crate::config::{DataSource, RunConfig};
use crate::data::Dataset;
use crate::data::gate::finite_entry;
use crate::error::Result;

/// A one-dimensional neighbouring pair: D starts with `first[0]` (if any), D′ with `first[1]`
/// (if any), and both continue with n − 1 copies of `record` (x, y). The whole-algorithm
/// targets all use pairs of this shape, the differing record first. Every value passes the
/// record gate's entry rule ([`crate::data::gate::finite_entry`]: a pair may hold ±∞ or NaN),
/// and the session clips the records with the same gate, as it does a loaded file's.
pub(super) fn pair_1d(
    first: [Option<(f64, f64)>; 2],
    n: usize,
    record: (f64, f64),
) -> Result<[Dataset; 2]> {
    let make = |head: Option<(f64, f64)>| -> Result<Dataset> {
        let (mut xs, mut ys): (Vec<f64>, Vec<f64>) = head.into_iter().unzip();
        xs.resize(xs.len() + n.saturating_sub(1), record.0);
        ys.resize(ys.len() + n.saturating_sub(1), record.1);
        xs.iter_mut()
            .chain(&mut ys)
            .for_each(|v| *v = finite_entry(*v));
        Dataset::from_samples(1, xs, ys)
    };
    Ok([make(first[0])?, make(first[1])?])
}

/// The pair of DP-AccMD's and output perturbation's audits: n − 1 shared records (x = 0, y = 0),
/// whose loss does not depend on w, and the differing record (1, +10) in D, (1, −10) in D′.
/// Under the Huber loss (threshold 1) or the absolute loss, on a ball of radius < 9, its
/// residual stays beyond the threshold, so its gradient is the constant ∓G: the two mean
/// gradients differ by exactly 2G/n everywhere.
pub(super) fn tail_gradient_pair(n: usize) -> Result<[Dataset; 2]> {
    pair_1d([Some((1.0, 10.0)), Some((1.0, -10.0))], n, (0.0, 0.0))
}

/// The page's defaults on a loaded one-dimensional file of n records at (ε, δ): logistic loss,
/// feature bound 1, replace-one, the full batch (the default 64 may exceed n). A test sets the
/// settings it varies on top (steps, batch, `leak` …) and hands the result to a target, which
/// sets the family and what its pair needs.
pub fn base_config(n: usize, epsilon: f64, delta: f64) -> RunConfig {
    RunConfig {
        data: DataSource::Csv,
        n,
        d: 1,
        epsilon,
        delta,
        batch: n,
        ..RunConfig::default()
    }
}
