//! How much one step of a run may do, and a count of the work its gradient count does not show.
//!
//! The page advances a run in slices (`Session::advance` with a budget of ~8 ms): the slice
//! checks its clock between steps, so it overruns its budget by at most one step, and a step must
//! be short. Work is measured in **numbers read**: a record gradient at dimension d reads d
//! numbers, so a full pass over the data reads n·d ≤ `config::MAX_ENTRIES`. A step that
//! chooses how much to do (iterations of a certified solve on a small block, grid points to
//! score) does about [`STEP_WORK`] numbers' worth; a step that cannot be split (one full
//! gradient, one point's score) does at most a few passes over the data, bounded by n·d at
//! validation.
//!
//! Most steps read records and count them (`grad_evals`, in passes over the data). Where an
//! iteration also costs work that reads no record (a projection, a bisection, the iterate's own
//! bookkeeping, on blocks of a few records that work dominates), it is charged here, so a test
//! can add the two and hold every step to a cap without a clock ([`charged`]).
//!
//! The meter is per thread and only counts: nothing reads it to compute a number a run publishes.

use std::cell::Cell;

/// Numbers one step reads (or their equivalent in fixed work) when it can choose how much:
/// 2¹⁷, about 2 ms natively at the test build's optimisation and well under the page's slice in
/// a release build.
pub const STEP_WORK: usize = 1 << 17;

thread_local! {
    static CHARGED: Cell<u64> = const { Cell::new(0) };
}

/// Charges `numbers` of work that reads no record (saturating).
pub fn charge(numbers: usize) {
    CHARGED.with(|c| c.set(c.get().saturating_add(numbers as u64)));
}

/// The work charged on this thread so far; the difference across a step is the step's.
pub fn charged() -> u64 {
    CHARGED.with(Cell::get)
}

/// How many units of `unit` numbers each one step does: as many as fit [`STEP_WORK`], at least
/// one (a unit is indivisible) and at most `most`.
pub fn per_step(unit: usize, most: usize) -> usize {
    (STEP_WORK / unit.max(1)).clamp(1, most.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_does_as_many_units_as_fit_and_at_least_one() {
        assert_eq!(per_step(1, usize::MAX), STEP_WORK);
        assert_eq!(per_step(0, 64), 64);
        assert_eq!(per_step(STEP_WORK / 4, 64), 4);
        assert_eq!(per_step(STEP_WORK + 1, 64), 1);
        let before = charged();
        charge(5);
        charge(usize::MAX);
        assert!(charged() >= before + 5);
    }
}
