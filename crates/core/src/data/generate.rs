//! Seeded generators for classification and regression with heavy-tailed features and noise,
//! producing samples in chunks (so a browser worker can yield between chunks) with the same bits
//! as one-shot generation.
//!
//! Draw order, per sample: the d feature coordinates (by the tail's own recipe below), then the
//! label draws (classification: one uniform for the link, one for the flip; regression: the noise
//! draws). Everything transcendental goes through `libm` (rand_distr 0.6 does too), so native and
//! wasm32 give identical bits.

use rand::RngExt;
use rand_distr::{Distribution, Gamma, StandardNormal};
use serde::{Deserialize, Serialize};

use super::Dataset;
use super::gate::{finite_entries, finite_entry};
use crate::error::{Error, Result};
use crate::linalg::{dot, norm2};
use crate::rng::DpRng;

/// Largest n·d a generator or CSV loader accepts: 2²⁵ values (256 MiB of f64), which covers
/// n = 10⁶ at d = 20 and n = 10⁵ at d = 100 with room to spare inside a browser tab.
pub const MAX_VALUES: usize = 1 << 25;

/// The smallest Student-t ν and Pareto α accepted.
///
/// Derivation (ν or α ≤ 10⁻¹² overflowed the generator): a Pareto radius is
/// U^(−1/α) with U ≥ 2⁻⁵³ (one minus a uniform double below 1), so ρ ≤ 2^(53/α) = 2²¹² ≈ 7·10⁶³
/// at α = ¼; a Student-t factor √(ν/V) has V = χ²_ν ≥ about 2^(−53·2/ν)·10⁻¹⁶ (the gamma sampler's
/// smallest uniform to the power 2/ν, times a Gamma(1 + ν/2) draw), so √(ν/V) ≤ 10⁷³ at ν = ¼.
/// Times a feature scale ≤ 10³ and squared in a norm (≤ 10¹⁵²), summed over d ≤ 10³ coordinates
/// and n ≤ 10⁶ records, every number stays below 10¹⁶² ≪ f64::MAX ≈ 1.8·10³⁰⁸. Heavier tails than
/// ν, α = ¼ have no finite moment of any order the algorithms read (k ≥ 2).
pub const MIN_TAIL_INDEX: f64 = 0.25;

/// The largest log-normal σ accepted. A radius exp(σZ), scaled by ≤ 10³ and squared in a norm
/// summed over d·n ≤ 10⁹ coordinates, stays below f64::MAX while 2σZ < ln(1.8·10³⁰⁸/10¹⁵) ≈ 675,
/// i.e. Z < 42 at σ = 8: a standard normal beyond 42 has probability below 10⁻³⁸⁰ a draw.
pub const MAX_LOG_NORMAL_SIGMA: f64 = 8.0;

/// The largest contaminated outlier scale s and rare-outlier size a accepted: as the feature
/// bound's largest, 10⁶ (a Gaussian outlier s·g, |g| ≤ 40, scaled by ≤ 10³: ≤ 4·10¹⁰).
pub const MAX_OUTLIER_SCALE: f64 = 1e6;

/// The distribution of an (unscaled) random vector ξ ∈ R^m; features are x = scale·ξ (m = d), and
/// regression noise is scale·ξ (m = 1). All are symmetric about 0.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Tail {
    /// ξ ~ N(0, I).
    Gaussian,
    /// Multivariate Student-t: ξ = g/√(V/ν), g ~ N(0, I), V ~ χ²_ν (one V per vector).
    StudentT { nu: f64 },
    /// Pareto-radial: ξ = ρ·u with ρ = U^(−1/α) (Pareto, x_m = 1, tail index α) and u uniform on
    /// the sphere (Lowy 2026).
    ParetoRadial { alpha: f64 },
    /// Log-normal radial: ξ = exp(σZ)·u, Z ~ N(0, 1), u uniform on the sphere.
    LogNormal { sigma: f64 },
    /// Contaminated Gaussian: with probability p, ξ = s·g (an outlier at scale s), else ξ = g.
    Contaminated { p: f64, scale: f64 },
    /// The rare large outlier of Lowy 2026 (pure-DP heavy tails), Appendix G: ξ = a·e₁ with
    /// probability p, else ξ = 0, so E‖ξ‖^k = p·a^k exactly; a = G_k·p^(−1/k) gives the k-th moment
    /// G_k^k (`algo::heavy_tails::rare_outlier`). The paper's hard instance for the
    /// pure-DP lower bound: only about n·p records carry the signal. Not symmetric (the paper's
    /// instance is indexed by one direction ν; e₁ here).
    RareOutlier { p: f64, a: f64 },
}

impl Tail {
    pub fn validate(&self, field: &str) -> Result<()> {
        let pos = |name: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(Error::invalid(
                    format!("{field}.{name}"),
                    "a finite number > 0",
                    v,
                ))
            }
        };
        // Beyond these the generator overflowed ("dataset: value is not finite").
        let at_most = |name: &str, v: f64, max: f64| {
            if v <= max {
                Ok(())
            } else {
                Err(Error::invalid(
                    format!("{field}.{name}"),
                    format!("a number ≤ {max}, for which every draw stays finite"),
                    v,
                ))
            }
        };
        let at_least = |name: &str, v: f64, min: f64| {
            pos(name, v)?;
            if v >= min {
                Ok(())
            } else {
                Err(Error::invalid(
                    format!("{field}.{name}"),
                    format!("a number ≥ {min}, for which every draw stays finite"),
                    v,
                ))
            }
        };
        match *self {
            Tail::Gaussian => Ok(()),
            Tail::StudentT { nu } => at_least("nu", nu, MIN_TAIL_INDEX),
            Tail::ParetoRadial { alpha } => at_least("alpha", alpha, MIN_TAIL_INDEX),
            Tail::LogNormal { sigma } => {
                pos("sigma", sigma)?;
                at_most("sigma", sigma, MAX_LOG_NORMAL_SIGMA)
            }
            Tail::Contaminated { p, scale } => {
                if !(0.0..=1.0).contains(&p) {
                    return Err(Error::invalid(
                        format!("{field}.p"),
                        "a probability in [0, 1]",
                        p,
                    ));
                }
                pos("scale", scale)?;
                at_most("scale", scale, MAX_OUTLIER_SCALE)
            }
            Tail::RareOutlier { p, a } => {
                if !(0.0..=1.0).contains(&p) {
                    return Err(Error::invalid(
                        format!("{field}.p"),
                        "a probability in [0, 1]",
                        p,
                    ));
                }
                pos("a", a)?;
                at_most("a", a, MAX_OUTLIER_SCALE)
            }
        }
    }

    /// Writes one draw of ξ ∈ R^m into `out` (m = out.len()).
    pub fn sample_into(&self, rng: &mut DpRng, out: &mut [f64]) {
        for v in out.iter_mut() {
            let z: f64 = StandardNormal.sample(rng);
            *v = z;
        }
        // u = g/‖g‖ is uniform on the sphere; a zero g has probability 0 and maps to e₁.
        let radial = |out: &mut [f64], rho: f64| {
            let norm = norm2(out);
            if norm > 0.0 {
                out.iter_mut().for_each(|v| *v *= rho / norm);
            } else if let Some(first) = out.first_mut() {
                *first = rho;
            }
        };
        match *self {
            Tail::Gaussian => {}
            Tail::StudentT { nu } => {
                // χ²_ν = Gamma(ν/2, scale 2). The parameters were validated (ν > 0), so
                // Gamma::new cannot fail; fall back to the Gaussian limit rather than panic.
                let v: f64 = match Gamma::new(0.5 * nu, 2.0) {
                    Ok(g) => g.sample(rng),
                    Err(_) => nu,
                };
                let c = 1.0 / libm::sqrt(v / nu);
                out.iter_mut().for_each(|x| *x *= c);
            }
            Tail::ParetoRadial { alpha } => {
                // U ∈ (0, 1]: 1 − U with U ∈ [0, 1) avoids U = 0.
                let u: f64 = 1.0 - rng.random::<f64>();
                let rho = libm::pow(u, -1.0 / alpha);
                radial(out, rho);
            }
            Tail::LogNormal { sigma } => {
                let z: f64 = StandardNormal.sample(rng);
                radial(out, libm::exp(sigma * z));
            }
            Tail::Contaminated { p, scale } => {
                let u: f64 = rng.random();
                if u < p {
                    out.iter_mut().for_each(|x| *x *= scale);
                }
            }
            Tail::RareOutlier { p, a } => {
                let u: f64 = rng.random();
                out.fill(0.0);
                if u < p
                    && let Some(first) = out.first_mut()
                {
                    *first = a;
                }
            }
        }
    }
}

/// How labels are made.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Task {
    /// y ∈ {−1, +1}: P(y = +1 | x) = link(⟨w₀, x⟩), then flipped with probability `flip`.
    Classification { link: Link, flip: f64 },
    /// y = ⟨w₀, x⟩ + noise_scale·ξ, ξ ~ `noise` (in R¹).
    Regression { noise: Tail, noise_scale: f64 },
}

/// The link of a classification task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Link {
    /// sigmoid(t) = 1/(1 + e^(−t)).
    Logistic,
    /// Φ(t), the standard normal CDF.
    Probit,
}

impl Link {
    /// P(y = +1 | ⟨w₀, x⟩ = t).
    pub fn prob(&self, t: f64) -> f64 {
        match self {
            Link::Logistic => {
                if t >= 0.0 {
                    1.0 / (1.0 + libm::exp(-t))
                } else {
                    let e = libm::exp(t);
                    e / (1.0 + e)
                }
            }
            Link::Probit => 0.5 * libm::erfc(-t / std::f64::consts::SQRT_2),
        }
    }
}

/// A synthetic problem: features x = feature_scale·ξ, ξ ~ `features`, a planted w₀ of norm
/// `signal` ([`super::planted_direction`]), and labels from `task`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GeneratorSpec {
    pub n: usize,
    pub d: usize,
    pub features: Tail,
    pub feature_scale: f64,
    pub signal: f64,
    pub task: Task,
}

impl GeneratorSpec {
    pub fn validate(&self) -> Result<()> {
        if self.n < 2 {
            return Err(Error::invalid("n", "at least 2 samples", self.n));
        }
        if self.d == 0 {
            return Err(Error::invalid("d", "at least 1", self.d));
        }
        if self.n.saturating_mul(self.d) > MAX_VALUES {
            return Err(Error::invalid(
                "n·d",
                format!("at most {MAX_VALUES} values (what a browser tab holds comfortably)"),
                self.n.saturating_mul(self.d),
            ));
        }
        for (field, v) in [
            ("feature_scale", self.feature_scale),
            ("signal", self.signal),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(Error::invalid(field, "a finite number ≥ 0", v));
            }
        }
        self.features.validate("features")?;
        match self.task {
            Task::Classification { flip, .. } => {
                if !(0.0..=0.5).contains(&flip) {
                    return Err(Error::invalid(
                        "task.flip",
                        "a probability in [0, 0.5]",
                        flip,
                    ));
                }
            }
            Task::Regression { noise, noise_scale } => {
                noise.validate("task.noise")?;
                if !(noise_scale.is_finite() && noise_scale >= 0.0) {
                    return Err(Error::invalid(
                        "task.noise_scale",
                        "a finite number ≥ 0",
                        noise_scale,
                    ));
                }
            }
        }
        Ok(())
    }

    /// The planted parameter w₀.
    pub fn planted(&self) -> Vec<f64> {
        super::planted_direction(self.d, self.signal)
    }
}

/// Produces the samples of a [`GeneratorSpec`] in chunks; the concatenation of the chunks is
/// bit-identical to [`generate`] for the same seed, whatever the chunk sizes. Every value is
/// finite: a draw beyond f64 passes the record gate's entry rule ([`super::gate::finite_entry`]:
/// NaN → 0, ±∞ → ±`f64::MAX`), so extreme tails give records the session's clip scales along
/// their direction, never a refusal that depends on the draw.
pub struct Generator {
    spec: GeneratorSpec,
    rng: DpRng,
    w0: Vec<f64>,
    produced: usize,
    noise: [f64; 1],
}

impl Generator {
    pub fn new(spec: GeneratorSpec, rng: DpRng) -> Result<Self> {
        spec.validate()?;
        Ok(Self {
            w0: spec.planted(),
            spec,
            rng,
            produced: 0,
            noise: [0.0],
        })
    }

    /// Samples produced so far.
    pub fn produced(&self) -> usize {
        self.produced
    }

    /// Whether all n samples have been produced.
    pub fn done(&self) -> bool {
        self.produced >= self.spec.n
    }

    /// Appends up to `max_samples` samples (features sample after sample, then labels) and returns
    /// how many were appended (0 once done).
    pub fn next_chunk(&mut self, max_samples: usize, x: &mut Vec<f64>, y: &mut Vec<f64>) -> usize {
        let d = self.spec.d;
        let m = max_samples.min(self.spec.n - self.produced);
        let start = x.len();
        x.resize(start + m * d, 0.0);
        for col in x[start..].chunks_exact_mut(d) {
            self.spec.features.sample_into(&mut self.rng, col);
            col.iter_mut().for_each(|v| *v *= self.spec.feature_scale);
            let mut t = dot(&self.w0, col);
            if !t.is_finite() {
                // A draw beyond f64 (an extreme tail, a huge scale): the gate's entry rule makes
                // the record finite here, and the session's clip scales it along its direction.
                // A finite record never comes here (t is a sum of finite products unless one
                // overflows), so its bits are those of the plain draw.
                finite_entries(col);
                t = dot(&self.w0, col);
            }
            let label = match self.spec.task {
                Task::Classification { link, flip } => {
                    let u: f64 = self.rng.random();
                    let f: f64 = self.rng.random();
                    let y = if u < link.prob(t) { 1.0 } else { -1.0 };
                    if f < flip { -y } else { y }
                }
                Task::Regression { noise, noise_scale } => {
                    noise.sample_into(&mut self.rng, &mut self.noise);
                    finite_entry(t + noise_scale * self.noise[0])
                }
            };
            y.push(label);
        }
        self.produced += m;
        m
    }
}

/// Generates the whole dataset at once (in chunks of 4096 samples internally).
pub fn generate(spec: &GeneratorSpec, rng: DpRng) -> Result<Dataset> {
    let mut g = Generator::new(*spec, rng)?;
    let (mut x, mut y) = (Vec::new(), Vec::new());
    x.try_reserve_exact(spec.n * spec.d)
        .and_then(|_| y.try_reserve_exact(spec.n))
        .map_err(|_| Error::invalid("n·d", "a dataset that fits in memory", spec.n * spec.d))?;
    // Before the first write, so the matrix is faulted in on huge pages (DP-SGD's random reads).
    super::huge_pages::advise_huge_pages(x.spare_capacity_mut());
    while g.next_chunk(4096, &mut x, &mut y) > 0 {
        crate::progress::done(y.len() as f64 / spec.n.max(1) as f64);
    }
    Dataset::from_samples(spec.d, x, y)
}
