//! One DP-SGD epoch taken apart for the benchmark (`bench`): each [`Part`] runs one
//! piece of every step of a run — the batch draws, the clipped sums, the noise draws, the update
//! with its report — with the step's own code, so that the parts' times add up to about the
//! epoch's and show where a browser loses time against native code. Nothing here is a release:
//! the runs are timed, never published, and a run taken apart is not stepped again.

use super::DpSgd;
use crate::algo::PrivateAlgorithm;
use crate::objective::Objective;

/// A piece of every DP-SGD step (see [`PrivateAlgorithm::step`] for [`DpSgd`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The Poisson batch: geometric gaps, one uniform and one logarithm per member.
    Batches,
    /// The clipped sum of the batch's per-sample gradients (the fused kernel), on the batches of
    /// a real epoch ([`DpSgd::record_epoch`]).
    ClippedSums,
    /// The Gaussian noise on the sum, d draws.
    Noise,
    /// The update, the prox and the step's report (the ε schedule, the norms).
    Update,
}

impl DpSgd {
    /// Steps this run through all its steps and returns the batch of each: the untimed set-up of
    /// [`Part::ClippedSums`], which then runs at the iterate an epoch ends at.
    pub fn record_epoch(&mut self, objective: &Objective) -> Vec<Vec<usize>> {
        let mut batches = Vec::with_capacity(self.config.steps);
        while self.step(objective).is_some() {
            batches.push(self.batch.clone());
        }
        batches
    }

    /// Runs `part` of every step of this run (of every batch of `batches` for
    /// [`Part::ClippedSums`]); returns a number computed from the results, so that no work can
    /// be optimised away.
    pub fn run_part(
        &mut self,
        part: Part,
        objective: &Objective,
        batches: &[Vec<usize>],
    ) -> f64 {
        let steps = self.config.steps;
        let mut check = 0.0;
        match part {
            Part::Batches => {
                for _ in 0..steps {
                    self.draw_batch();
                    check += self.batch.len() as f64;
                }
            }
            Part::ClippedSums => {
                for batch in batches {
                    self.batch.clone_from(batch);
                    let (value, clipped) = self.clipped_sum(objective);
                    check += value + clipped as f64 + self.sum[0];
                }
            }
            Part::Noise => {
                for _ in 0..steps {
                    self.draw_noise();
                    check += self.noise[0];
                }
            }
            Part::Update => {
                for _ in 0..steps {
                    check += self.update(objective, 0.0, 0).epsilon_spent;
                }
            }
        }
        check
    }
}
