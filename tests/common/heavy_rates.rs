//! What the heavy-tail rate experiments (tests/algorithms/heavy_slopes.rs, tests/algorithms/heavy_hard_instance.rs)
//! measure on a run: every lane of a [`Lab`] run as the page runs it, its release scored, and the
//! scores tallied per family as a mean with its standard error.

use dp_playground::config::RunConfig;
use dp_playground::session::Lab;
use dp_playground::session::problem::ReferenceClock;

/// Running sums of one metric over lanes: its mean and the standard error of that mean.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tally {
    sum: f64,
    squares: f64,
    count: usize,
}

impl Tally {
    /// Counts `v` if it is finite (a metric that was not scored is left out, not zero).
    pub fn add(&mut self, v: f64) {
        if v.is_finite() {
            self.sum += v;
            self.squares += v * v;
            self.count += 1;
        }
    }

    /// How many values were counted.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The mean (NaN when nothing was counted).
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            f64::NAN
        } else {
            self.sum / self.count as f64
        }
    }

    /// The standard error of the mean, s/√count (NaN below two values).
    pub fn std_error(&self) -> f64 {
        if self.count < 2 {
            return f64::NAN;
        }
        let k = self.count as f64;
        let variance = (self.squares - self.sum * self.sum / k).max(0.0) / (k - 1.0);
        (variance / k).sqrt()
    }
}

/// Per family: the released excess empirical risk F̂(w) − F̂*, the released excess population
/// risk as the page estimates it (where its estimate on 10n fresh records was within its work
/// cap), the excess at the lane's first point (the centre of W, where every family starts), and
/// the released excess population risk from the caller's exact formula, where it has one.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sums {
    pub empirical: Tally,
    pub population: Tally,
    pub centre: Tally,
    pub exact: Tally,
}

/// A caller's exact excess of a released point.
pub type Score<'a> = &'a dyn Fn(&[f64]) -> f64;

/// Runs every lane of `config` to its release, adding to `sums[algorithm]` (0 the main family,
/// then `compare` in order); `exact`, if given, scores each released point.
pub fn run(config: RunConfig, sums: &mut [Sums], exact: Option<Score>) {
    // The population optimum under the work cap only, not the page's 2 s clock: a loaded machine
    // would otherwise leave it out.
    let mut lab = Lab::with_clock(config.clone(), None, ReferenceClock::WorkOnly)
        .unwrap_or_else(|e| panic!("{config:?}: {e}"));
    let mut started = vec![false; lab.sessions_mut().count()];
    while !lab.is_done() {
        for lane in lab.advance(usize::MAX, || true) {
            let s = &mut sums[lane.algorithm];
            let index = lane.algorithm * config.repeats + lane.repeat;
            if !std::mem::replace(&mut started[index], true)
                && let Some(&first) = lane.batch.excess.first()
            {
                s.centre.add(first);
            }
            if let Some(r) = lane.batch.release.as_ref() {
                s.empirical.add(r.excess.unwrap_or(f64::NAN));
                s.population.add(r.population.map_or(f64::NAN, |e| e.value));
                if let Some(f) = exact {
                    s.exact.add(f(r.w()));
                }
            }
        }
    }
}
