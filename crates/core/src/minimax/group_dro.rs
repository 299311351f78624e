//! Worst-group (group DRO) logistic regression and least squares as a saddle problem, streamed
//! from (seed, record index) (Zhang et al. 2022; González, Guzmán & Paquette 2024: "minimise
//! the maximal loss" for fairness and robustness).
//!
//! Record ξᵢ = (aᵢ, bᵢ, gᵢ): features aᵢ ∈ R^d, a label bᵢ and a group gᵢ ∈ {0, 1, 2} drawn with
//! the **declared** shares π = [`GROUP_SHARES`] (public design constants, never counted from the
//! records: Zhang et al. 2022). With ℓ the logistic loss ln(1 + e^{−b·aᵀx}) or the squared
//! loss ½(aᵀx − b)²,
//!
//! f(x, y; ξ) = (μₓ/2)‖x‖² + (y_g/π_g)·ℓ(x; a, b) − (μᵧ/2)‖y − u‖²,
//! x ∈ X, y ∈ Δ₃, u = (⅓, ⅓, ⅓),
//!
//! with X the ℓ2 ball {‖x‖₂ ≤ R} (a model whose weights may be negative) or the probability
//! simplex Δ_d (a mixture of the d features: the problem on which González,
//! Guzmán & Paquette 2024's mirror descent with vertex sampling runs) — [`DroDomain`].
//!
//! Its mean over the records is f̂(x, y) = (μₓ/2)‖x‖² + Σⱼ yⱼR̂ⱼ(x) − (μᵧ/2)‖y − u‖² with
//! R̂ⱼ(x) = (1/(nπⱼ)) Σ_{gᵢ=j} ℓᵢ(x), group j's risk (reweighted by the declared share), so that
//! max_y f̂ at μᵧ = 0 is the worst group's risk. The layout: group-labelled
//! records, which multiplies the constants by 1/π_min (the lesson: a small group costs noise).
//!
//! ## Records are streamed, never stored
//! Record i is regenerated from its own ChaCha key (seed, "dro", i) whenever it is needed, so
//! memory is O(d) whatever n is. The groups' true parameters w*ⱼ come from the seed's data
//! stream.
//!
//! ## Declared bounds ([`DroSpec::constants`])
//! c (the page's entry bound) bounds ‖a‖₂ and |b|: bounded records are within it by
//! construction; heavy-tailed ones (Student-t ν, …) are clipped to it (‖a‖ by norm, b by value)
//! unless the clipping toggle is off, which is the NOT PRIVATE demonstration
//! ([`DroSpec::leak`]). Every constant follows from c, X's reach ρ = sup ‖x‖ (R for the ball, 1
//! for the simplex, where also ‖x‖₁ = 1 and so |aᵀx| ≤ ‖a‖_∞ ≤ c), μ and π, never from the
//! records.
//!
//! ## The duality gap: exact upper side, certified lower side
//! One streamed pass at (x, y) gives every R̂ⱼ(x) and ∇R̂ⱼ(x). Then
//! - max_y f̂(x, y) is **exact**: (μₓ/2)‖x‖² + H_{μᵧ,Δ}(R̂ + μᵧu) − (μᵧ/2)‖u‖², with H the conjugate
//!   of [`super::game`] (at μᵧ = 0 the worst group's risk);
//! - min_x f̂(x, y) is **bounded below**, certified by convexity: f̂(·, y) is μₓ-strongly convex, so
//!   for every x′ in the ball f̂(x′, y) ≥ f̂(x, y) + ⟨g, x′ − x⟩ + (μₓ/2)‖x′ − x‖², g = ∇ₓf̂(x, y),
//!   and the right side's minimum over X is attained at Proj_X(x − g/μₓ) (at μₓ = 0, at the
//!   linear minimiser: −Rg/‖g‖ on the ball, the vertex e_i of the smallest gᵢ on the simplex —
//!   the Frank–Wolfe gap, exact over the simplex's vertices). At the saddle point g satisfies
//!   X's optimality condition and the bound is exact.
//!
//! The reported gap upper − lower is therefore a certified **upper bound** on the empirical
//! duality gap, equal to it at the saddle point (González, Guzmán & Paquette 2024: plot the conservative end).

use rand::{RngExt, SeedableRng};

use super::game::conjugate;
use super::{GameConstants, Gap, RecordGame, RecordScratch, SaddleProblem};
use crate::data::Tail;
use crate::data::gate::{Gated, RecordGate, Segment, clip_ball, clip_value};
use crate::domain::{Domain, DomainKind};
use crate::error::{Error, Result};
use crate::linalg::{axpy, dot, norm2};
use crate::rng::DpRng;

/// Number of groups (the maximising player's strategies).
pub const GROUPS: usize = 3;

/// The declared group shares π (public design constants, the records' group law).
pub const GROUP_SHARES: [f64; GROUPS] = [0.5, 0.3, 0.2];

/// ‖w*ⱼ‖ of each group's true parameter, before it is shrunk into the ball.
const TRUTH_NORM: f64 = 2.0;

/// How far beyond the declared bound an audit's planted record goes when records are unclipped
/// (the same factor as the matrix games' planted record).
const UNCLIPPED_PLANT: f64 = 1000.0;

/// X, the minimising player's set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DroDomain {
    /// The ℓ2 ball of radius R: x is a linear model, its weights of either sign.
    #[default]
    L2Ball,
    /// The probability simplex over the d features: x is a mixture (non-negative weights summing
    /// to 1), so the vertex-sampling mirror-descent families run on it.
    Simplex,
}

/// The per-record loss ℓ(x; a, b).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DroLoss {
    /// ln(1 + e^{−b·aᵀx}), b = ±1 from a logistic link on aᵀw*_g.
    Logistic,
    /// ½(aᵀx − b)², b = aᵀw*_g plus noise, clipped to |b| ≤ c.
    Squares,
}

/// How a record's features and label noise are drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DroLaw {
    /// Features uniform in the cube [−c/√d, c/√d]^d (so ‖a‖ ≤ c), label noise uniform in
    /// [−c/2, c/2]: within the declared bound by construction.
    Bounded,
    /// Features `scale`·ξ and label noise `scale`·ξ′ with ξ, ξ′ from `tail`, clipped to the
    /// declared bound when clipping is on.
    Heavy {
        /// The law of ξ (e.g. Student-t ν).
        tail: Tail,
        /// Its scale.
        scale: f64,
    },
}

/// Everything that defines a group DRO problem, from the configuration alone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DroSpec {
    /// The per-record loss.
    pub loss: DroLoss,
    /// d, the features' dimension (x's).
    pub d: usize,
    /// n, the number of records.
    pub n: usize,
    /// The seed of the groups' truths and of every record.
    pub seed: u32,
    /// X: the ℓ2 ball of radius `radius`, or the simplex.
    pub domain: DroDomain,
    /// R, the radius of x's ℓ2 ball (unused on the simplex).
    pub radius: f64,
    /// c: the declared bound on ‖a‖₂ and |b|.
    pub bound: f64,
    /// μₓ ≥ 0: the ridge (μₓ/2)‖x‖².
    pub mu_x: f64,
    /// μᵧ ≥ 0: the pull (μᵧ/2)‖y − u‖² of the groups' weights towards uniform.
    pub mu_y: f64,
    /// How records are drawn.
    pub law: DroLaw,
    /// Whether heavy records are clipped to c (off: a demonstration whose constants fail).
    pub clip: bool,
}

impl DroSpec {
    /// X: the ℓ2 ball of radius R, or the simplex.
    pub fn x_domain(&self) -> DomainKind {
        match self.domain {
            DroDomain::L2Ball => DomainKind::L2Ball {
                radius: self.radius,
            },
            DroDomain::Simplex => DomainKind::Simplex,
        }
    }

    /// ρ = sup over X of ‖x‖₂, which also bounds ‖x‖_∞ and, with ‖a‖₂ ≤ c, |aᵀx| ≤ cρ: R on the
    /// ball; 1 on the simplex (there ‖x‖₂ ≤ ‖x‖₁ = 1, and |aᵀx| ≤ ‖a‖_∞‖x‖₁ ≤ c).
    pub fn reach(&self) -> f64 {
        match self.domain {
            DroDomain::L2Ball => self.radius,
            DroDomain::Simplex => 1.0,
        }
    }

    /// Y: the simplex over the groups.
    pub fn y_domain(&self) -> DomainKind {
        DomainKind::Simplex
    }

    /// The ledger's sentence when heavy-tailed records are left unclipped.
    pub fn leak(&self) -> Option<&'static str> {
        let unbounded = matches!(self.law, DroLaw::Heavy { .. }) && !self.clip;
        unbounded.then_some(
            "records NOT clipped to the declared bound c: a heavy-tailed record's features and \
             label can be any size, so the constants that set the noise, and the guarantee, do \
             not hold",
        )
    }

    /// Checks every field, naming the one that is wrong.
    pub fn validate(&self) -> Result<()> {
        if self.d == 0 {
            return Err(Error::invalid("d", "at least 1", self.d));
        }
        if self.n == 0 {
            return Err(Error::invalid("n", "at least 1", self.n));
        }
        if !(self.radius.is_finite() && self.radius > 0.0) {
            return Err(Error::invalid("radius", "a finite number > 0", self.radius));
        }
        if !(self.bound.is_finite() && self.bound > 0.0) {
            return Err(Error::invalid(
                "entry_bound",
                "a finite number > 0",
                self.bound,
            ));
        }
        for (field, mu) in [("mu_x", self.mu_x), ("mu_y", self.mu_y)] {
            if !(mu.is_finite() && mu >= 0.0) {
                return Err(Error::invalid(field, "a finite number ≥ 0", mu));
            }
        }
        if let DroLaw::Heavy { tail, scale } = self.law {
            tail.validate("tail")?;
            if !(scale.is_finite() && scale >= 0.0) {
                return Err(Error::invalid(
                    "feature_scale",
                    "a finite number ≥ 0",
                    scale,
                ));
            }
        }
        Ok(())
    }

    /// Per record, from c and ρ alone: (sup |ℓ|, sup |ℓ′|, sup ℓ″) over X and the bounded
    /// records, with |aᵀx| ≤ cρ ([`DroSpec::reach`]).
    fn loss_bounds(&self) -> (f64, f64, f64) {
        let (c, r) = (self.bound, self.reach());
        match self.loss {
            // |aᵀx| ≤ cρ: ℓ ≤ ln(1 + e^{cρ}) ≤ cρ + ln 2, |ℓ′| ≤ 1, ℓ″ ≤ ¼.
            DroLoss::Logistic => (c * r + std::f64::consts::LN_2, 1.0, 0.25),
            // |aᵀx − b| ≤ cρ + c: ℓ ≤ (cρ + c)²/2, |ℓ′| ≤ cρ + c, ℓ″ = 1.
            DroLoss::Squares => {
                let res = c * r + c;
                (0.5 * res * res, res, 1.0)
            }
        }
    }

    /// B_f of González, Guzmán & Paquette's Algorithm 4: |f(x, y; ξ) − f(x, y; ξ′)| ≤ 2B_f for
    /// every pair of records. Only (y_g/π_g)·ℓ depends on the record, and it lies in
    /// [0, sup ℓ/π_min], so B_f = sup ℓ/(2π_min).
    pub fn value_bound(&self) -> f64 {
        let p_min = GROUP_SHARES.iter().copied().fold(f64::INFINITY, f64::min);
        self.loss_bounds().0 / (2.0 * p_min)
    }

    /// L₂, González, Guzmán & Paquette 2024's second-order smoothness (each ∂ⱼf L₂-smooth from ℓ1 to ℓ∞): bounded by the
    /// largest third derivative of f. The regularisers are quadratic (no third derivative); the
    /// loss term (y_g/π_g)·ℓ(aᵀx) has ∂³ₓₓₓ = (y_g/π_g)ℓ‴·aⱼaₖaₗ and ∂ᵧ∂²ₓₓ = ℓ″·aₖaₗ/π_g (it is
    /// linear in y), with |aⱼ| ≤ ‖a‖₂ ≤ c: L₂ = max(c³·sup|ℓ‴|, c²·sup ℓ″)/π_min, whatever X is.
    /// Logistic: ℓ″ ≤ ¼, |ℓ‴| ≤ 1/(6√3); least squares: ℓ″ = 1, ℓ‴ = 0.
    pub fn second_order(&self) -> f64 {
        let c = self.bound;
        let p_min = GROUP_SHARES.iter().copied().fold(f64::INFINITY, f64::min);
        let (third, second) = match self.loss {
            DroLoss::Logistic => (1.0 / (6.0 * 3f64.sqrt()), 0.25),
            DroLoss::Squares => (0.0, 1.0),
        };
        (c * c * c * third).max(c * c * second) / p_min
    }

    /// The declared constants, from c, ρ, μ and π alone (derivations beside each line; ‖y − u‖
    /// ≤ 1 on the simplex).
    pub fn constants(&self) -> GameConstants {
        let (c, r) = (self.bound, self.reach());
        let p_min = GROUP_SHARES.iter().copied().fold(f64::INFINITY, f64::min);
        // Per record: |ℓ| ≤ loss_max, |ℓ′| ≤ slope (so ‖∇ₓℓ‖ ≤ c·slope), ℓ″ ≤ curvature.
        let (loss_max, slope, curvature) = self.loss_bounds();
        // ∇ₓf = μₓx + (y_g/π_g)ℓ′a, ∇ᵧf = e_g·ℓ/π_g − μᵧ(y − u).
        let gx = self.mu_x * r + c * slope / p_min;
        let gy = loss_max / p_min + self.mu_y;
        // Hessian blocks: xx ≤ μₓ + c²ℓ″/π_min, xy ≤ c·slope/π_min, yy = μᵧ; the operator norm of
        // [[A, B], [Bᵀ, C]] is at most max(‖A‖, ‖C‖) + ‖B‖.
        let smoothness = (self.mu_x + c * c * curvature / p_min).max(self.mu_y) + c * slope / p_min;
        GameConstants {
            // ‖·‖_∞ ≤ ‖·‖₂ and ‖·‖₂ ≤ ‖·‖₁ make the Euclidean bounds valid in González, Guzmán & Paquette 2024's geometry.
            linf_lipschitz: gx.max(gy),
            l1_smoothness: smoothness,
            second_order: self.second_order(),
            lipschitz: gx.hypot(gy),
            smoothness,
            mu_x: self.mu_x,
            mu_y: self.mu_y,
        }
    }
}

/// Key of record i's generator: the seed, a tag no other stream uses, and the index.
fn record_rng(seed: u32, index: usize) -> DpRng {
    let mut key = [0u8; 32];
    key[..4].copy_from_slice(&seed.to_le_bytes());
    key[4..8].copy_from_slice(b"dro\0");
    key[8..16].copy_from_slice(&(index as u64).to_le_bytes());
    DpRng::from_seed(key)
}

/// σ(t) = 1/(1 + e^{−t}), stable on both sides.
fn sigmoid(t: f64) -> f64 {
    if t >= 0.0 {
        1.0 / (1.0 + (-t).exp())
    } else {
        let e = t.exp();
        e / (1.0 + e)
    }
}

/// ln(1 + e^t), stable on both sides.
fn softplus(t: f64) -> f64 {
    if t > 0.0 {
        t + (-t).exp().ln_1p()
    } else {
        t.exp().ln_1p()
    }
}

/// The group DRO problem of a [`DroSpec`].
#[derive(Debug, Clone, PartialEq)]
pub struct GroupDro {
    spec: DroSpec,
    /// w*ⱼ, group after group (GROUPS × d): each group's true parameter.
    truths: Vec<f64>,
    /// X and Y, kept so that the trait can lend them.
    ball: DomainKind,
    simplex: DomainKind,
    /// Record 0 replaced by this record, already through the gate ([`GroupDro::with_record`]).
    planted: Option<Vec<f64>>,
    /// The stream's record gate: every record read passes it ([`GroupDro::fill_record`]).
    gate: RecordGate,
}

/// The record gate of `spec`'s stream: features in the ball of radius c, a least-squares label
/// in [−c, c] (a logistic one in [−1, 1]), the group index finite; c is +∞ (finite only) in the
/// NOT PRIVATE demonstration of [`DroSpec::leak`]. The same bounds the generator and the planted
/// record clip to, so a record they produced passes bit for bit.
fn stream_gate(spec: &DroSpec) -> RecordGate {
    let c = if spec.leak().is_some() {
        f64::INFINITY
    } else {
        spec.bound
    };
    let label = match spec.loss {
        DroLoss::Logistic => 1.0,
        DroLoss::Squares => c,
    };
    RecordGate::new(vec![
        Segment::Ball {
            len: spec.d,
            bound: c,
        },
        Segment::Interval {
            len: 1,
            bound: label,
        },
        Segment::Interval {
            len: 1,
            bound: f64::INFINITY,
        },
    ])
}

impl GroupDro {
    /// The problem of `spec` (its groups' truths drawn from the seed's data stream; no record is
    /// drawn until asked for).
    pub fn new(spec: DroSpec) -> Result<Self> {
        spec.validate()?;
        let mut rng = crate::rng::seeded(spec.seed, crate::rng::Stream::Data);
        let norm = TRUTH_NORM.min(spec.reach());
        let mut truths = vec![0.0; GROUPS * spec.d];
        for w in truths.chunks_exact_mut(spec.d) {
            Tail::Gaussian.sample_into(&mut rng, w);
            let len = norm2(w);
            if len > 0.0 {
                w.iter_mut().for_each(|v| *v *= norm / len);
            }
        }
        Ok(Self {
            spec,
            truths,
            ball: spec.x_domain(),
            simplex: spec.y_domain(),
            planted: None,
            gate: stream_gate(&spec),
        })
    }

    /// The problem of `spec` with record 0 replaced by an audit's planted record of `sign` (±1):
    /// features sign·c·e₁ (‖a‖ = c), the label +1 (logistic) or +c (least squares), and the group
    /// the smallest (share 0.2) for +1, the largest (0.5) for −1. The two signs are replace-one
    /// neighbours at the declared bound's extremes in (a, b, g): the record pulls x₁ up and
    /// weighs the small group in D, pulls x₁ down and weighs the large group in D′, so
    /// x₁ + y₃ of a release is larger on D. With heavy records left unclipped (the
    /// demonstration of [`DroSpec::leak`]) the record is what such a record can be: a thousand
    /// times the declared bound.
    pub fn with_planted_record(spec: DroSpec, sign: f64) -> Result<Self> {
        if sign.abs() != 1.0 {
            return Err(Error::invalid("sign", "+1 or −1", sign));
        }
        let c = if spec.leak().is_some() {
            UNCLIPPED_PLANT * spec.bound
        } else {
            spec.bound
        };
        let mut record = vec![0.0; spec.d + 2];
        record[0] = sign * c;
        record[spec.d] = match spec.loss {
            DroLoss::Logistic => 1.0,
            DroLoss::Squares => c,
        };
        record[spec.d + 1] = if sign > 0.0 { (GROUPS - 1) as f64 } else { 0.0 };
        Self::with_record(spec, record)
    }

    /// The problem of `spec` with record 0 replaced by `record` (len d + 2: the features, the
    /// label, the group index), which passes the record gate as a drawn heavy record does
    /// ([`crate::data::gate`]): whatever its features and label hold (NaN, ±∞, 1e308), the game
    /// reads ‖a‖ ≤ c and |b| ≤ c (least squares), or finite values in the NOT PRIVATE
    /// demonstration that unclips records. For neighbouring pairs (audits, tests). Errors: a
    /// mis-sized record, a group that is not one of the groups, a logistic label other than ±1.
    pub fn with_record(spec: DroSpec, mut record: Vec<f64>) -> Result<Self> {
        let d = spec.d;
        if record.len() != d + 2 {
            return Err(Error::DimensionMismatch {
                what: "record",
                expected: d + 2,
                got: record.len(),
            });
        }
        let group = record[d + 1];
        if !(group >= 0.0 && group < GROUPS as f64 && group.fract() == 0.0) {
            return Err(Error::invalid(
                "record",
                format!("a group index in 0..{GROUPS}"),
                group,
            ));
        }
        if spec.loss == DroLoss::Logistic && record[d].abs() != 1.0 {
            return Err(Error::invalid("record", "a label of +1 or −1", record[d]));
        }
        let game = Self::new(spec)?;
        game.gate(&mut record);
        Ok(Self {
            planted: Some(record),
            ..game
        })
    }

    /// The record gate on one record (features, label, group): ‖a‖ ≤ c and a least-squares label
    /// in [−c, c], or (the NOT PRIVATE demonstration of [`DroSpec::leak`]) finite values only.
    fn gate(&self, record: &mut [f64]) {
        let s = &self.spec;
        let bound = if s.leak().is_some() {
            f64::INFINITY
        } else {
            s.bound
        };
        let (a, rest) = record.split_at_mut(s.d);
        clip_ball(a, bound);
        if s.loss == DroLoss::Squares {
            rest[0] = clip_value(rest[0], bound);
        }
    }

    /// The specification it was built from.
    pub fn spec(&self) -> &DroSpec {
        &self.spec
    }

    /// Writes record i into `buf` (len d + 2): the features, then the label, then the group;
    /// returns it as it passed the stream's gate (the record every reader takes).
    pub fn fill_record<'b>(&self, i: usize, buf: &'b mut [f64]) -> Gated<'b> {
        if let (0, Some(record)) = (i, &self.planted) {
            buf.copy_from_slice(record);
            return self.gate.pass(buf);
        }
        let s = &self.spec;
        let (d, c) = (s.d, s.bound);
        let mut rng = record_rng(s.seed, i);
        let u: f64 = rng.random();
        let mut cumulative = 0.0;
        let mut group = GROUPS - 1;
        for (j, share) in GROUP_SHARES.iter().enumerate() {
            cumulative += share;
            if u < cumulative {
                group = j;
                break;
            }
        }
        let (a, rest) = buf.split_at_mut(d);
        let noise = match s.law {
            DroLaw::Bounded => {
                let half = c / (d as f64).sqrt();
                a.iter_mut()
                    .for_each(|v| *v = half * (2.0 * rng.random::<f64>() - 1.0));
                0.5 * c * (2.0 * rng.random::<f64>() - 1.0)
            }
            DroLaw::Heavy { tail, scale } => {
                tail.sample_into(&mut rng, a);
                a.iter_mut().for_each(|v| *v *= scale);
                // The record gate: ‖a‖ ≤ c, or (the NOT PRIVATE demonstration) finite entries.
                clip_ball(a, if s.clip { c } else { f64::INFINITY });
                let mut e = [0.0];
                tail.sample_into(&mut rng, &mut e);
                scale * e[0]
            }
        };
        let signal = dot(a, &self.truths[group * d..(group + 1) * d]);
        let label = match s.loss {
            DroLoss::Logistic => {
                if rng.random::<f64>() < sigmoid(signal) {
                    1.0
                } else {
                    -1.0
                }
            }
            DroLoss::Squares => {
                let bounded = matches!(s.law, DroLaw::Bounded) || s.clip;
                clip_value(signal + noise, if bounded { c } else { f64::INFINITY })
            }
        };
        rest[0] = label;
        rest[1] = group as f64;
        self.gate.pass(buf)
    }

    /// ℓ and ℓ′ (the derivative in t = aᵀx) of the loss at margin/prediction t and label b.
    fn loss(&self, t: f64, b: f64) -> (f64, f64) {
        match self.spec.loss {
            DroLoss::Logistic => (softplus(-b * t), -b * sigmoid(-b * t)),
            DroLoss::Squares => (0.5 * (t - b) * (t - b), t - b),
        }
    }

    /// One streamed pass at x: every group's risk R̂ⱼ(x) into `risks` and ∇R̂ⱼ(x) into `grads`
    /// (group after group, GROUPS × d). Allocates only the record buffer.
    fn group_risks(&self, x: &[f64], risks: &mut [f64; GROUPS], grads: &mut [f64]) {
        let (d, n) = (self.spec.d, self.spec.n);
        risks.fill(0.0);
        grads.fill(0.0);
        let mut buf = vec![0.0; d + 2];
        for i in 0..n {
            let record = self.fill_record(i, &mut buf);
            let (a, rest) = record.split_at(d);
            let g = rest[1] as usize;
            let (l, dl) = self.loss(dot(a, x), rest[0]);
            let w = 1.0 / (n as f64 * GROUP_SHARES[g]);
            risks[g] += w * l;
            axpy(w * dl, a, &mut grads[g * d..(g + 1) * d]);
        }
    }

    /// The game's value at (x, y) over the records `batch` alone (their mean of f): what
    /// González, Guzmán & Paquette's Algorithm 4 scores its candidates by. **Non-private** on its
    /// own. Errors name an empty or out-of-range batch.
    pub fn batch_value(
        &self,
        batch: std::ops::Range<usize>,
        x: &[f64],
        y: &[f64],
        scratch: &mut RecordScratch,
    ) -> Result<f64> {
        self.check_point(x, y, x, y)?;
        let s = &self.spec;
        if batch.is_empty() || batch.end > s.n {
            return Err(Error::invalid(
                "records",
                format!("a non-empty range within 0..{}", s.n),
                format!("{batch:?}"),
            ));
        }
        scratch.buf.resize(s.d + 2, 0.0);
        let len = batch.len() as f64;
        let mut mean = 0.0;
        for i in batch {
            let record = self.fill_record(i, &mut scratch.buf);
            let (a, rest) = record.split_at(s.d);
            let g = rest[1] as usize;
            let (l, _) = self.loss(dot(a, x), rest[0]);
            mean += y[g] * l / (GROUP_SHARES[g] * len);
        }
        let pull: f64 = y.iter().map(|v| (v - 1.0 / GROUPS as f64).powi(2)).sum();
        Ok(0.5 * s.mu_x * dot(x, x) + mean - 0.5 * s.mu_y * pull)
    }

    /// f̂(x, y) from the groups' risks.
    fn value_of(&self, x: &[f64], y: &[f64], risks: &[f64; GROUPS]) -> f64 {
        let s = &self.spec;
        let pull: f64 = y.iter().map(|v| (v - 1.0 / GROUPS as f64).powi(2)).sum();
        0.5 * s.mu_x * dot(x, x) + dot(y, risks) - 0.5 * s.mu_y * pull
    }
}

impl SaddleProblem for GroupDro {
    fn dims(&self) -> (usize, usize) {
        (self.spec.d, GROUPS)
    }

    fn x_domain(&self) -> &dyn Domain {
        &self.ball
    }

    fn y_domain(&self) -> &dyn Domain {
        &self.simplex
    }

    fn value(&self, x: &[f64], y: &[f64]) -> Result<f64> {
        let (mut gx, mut gy) = (vec![0.0; self.spec.d], vec![0.0; GROUPS]);
        self.value_and_gradients(x, y, &mut gx, &mut gy)
    }

    fn value_and_gradients(
        &self,
        x: &[f64],
        y: &[f64],
        gx: &mut [f64],
        gy: &mut [f64],
    ) -> Result<f64> {
        self.check_point(x, y, gx, gy)?;
        let s = &self.spec;
        let mut risks = [0.0; GROUPS];
        let mut grads = vec![0.0; GROUPS * s.d];
        self.group_risks(x, &mut risks, &mut grads);
        gx.iter_mut().zip(x).for_each(|(g, xi)| *g = s.mu_x * xi);
        for (j, yj) in y.iter().enumerate() {
            axpy(*yj, &grads[j * s.d..(j + 1) * s.d], gx);
        }
        for (j, g) in gy.iter_mut().enumerate() {
            *g = risks[j] - s.mu_y * (y[j] - 1.0 / GROUPS as f64);
        }
        Ok(self.value_of(x, y, &risks))
    }

    fn duality_gap(&self, x: &[f64], y: &[f64], gx: &mut [f64], gy: &mut [f64]) -> Result<Gap> {
        let value = self.value_and_gradients(x, y, gx, gy)?;
        let s = &self.spec;
        // Exact upper side: max over the simplex of y′ᵀR̂ − (μᵧ/2)‖y′ − u‖², R̂ = ∇ᵧf̂ + μᵧ(y − u).
        let u = 1.0 / GROUPS as f64;
        let mut shifted = [0.0; GROUPS];
        for (j, v) in shifted.iter_mut().enumerate() {
            let risk = gy[j] + s.mu_y * (y[j] - u);
            *v = risk + s.mu_y * u;
        }
        let mut buf = [0.0; GROUPS];
        let upper = 0.5 * s.mu_x * dot(x, x)
            + conjugate(&DomainKind::Simplex, s.mu_y, &shifted, &mut buf)
            - 0.5 * s.mu_y * GROUPS as f64 * u * u;
        // Certified lower side: min over X of value + ⟨g, x′ − x⟩ + (μₓ/2)‖x′ − x‖².
        let mut best = x.to_vec();
        if s.mu_x > 0.0 {
            axpy(-1.0 / s.mu_x, gx, &mut best);
            s.x_domain().project(&mut best);
        } else {
            match s.domain {
                DroDomain::L2Ball => {
                    let len = norm2(gx);
                    if len > 0.0 {
                        best.iter_mut()
                            .zip(gx.iter())
                            .for_each(|(b, g)| *b = -s.radius * g / len);
                    }
                }
                // The linear minimiser over the simplex is the vertex of the smallest gᵢ.
                DroDomain::Simplex => {
                    let mut i_min = 0;
                    for (i, g) in gx.iter().enumerate() {
                        if *g < gx[i_min] {
                            i_min = i;
                        }
                    }
                    best.fill(0.0);
                    best[i_min] = 1.0;
                }
            }
        }
        let step: Vec<f64> = best.iter().zip(x).map(|(b, xi)| b - xi).collect();
        let lower = value + dot(gx, &step) + 0.5 * s.mu_x * dot(&step, &step);
        Ok(Gap {
            upper,
            lower: lower.min(value),
        })
    }
}

impl RecordGame for GroupDro {
    fn records(&self) -> usize {
        self.spec.n
    }

    fn constants(&self) -> GameConstants {
        self.spec.constants()
    }

    fn scratch(&self) -> RecordScratch {
        RecordScratch {
            buf: vec![0.0; self.spec.d + 2],
        }
    }

    fn add_record_gradients(
        &self,
        i: usize,
        x: &[f64],
        y: &[f64],
        weight: f64,
        gx: &mut [f64],
        gy: &mut [f64],
        scratch: &mut RecordScratch,
    ) -> Result<()> {
        self.check_record(i, x, y, gx, gy)?;
        let s = &self.spec;
        scratch.buf.resize(s.d + 2, 0.0);
        let record = self.fill_record(i, &mut scratch.buf);
        let (a, rest) = record.split_at(s.d);
        let g = rest[1] as usize;
        let (l, dl) = self.loss(dot(a, x), rest[0]);
        let share = GROUP_SHARES[g];
        axpy(weight * s.mu_x, x, gx);
        axpy(weight * y[g] * dl / share, a, gx);
        gy[g] += weight * l / share;
        for (j, v) in gy.iter_mut().enumerate() {
            *v -= weight * s.mu_y * (y[j] - 1.0 / GROUPS as f64);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
