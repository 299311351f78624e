//! Single mechanisms (Gaussian and Laplace on a clipped mean) rather than whole algorithms: the
//! smallest targets, where a planted bug's effect on ε can be checked by hand.

use super::{Auditable, Bug, Side};
use crate::error::{Error, Result};
use crate::noise::{Gaussian, L2Laplace, Laplace};
use crate::privacy::calibration::{
    GaussianMethod, analytic_gaussian_sigma, classical_gaussian_sigma, laplace_scale,
    zwb_gaussian_sigma,
};
use crate::privacy::{ApproxDp, Relation};
use crate::rng::DpRng;

/// Only output perturbation has a certificate to skip.
fn refuse_certificate_bug(bug: Bug) -> Result<()> {
    if bug == Bug::CertificateSkipped {
        return Err(Error::invalid(
            "bug",
            "none, noise_halved or clipping_skipped for a mean mechanism",
            "certificate_skipped",
        ));
    }
    Ok(())
}

/// The worst-case pair for a clipped mean of n scalars with bound C under replace-one:
/// D = (C, 0, …, 0) and D′ = (−K·C, 0, …, 0) with K = 20. After clipping, the means differ by
/// exactly the sensitivity 2C/n; without clipping they differ by 21C/n. (Without clipping the
/// sensitivity is unbounded, so an auditor picks a far-out record; 20C is far enough to make
/// the violation unmistakable with 10⁴ runs.)
#[derive(Debug, Clone, PartialEq)]
struct MeanPair {
    n: usize,
    bound: f64,
}

impl MeanPair {
    const OUT_OF_BOUND: f64 = 20.0;

    fn new(n: usize, bound: f64) -> Result<Self> {
        if n == 0 {
            return Err(Error::invalid("n", "at least 1 record", 0));
        }
        crate::privacy::check_sensitivity(bound)
            .map_err(|_| Error::invalid("clip_bound", "a finite number > 0", bound))?;
        Ok(Self { n, bound })
    }

    fn sensitivity(&self) -> f64 {
        2.0 * self.bound / self.n as f64
    }

    /// The clipped (or, with the bug, unclipped) mean on one side. Only one record differs from
    /// 0, so the mean is that record over n.
    fn mean(&self, side: Side, bug: Bug) -> f64 {
        let x = match side {
            Side::D => self.bound,
            Side::DPrime => -Self::OUT_OF_BOUND * self.bound,
        };
        let x = if bug == Bug::ClippingSkipped {
            x
        } else {
            x.clamp(-self.bound, self.bound)
        };
        x / self.n as f64
    }
}

/// The Gaussian mechanism on a clipped mean of n scalars in [−C, C] (replace-one,
/// Δ = 2C/n), calibrated by one of the three Gaussian calibrations.
#[derive(Debug, Clone, PartialEq)]
pub struct GaussianMeanTarget {
    pair: MeanPair,
    claim: ApproxDp,
    noise: Gaussian,
    bug: Bug,
}

impl GaussianMeanTarget {
    /// n records, clip bound C, target (ε, δ), calibration method, planted bug.
    pub fn new(
        n: usize,
        clip_bound: f64,
        epsilon: f64,
        delta: f64,
        method: GaussianMethod,
        bug: Bug,
    ) -> Result<Self> {
        refuse_certificate_bug(bug)?;
        let pair = MeanPair::new(n, clip_bound)?;
        let s = pair.sensitivity();
        let sigma = match method {
            GaussianMethod::Classical => classical_gaussian_sigma(s, epsilon, delta)?,
            GaussianMethod::Zwb => zwb_gaussian_sigma(s, epsilon, delta)?,
            GaussianMethod::Analytic => analytic_gaussian_sigma(s, epsilon, delta)?,
        };
        let sigma = if bug == Bug::NoiseHalved {
            sigma / 2.0
        } else {
            sigma
        };
        Ok(Self {
            pair,
            claim: ApproxDp::new(epsilon, delta, Relation::ReplaceOne)?,
            noise: Gaussian::new(sigma)?,
            bug,
        })
    }
}

impl Auditable for GaussianMeanTarget {
    fn claim(&self) -> ApproxDp {
        self.claim
    }

    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64> {
        Ok(self.pair.mean(side, self.bug) + self.noise.sample(rng))
    }
}

/// The Laplace mechanism on a clipped mean of n scalars in [−C, C] (replace-one, Δ = 2C/n,
/// scale Δ/ε), pure ε-DP. With `dimension` > 1 the records are C·e₁-type vectors and the
/// release uses the ℓ2-Laplace; the statistic is the first coordinate (the direction of D − D′).
#[derive(Debug, Clone, PartialEq)]
pub struct LaplaceMeanTarget {
    pair: MeanPair,
    claim: ApproxDp,
    scale: f64,
    dimension: usize,
    buffer: Vec<f64>,
    bug: Bug,
}

impl LaplaceMeanTarget {
    /// n records, clip bound C, target ε, dimension d ≥ 1, planted bug.
    pub fn new(
        n: usize,
        clip_bound: f64,
        epsilon: f64,
        dimension: usize,
        bug: Bug,
    ) -> Result<Self> {
        refuse_certificate_bug(bug)?;
        let pair = MeanPair::new(n, clip_bound)?;
        if dimension == 0 {
            return Err(Error::invalid("dimension", "d ≥ 1", 0));
        }
        let scale = laplace_scale(pair.sensitivity(), epsilon)?;
        let scale = if bug == Bug::NoiseHalved {
            scale / 2.0
        } else {
            scale
        };
        Ok(Self {
            pair,
            claim: ApproxDp::new(epsilon, 0.0, Relation::ReplaceOne)?,
            scale,
            dimension,
            buffer: vec![0.0; dimension],
            bug,
        })
    }
}

impl Auditable for LaplaceMeanTarget {
    fn claim(&self) -> ApproxDp {
        self.claim
    }

    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64> {
        let mean = self.pair.mean(side, self.bug);
        if self.dimension == 1 {
            Ok(mean + Laplace::new(self.scale)?.sample(rng))
        } else {
            L2Laplace::new(self.scale)?.fill(rng, &mut self.buffer)?;
            Ok(mean + self.buffer[0])
        }
    }
}
