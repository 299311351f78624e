//! Tail moments that the heavy-tailed theory needs (Lowy 2026): G_k = (E A(z)^k)^(1/k) with A(z)
//! the per-sample Lipschitz constant over the domain, and the fraction of samples a declared clip
//! threshold would cut. Closed forms where they exist; otherwise Monte Carlo on a large **fresh**
//! sample from the generator (never the private data), labelled as such with its standard error.

use serde::{Deserialize, Serialize};

use super::generate::{GeneratorSpec, Tail, Task};
use crate::error::{Error, Result};
use crate::linalg::norm2;
use crate::loss::{Glm, Loss, Wrap};
use crate::rng::DpRng;

/// How a moment was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Method {
    ClosedForm,
    /// Monte Carlo over `samples` fresh draws; `std_error` is the standard error of the estimate
    /// (delta method for G_k). With 2k ≥ the tail index the variance is infinite and the
    /// standard error meaningless (Lowy 2026): prefer the closed form there.
    MonteCarlo {
        samples: usize,
        std_error: f64,
    },
    /// A closed-form upper bound (Minkowski's inequality over the declared law): valid wherever
    /// the moment is used, since the theory's assumption E A(z)^k ≤ G_k^k is an inequality.
    UpperBound,
}

/// A moment and how it was obtained. `value` is +∞ when the moment does not exist.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Moment {
    pub value: f64,
    pub method: Method,
}

fn ln_gamma(x: f64) -> f64 {
    libm::lgamma(x)
}

impl Tail {
    /// E‖ξ‖^k for ξ ∈ R^m in closed form (+∞ if it does not exist), k > 0:
    /// - Gaussian: 2^(k/2) Γ((m+k)/2)/Γ(m/2) (chi distribution);
    /// - Student-t: ν^(k/2) Γ((m+k)/2) Γ((ν−k)/2)/(Γ(m/2) Γ(ν/2)) for k < ν (Lowy 2026);
    /// - Pareto-radial: α/(α − k) for k < α; log-normal radial: exp(k²σ²/2);
    /// - contaminated: ((1 − p) + p·s^k)·(Gaussian moment);
    /// - rare outlier (Lowy 2026, Appendix G): p·a^k.
    pub fn norm_moment(&self, m: usize, k: f64) -> f64 {
        let mf = m as f64;
        let chi =
            libm::exp(0.5 * k * libm::log(2.0) + ln_gamma(0.5 * (mf + k)) - ln_gamma(0.5 * mf));
        match *self {
            Tail::Gaussian => chi,
            Tail::StudentT { nu } => {
                if k >= nu {
                    return f64::INFINITY;
                }
                libm::exp(
                    0.5 * k * libm::log(nu) + ln_gamma(0.5 * (mf + k)) + ln_gamma(0.5 * (nu - k))
                        - ln_gamma(0.5 * mf)
                        - ln_gamma(0.5 * nu),
                )
            }
            Tail::ParetoRadial { alpha } => {
                if k >= alpha {
                    f64::INFINITY
                } else {
                    alpha / (alpha - k)
                }
            }
            Tail::LogNormal { sigma } => libm::exp(0.5 * k * k * sigma * sigma),
            Tail::Contaminated { p, scale } => ((1.0 - p) + p * libm::pow(scale, k)) * chi,
            Tail::RareOutlier { p, a } => p * libm::pow(a, k),
        }
    }

    /// P(‖ξ‖ > c) in closed form where the radial law is explicit (Pareto, log-normal); None
    /// otherwise (the χ and F tails need incomplete gamma/beta functions that libm lacks).
    pub fn norm_tail(&self, c: f64) -> Option<f64> {
        match *self {
            Tail::ParetoRadial { alpha } => Some(if c <= 1.0 { 1.0 } else { libm::pow(c, -alpha) }),
            Tail::RareOutlier { p, a } => Some(if c < 0.0 {
                1.0
            } else if c < a {
                p
            } else {
                0.0
            }),
            Tail::LogNormal { sigma } => {
                if c <= 0.0 {
                    Some(1.0)
                } else {
                    Some(0.5 * libm::erfc(libm::log(c) / (sigma * std::f64::consts::SQRT_2)))
                }
            }
            _ => None,
        }
    }
}

/// Monte Carlo over `samples` fresh feature vectors (and labels) of `spec`: mean and standard error
/// of h(x, y).
fn monte_carlo(
    spec: &GeneratorSpec,
    rng: DpRng,
    samples: usize,
    h: impl Fn(&[f64], f64) -> f64,
) -> Result<(f64, f64)> {
    if samples < 2 {
        return Err(Error::invalid("monte_carlo.samples", "at least 2", samples));
    }
    let mut fresh = *spec;
    fresh.n = samples;
    let mut g = super::generate::Generator::new(fresh, rng)?;
    let (mut x, mut y) = (Vec::new(), Vec::new());
    let (mut mean, mut m2, mut count) = (0.0, 0.0, 0.0);
    loop {
        x.clear();
        y.clear();
        if g.next_chunk(4096, &mut x, &mut y) == 0 {
            break;
        }
        for (xi, &yi) in x.chunks_exact(spec.d).zip(&y) {
            // Welford: a stable running mean and variance.
            let v = h(xi, yi);
            count += 1.0;
            let delta = v - mean;
            mean += delta / count;
            m2 += delta * (v - mean);
        }
    }
    Ok((mean, (m2 / (count - 1.0) / count).sqrt()))
}

/// G_k = (E A(z)^k)^(1/k), A(z) = sup_{‖w‖≤radius} ‖∇f(w; z)‖ for the **raw** (unclipped)
/// features of `spec` (Lowy 2026, centred ball).
///
/// Closed form for ERM with a bounded-derivative GLM (|φ'| ≤ c: logistic, hinge, smoothed hinge,
/// absolute c = 1, Huber c = δ), where A ≤ c‖x‖ and the bound is attained as w ranges over the ball
/// in the worst case; G_k = c·scale·(E‖ξ‖^k)^(1/k). Otherwise (squared loss: A = ‖x‖(|y| + R‖x‖);
/// adversarial: A = c(‖x‖ + r); TERM as its base) Monte Carlo with `mc_samples` fresh draws.
pub fn lipschitz_moment(
    spec: &GeneratorSpec,
    loss: &Loss,
    radius: f64,
    k: f64,
    rng: DpRng,
    mc_samples: usize,
) -> Result<Moment> {
    if !(k.is_finite() && k >= 1.0) {
        return Err(Error::invalid("k", "a finite number ≥ 1", k));
    }
    spec.validate()?;
    let c = match loss.glm {
        Glm::Huber { delta, .. } => delta,
        _ => 1.0,
    };
    let adversarial = match loss.wrap {
        Wrap::Adversarial { radius } => radius,
        _ => 0.0,
    };
    if !matches!(loss.glm, Glm::Squared { .. }) && adversarial == 0.0 {
        let mk = spec.features.norm_moment(spec.d, k);
        return Ok(Moment {
            value: c * spec.feature_scale * libm::pow(mk, 1.0 / k),
            method: Method::ClosedForm,
        });
    }
    let squared = matches!(loss.glm, Glm::Squared { .. });
    let (mean, se) = monte_carlo(spec, rng, mc_samples, |x, y| {
        let nx = crate::linalg::norm2(x);
        let a = if squared {
            (nx + adversarial) * (y.abs() + radius * (nx + adversarial))
        } else {
            c * (nx + adversarial)
        };
        libm::pow(a, k)
    })?;
    let value = libm::pow(mean, 1.0 / k);
    // Delta method: d(m^(1/k))/dm = m^(1/k − 1)/k.
    let std_error = se * libm::pow(mean, 1.0 / k - 1.0) / k;
    Ok(Moment {
        value,
        method: Method::MonteCarlo {
            samples: mc_samples,
            std_error,
        },
    })
}

/// G_k of the squared loss ½(⟨x, w⟩ − y)² on the centred ball ‖w‖ ≤ `radius`, for regression data
/// y = ⟨w₀, x⟩ + s·η ([`Task::Regression`]), as a closed-form upper bound that **accounts for the
/// noise** η (Lowy 2026: "for regression, y = ⟨w*, x⟩ + ξ with
/// heavy-tailed noise ξ").
///
/// A(z) = sup_{‖w‖≤R} ‖(⟨x, w⟩ − y)x‖ = (|y| + R‖x‖)‖x‖ ≤ (‖w₀‖ + R)‖x‖² + s|η|‖x‖, so by
/// Minkowski's inequality and the independence of x and η,
///
///   G_k ≤ (‖w₀‖ + R)·(E‖x‖^(2k))^(1/k) + s·(E‖x‖^k)^(1/k)·(E|η|^k)^(1/k),
///
/// every moment in closed form ([`Tail::norm_moment`]; η in R¹: Student-t ν, symmetric Pareto α).
/// +∞ when a moment does not exist (2k ≥ the features' tail index, or k ≥ the noise's). Clipping
/// the features to a bound and the labels to a bound only shrinks ‖x‖ and |y|, so the bound holds
/// for the clipped records too. From the declared law alone, never a sample.
///
/// The absolute loss |⟨x, w⟩ − y| and Huber need no such bound: their A(z) ≤ sup|φ′|·‖x‖ does not
/// read the label, so the noise never enters their G_k ([`lipschitz_moment`]'s closed form).
pub fn squared_loss_moment(spec: &GeneratorSpec, radius: f64, k: f64) -> Result<Moment> {
    if !(k.is_finite() && k >= 1.0) {
        return Err(Error::invalid("k", "a finite number ≥ 1", k));
    }
    if !(radius.is_finite() && radius >= 0.0) {
        return Err(Error::invalid("radius", "a finite number ≥ 0", radius));
    }
    spec.validate()?;
    let Task::Regression { noise, noise_scale } = spec.task else {
        return Err(Error::invalid(
            "loss",
            "a regression task for the squared loss's moment",
            "classification",
        ));
    };
    let scale = spec.feature_scale;
    let root = |m: f64| libm::pow(m, 1.0 / k);
    let signal = norm2(&spec.planted());
    let quadratic =
        (signal + radius) * scale * scale * root(spec.features.norm_moment(spec.d, 2.0 * k));
    let noisy = if noise_scale == 0.0 {
        0.0
    } else {
        noise_scale
            * scale
            * root(spec.features.norm_moment(spec.d, k))
            * root(noise.norm_moment(1, k))
    };
    Ok(Moment {
        value: quadratic + noisy,
        method: Method::UpperBound,
    })
}

/// The probability that a fresh sample's feature norm exceeds the declared clip `threshold`:
/// closed form for Pareto-radial and log-normal features, Monte Carlo otherwise.
pub fn clip_fraction(
    spec: &GeneratorSpec,
    threshold: f64,
    rng: DpRng,
    mc_samples: usize,
) -> Result<Moment> {
    if !(threshold.is_finite() && threshold > 0.0) {
        return Err(Error::invalid(
            "clip_threshold",
            "a finite number > 0",
            threshold,
        ));
    }
    spec.validate()?;
    if spec.feature_scale > 0.0
        && let Some(p) = spec.features.norm_tail(threshold / spec.feature_scale)
    {
        return Ok(Moment {
            value: p,
            method: Method::ClosedForm,
        });
    }
    let (mean, se) = monte_carlo(spec, rng, mc_samples, |x, _| {
        if crate::linalg::norm2(x) > threshold {
            1.0
        } else {
            0.0
        }
    })?;
    Ok(Moment {
        value: mean,
        method: Method::MonteCarlo {
            samples: mc_samples,
            std_error: se,
        },
    })
}
