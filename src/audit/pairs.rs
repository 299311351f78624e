//! What every whole-algorithm target shares: a one-dimensional neighbouring pair, the side's
//! member of it, and the released coordinate as statistic. One copy, so the targets differ only
//! in their pair and their algorithm.

use super::Side;
use crate::algo::PrivateAlgorithm;
use crate::data::Dataset;
use crate::error::Result;
use crate::objective::Objective;

/// A one-dimensional neighbouring pair: D starts with `first[0]` (if any), D′ with `first[1]`
/// (if any), and both continue with `shared` copies of `record` (x, y). The whole-algorithm
/// targets all use pairs of this shape, the differing record first.
pub(super) fn pair_1d(
    first: [Option<(f64, f64)>; 2],
    shared: usize,
    record: (f64, f64),
) -> Result<[Dataset; 2]> {
    let make = |head: Option<(f64, f64)>| -> Result<Dataset> {
        let (mut xs, mut ys): (Vec<f64>, Vec<f64>) = head.into_iter().unzip();
        xs.resize(xs.len() + shared, record.0);
        ys.resize(ys.len() + shared, record.1);
        Dataset::new(nalgebra::DMatrix::from_row_slice(1, xs.len(), &xs), ys)
    };
    Ok([make(first[0])?, make(first[1])?])
}

/// The member of a pair that `side` names.
pub(super) fn pick<T>(pair: &[T; 2], side: Side) -> &T {
    match side {
        Side::D => &pair[0],
        Side::DPrime => &pair[1],
    }
}

/// Runs `alg` to its release and returns the released first coordinate, the statistic of every
/// whole-algorithm target (the pairs are one-dimensional).
pub(super) fn release_1d(alg: &mut dyn PrivateAlgorithm, objective: &Objective) -> f64 {
    while alg.step(objective).is_some() {}
    alg.current()[0]
}
