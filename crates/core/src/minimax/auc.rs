//! AUC maximisation as a convex–strongly-concave saddle problem, streamed from (seed, record
//! index): the square-loss form of Ying, Wen & Lyu, "Stochastic Online AUC Maximization", 2016
//! (the C-SC game of Zhang, Thekumparampil, Oh & He 2022, §4.3).
//!
//! Record ξᵢ = (aᵢ, bᵢ): a label bᵢ = +1 with the **declared** class prior p = [`CLASS_PRIOR`] (a
//! public design constant, never counted from the records: Zhang et al. 2022), else −1, and
//! features aᵢ ∈ R^d from two shifted classes, aᵢ = bᵢ·(c/2)·v + noise, v a unit direction from the
//! seed. With x = (w, s, t) ∈ R^{d+2} and y = α ∈ R, q = 1 − p,
//!
//! f(x, α; ξ) = q(wᵀa − s)²·1[b = 1] + p(wᵀa − t)²·1[b = −1]
//!            + 2(1 + α)(p·wᵀa·1[b = −1] − q·wᵀa·1[b = 1]) − pqα²,
//!
//! on X = {‖w‖₂ ≤ R} × [−Rc, Rc]² (a [`crate::domain::BallBox`]) and Y = [−2Rc, 2Rc]. Its minimum over x and
//! maximum over α is, in the population, pq·(1 − AUC) up to the square surrogate: s and t track
//! the classes' mean scores, α their difference. Convex in x (a sum of squares and linear
//! terms), and **2pq-strongly concave in α for every record**: the game is C-SC (μₓ = 0), the
//! setting of Zhang et al.'s Section 4.3 variant.
//!
//! ## Declared constants ([`AucSpec::constants`]): the derivation
//! c (the page's entry bound C_a) bounds ‖a‖₂; R is the radius. On X × Y: |wᵀa| ≤ Rc,
//! |wᵀa − s| ≤ 2Rc, |1 + α| ≤ 1 + 2Rc. The per-record gradients are, for b = +1,
//! ∇_w f = 2q[(wᵀa − s) − (1 + α)]a, ∂_s f = −2q(wᵀa − s), ∂_t f = 0, ∂_α f = −2q·wᵀa − 2pqα,
//! and for b = −1 the mirror image with p and q swapped, t for s, and +(1 + α):
//! ∇_w f = 2p[(wᵀa − t) + (1 + α)]a, ∂_t f = −2p(wᵀa − t), ∂_α f = 2p·wᵀa − 2pqα. So
//! - ‖∇_w f‖ ≤ 2q·c(2Rc + 1 + 2Rc) = 2qc(1 + 4Rc) (attained at wᵀa = −Rc, s = Rc, α = 2Rc),
//! - |∂_s f| ≤ 4qRc, |∂_α f| ≤ 2qRc + 2pq·2Rc = 2qRc(1 + 2p),
//!
//! and likewise with p ↔ q for b = −1. L, the joint Euclidean Lipschitz bound of Assumption 4.1,
//! is the larger class's √(‖∇_w‖² + ∂_s² + ∂_α²) bound (a gradient bound on a convex set is a
//! Lipschitz bound). The Hessian of a b = +1 record is 2q·(uuᵀ + E) with u = (a, −1, 0, 0) and
//! E the w–α coupling −a and the α–α entry −p: ‖uuᵀ‖ = ‖a‖² + 1 and ‖E‖ ≤ ‖a‖ + p, so
//! ℓ = max(2q(c² + c + 1 + p), 2p(c² + c + 1 + q)) (≤ 2(c² + c + 1) + ½). μᵧ = 2pq from
//! the −pqα² term; μₓ = 0; every f is quadratic, so González, Guzmán & Paquette 2024's L₂ is 0. None of it reads a
//! record.
//!
//! ## Records are streamed; the empirical game is kept by its moments
//! Record i is regenerated from its own ChaCha key (seed, "auc", i) whenever an algorithm asks for
//! it. The empirical game f̂ = (1/n)Σf is quadratic, so one pass at construction keeps it exactly
//! in O(d²) numbers: π± (the classes' record shares), S± = (1/n)Σ± a and Q± = (1/n)Σ± aaᵀ, and
//! f̂ = q[wᵀQ₊w − 2s·S₊ᵀw + π₊s²] + p[wᵀQ₋w − 2t·S₋ᵀw + π₋t²] + 2(1 + α)uᵀw − pqα², u = pS₋ − qS₊.
//! These are **non-private** (means of the records): the session scores points with them.
//!
//! ## The duality gap: exact upper side, certified lower side
//! - max_α f̂(x, α) is **exact**: α* = clip(uᵀw/(pq), ±2Rc) (a concave parabola on an interval).
//! - min_x f̂(x, α) is a convex quadratic over the ball × box. s and t minimise in closed form,
//!   s* = S₊ᵀw/π₊ (inside the box: it is a mean of scores wᵀa ≤ Rc), which leaves the trust-region
//!   problem min_{‖w‖≤R} wᵀAw + 2(1 + α)uᵀw with A = q(Q₊ − S₊S₊ᵀ/π₊) + p(Q₋ − S₋S₋ᵀ/π₋) ⪰ 0,
//!   solved through A's eigen-decomposition (made once per game) and a bisection on the
//!   multiplier. Whatever that solve's rounding, the lower side is **certified** by the
//!   Frank–Wolfe gap at its point x_t: min_X f̂(·, α) ≥ f̂(x_t, α) − max_{x′∈X}⟨∇f̂(x_t), x_t − x′⟩.
//!
//! The reported gap upper − lower is a certified **upper bound** on the empirical duality gap,
//! exact up to the Frank–Wolfe term, which vanishes at the inner solve's optimum
//! ([`AucGame::bracket`] gives both ends, as group DRO's gap does).

use rand::{RngExt, SeedableRng};

use std::sync::OnceLock;

use super::{GameConstants, Gap, PosedGame, Readout, RecordGame, RecordScratch, SaddleProblem};
use crate::data::Tail;
use crate::data::gate::{Gated, RecordGate, Segment, clip_ball};
use crate::domain::{Domain, DomainKind};
use crate::error::{Error, Result};
use crate::linalg::{axpy, dot, norm2};
use crate::rng::DpRng;

/// The declared class prior p = P(b = +1): a public design constant (an imbalanced problem, where
/// AUC rather than accuracy is the measure to maximise). μᵧ = 2p(1 − p) = 0.42.
pub const CLASS_PRIOR: f64 = 0.3;

/// The name of the game's readout ([`PosedGame::readout`]): the page labels its row with it.
pub const READOUT: &str = "AUC";

/// How a record's features are drawn around its class's mean ±(c/2)·v.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AucLaw {
    /// Noise uniform in the cube [−c/(2√d), c/(2√d)]^d, so ‖a‖ ≤ c/2 + c/2 = c by construction.
    Bounded,
    /// Noise `scale`·ξ with ξ from `tail`; the features are clipped to ‖a‖ ≤ c when clipping is on.
    Heavy {
        /// The law of ξ (e.g. Student-t ν).
        tail: Tail,
        /// Its scale.
        scale: f64,
    },
}

/// Everything that defines an AUC maximisation game, from the configuration alone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AucSpec {
    /// d, the features' dimension (x has d + 2 coordinates: w, s, t).
    pub d: usize,
    /// n, the number of records.
    pub n: usize,
    /// The seed of the class direction and of every record.
    pub seed: u32,
    /// R, the radius of w's ball.
    pub radius: f64,
    /// c = C_a: the declared bound on ‖a‖₂.
    pub bound: f64,
    /// How records are drawn.
    pub law: AucLaw,
    /// Whether heavy records are clipped to c (off: a demonstration whose constants fail).
    pub clip: bool,
}

impl AucSpec {
    /// X: ‖w‖ ≤ R times |s|, |t| ≤ Rc.
    pub fn x_domain(&self) -> DomainKind {
        DomainKind::BallBox {
            radius: self.radius,
            half_width: self.radius * self.bound,
            boxed: 2,
        }
    }

    /// Y: α ∈ [−2Rc, 2Rc].
    pub fn y_domain(&self) -> DomainKind {
        let a = 2.0 * self.radius * self.bound;
        DomainKind::Box { lo: -a, hi: a }
    }

    /// (dₓ, dᵧ) = (d + 2, 1).
    pub fn dims(&self) -> (usize, usize) {
        (self.d + 2, 1)
    }

    /// The ledger's sentence when heavy-tailed records are left unclipped.
    pub fn leak(&self) -> Option<&'static str> {
        let unbounded = matches!(self.law, AucLaw::Heavy { .. }) && !self.clip;
        unbounded.then_some(
            "records NOT clipped to the declared bound c: a heavy-tailed record's features can be \
             any size, so the constants that set the noise, and the guarantee, do not hold",
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
        if let AucLaw::Heavy { tail, scale } = self.law {
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

    /// The declared constants, from c, R and p alone (derived in the module's doc).
    pub fn constants(&self) -> GameConstants {
        let (c, r, p) = (self.bound, self.radius, CLASS_PRIOR);
        let q = 1.0 - p;
        // A class of weight `own` (q for b = +1) whose α-term has the other prior `other`.
        let class = |own: f64, other: f64| {
            let gw = 2.0 * own * c * (1.0 + 4.0 * r * c);
            let gs = 4.0 * own * r * c;
            let ga = 2.0 * own * r * c * (1.0 + 2.0 * other);
            (gw * gw + gs * gs + ga * ga).sqrt()
        };
        let lipschitz = class(q, p).max(class(p, q));
        let smoothness = (2.0 * q * (c * c + c + 1.0 + p)).max(2.0 * p * (c * c + c + 1.0 + q));
        GameConstants {
            // ‖·‖_∞ ≤ ‖·‖₂, and the ℓ1→ℓ∞ norm of a Hessian (its largest entry) is ≤ its ℓ2 norm.
            linf_lipschitz: lipschitz,
            l1_smoothness: smoothness,
            second_order: 0.0,
            lipschitz,
            smoothness,
            mu_x: 0.0,
            mu_y: 2.0 * p * q,
        }
    }
}

/// Key of record i's generator: the seed, a tag no other stream uses, and the index.
fn record_rng(seed: u32, index: usize) -> DpRng {
    let mut key = [0u8; 32];
    key[..4].copy_from_slice(&seed.to_le_bytes());
    key[4..8].copy_from_slice(b"auc\0");
    key[8..16].copy_from_slice(&(index as u64).to_le_bytes());
    DpRng::from_seed(key)
}

/// Both ends of the certified gap at a point (see the module's doc).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bracket {
    /// max_α f̂(x, α), exact.
    pub upper: f64,
    /// f̂(x_t, α) at the inner solve's point: ≥ min_x f̂(x, α).
    pub inner: f64,
    /// The Frank–Wolfe gap at x_t: min_x f̂(x, α) ≥ inner − fw.
    pub fw: f64,
}

impl Bracket {
    /// The empirical duality gap lies in [upper − inner, upper − inner + fw].
    pub fn range(&self) -> (f64, f64) {
        (self.upper - self.inner, self.upper - self.inner + self.fw)
    }
}

/// The AUC maximisation game of an [`AucSpec`], with its empirical moments.
#[derive(Debug, Clone, PartialEq)]
pub struct AucGame {
    spec: AucSpec,
    /// v, the unit direction the classes are shifted along (from the seed's data stream).
    direction: Vec<f64>,
    /// π₊, π₋: the classes' shares of the records.
    shares: [f64; 2],
    /// S₊, S₋ (d each).
    sums: [Vec<f64>; 2],
    /// Q₊, Q₋ (d × d, row-major).
    seconds: [Vec<f64>; 2],
    /// A's eigenvalues (clamped at 0: A ⪰ 0) and eigenvectors (column j of a row-major d × d).
    eigenvalues: Vec<f64>,
    eigenvectors: Vec<f64>,
    /// Vᵀu, u = pS₋ − qS₊, in A's eigenbasis.
    u_hat: Vec<f64>,
    ball_box: DomainKind,
    interval: DomainKind,
    /// The AUC at the reference saddle point, found at the first release that asks for it.
    reference_auc: Cached,
    /// Record 0 replaced by this record, already through the gate ([`AucGame::with_record`]).
    planted: Option<Vec<f64>>,
    /// The stream's record gate: every record read passes it ([`AucGame::fill_record`]).
    gate: RecordGate,
}

/// A value computed once from the rest of the game (so two equal games have equal values: it
/// takes no part in comparing them).
#[derive(Debug, Clone, Default)]
struct Cached(OnceLock<Option<f64>>);

impl PartialEq for Cached {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// The record gate of `spec`'s stream: features in the ball of radius c (+∞, finite only, in
/// the NOT PRIVATE demonstration of [`AucSpec::leak`]), the label in [−1, 1]. The bounds the
/// generator and a planted record clip to, so a record they produced passes bit for bit.
fn stream_gate(spec: &AucSpec) -> RecordGate {
    let c = if spec.leak().is_some() {
        f64::INFINITY
    } else {
        spec.bound
    };
    RecordGate::new(vec![
        Segment::Ball {
            len: spec.d,
            bound: c,
        },
        Segment::Interval { len: 1, bound: 1.0 },
    ])
}

impl AucGame {
    /// The game of `spec`: draws the class direction and keeps the empirical moments in one
    /// streamed pass over the n records.
    pub fn new(spec: AucSpec) -> Result<Self> {
        Self::build(spec, None)
    }

    /// The game of `spec` with record 0 replaced by `record` (len d + 1: the features, then the
    /// label ±1), which passes the record gate as a drawn heavy record does
    /// ([`crate::data::gate`]): whatever its features hold (NaN, ±∞, 1e308), the game reads
    /// ‖a‖ ≤ c, or finite values in the NOT PRIVATE demonstration that unclips records. For
    /// neighbouring pairs (audits, tests). Errors: a mis-sized record, a label other than ±1.
    pub fn with_record(spec: AucSpec, mut record: Vec<f64>) -> Result<Self> {
        let d = spec.d;
        if record.len() != d + 1 {
            return Err(Error::DimensionMismatch {
                what: "record",
                expected: d + 1,
                got: record.len(),
            });
        }
        if record[d].abs() != 1.0 {
            return Err(Error::invalid("record", "a label of +1 or −1", record[d]));
        }
        let bound = if spec.leak().is_some() {
            f64::INFINITY
        } else {
            spec.bound
        };
        clip_ball(&mut record[..d], bound);
        Self::build(spec, Some(record))
    }

    fn build(spec: AucSpec, planted: Option<Vec<f64>>) -> Result<Self> {
        spec.validate()?;
        let d = spec.d;
        let mut rng = crate::rng::seeded(spec.seed, crate::rng::Stream::Data);
        let mut direction = vec![0.0; d];
        Tail::Gaussian.sample_into(&mut rng, &mut direction);
        let len = norm2(&direction);
        if len > 0.0 {
            direction.iter_mut().for_each(|v| *v /= len);
        } else {
            direction[0] = 1.0;
        }
        let mut game = Self {
            spec,
            direction,
            shares: [0.0; 2],
            sums: [vec![0.0; d], vec![0.0; d]],
            seconds: [vec![0.0; d * d], vec![0.0; d * d]],
            eigenvalues: vec![0.0; d],
            eigenvectors: vec![0.0; d * d],
            u_hat: vec![0.0; d],
            ball_box: spec.x_domain(),
            interval: spec.y_domain(),
            reference_auc: Cached::default(),
            planted,
            gate: stream_gate(&spec),
        };
        let inv = 1.0 / spec.n as f64;
        let mut buf = vec![0.0; d + 1];
        for i in 0..spec.n {
            let record = game.fill_record(i, &mut buf);
            let (a, b) = record.split_at(d);
            let k = usize::from(b[0] < 0.0);
            game.shares[k] += inv;
            axpy(inv, a, &mut game.sums[k]);
            for (row, aj) in game.seconds[k].chunks_exact_mut(d).zip(a) {
                axpy(inv * aj, a, row);
            }
        }
        let finite = game
            .sums
            .iter()
            .chain(&game.seconds)
            .flatten()
            .all(|v| v.is_finite());
        if !finite {
            return Err(Error::NonFinite {
                what: "the records' moments",
            });
        }
        game.decompose();
        Ok(game)
    }

    /// A = q(Q₊ − S₊S₊ᵀ/π₊) + p(Q₋ − S₋S₋ᵀ/π₋) and u = pS₋ − qS₊, A by its eigen-decomposition.
    fn decompose(&mut self) {
        let d = self.spec.d;
        let (p, q) = (CLASS_PRIOR, 1.0 - CLASS_PRIOR);
        let mut a = nalgebra::DMatrix::<f64>::zeros(d, d);
        for (k, weight) in [(0, q), (1, p)] {
            let (share, sum, second) = (self.shares[k], &self.sums[k], &self.seconds[k]);
            for i in 0..d {
                for j in 0..d {
                    let centred = if share > 0.0 {
                        sum[i] * sum[j] / share
                    } else {
                        0.0
                    };
                    a[(i, j)] += weight * (second[i * d + j] - centred);
                }
            }
        }
        let u: Vec<f64> = (0..d)
            .map(|i| p * self.sums[1][i] - q * self.sums[0][i])
            .collect();
        let eigen = nalgebra::SymmetricEigen::new(a);
        for j in 0..d {
            self.eigenvalues[j] = eigen.eigenvalues[j].max(0.0);
            let column = eigen.eigenvectors.column(j);
            for i in 0..d {
                self.eigenvectors[i * d + j] = column[i];
            }
            self.u_hat[j] = (0..d).map(|i| column[i] * u[i]).sum();
        }
    }

    /// The specification it was built from.
    pub fn spec(&self) -> &AucSpec {
        &self.spec
    }

    /// Writes record i into `buf` (len d + 1): the features, then the label ±1; returns it as it
    /// passed the stream's gate (the record every reader takes).
    pub fn fill_record<'b>(&self, i: usize, buf: &'b mut [f64]) -> Gated<'b> {
        if let (0, Some(record)) = (i, &self.planted) {
            buf.copy_from_slice(record);
            return self.gate.pass(buf);
        }
        let s = &self.spec;
        let (d, c) = (s.d, s.bound);
        let mut rng = record_rng(s.seed, i);
        let label = if rng.random::<f64>() < CLASS_PRIOR {
            1.0
        } else {
            -1.0
        };
        let (a, rest) = buf.split_at_mut(d);
        match s.law {
            AucLaw::Bounded => {
                let half = 0.5 * c / (d as f64).sqrt();
                a.iter_mut()
                    .for_each(|v| *v = half * (2.0 * rng.random::<f64>() - 1.0));
            }
            AucLaw::Heavy { tail, scale } => {
                tail.sample_into(&mut rng, a);
                a.iter_mut().for_each(|v| *v *= scale);
            }
        }
        axpy(label * 0.5 * c, &self.direction, a);
        if matches!(s.law, AucLaw::Heavy { .. }) {
            // The record gate: ‖a‖ ≤ c, or (the NOT PRIVATE demonstration) finite entries.
            clip_ball(a, if s.clip { c } else { f64::INFINITY });
        }
        rest[0] = label;
        self.gate.pass(buf)
    }

    /// u = pS₋ − qS₊ (d).
    fn u(&self) -> Vec<f64> {
        let (p, q) = (CLASS_PRIOR, 1.0 - CLASS_PRIOR);
        self.sums[1]
            .iter()
            .zip(&self.sums[0])
            .map(|(minus, plus)| p * minus - q * plus)
            .collect()
    }

    /// f̂(x, α), writing ∇ₓf̂ into `gx` and ∂_αf̂ into `gy` (from the moments; no record read).
    fn evaluate(&self, x: &[f64], alpha: f64, gx: &mut [f64], gy: &mut [f64]) -> f64 {
        let d = self.spec.d;
        let (p, q) = (CLASS_PRIOR, 1.0 - CLASS_PRIOR);
        let (w, st) = x.split_at(d);
        let (gw, gst) = gx.split_at_mut(d);
        let u = self.u();
        let beta = 1.0 + alpha;
        let mut value = 2.0 * beta * dot(&u, w) - p * q * alpha * alpha;
        gw.iter_mut()
            .zip(&u)
            .for_each(|(g, ui)| *g = 2.0 * beta * ui);
        // Class k: weight ω (q for +, p for −), its offset θ (s or t).
        for (k, weight) in [(0, q), (1, p)] {
            let theta = st[k];
            let (sum, second) = (&self.sums[k], &self.seconds[k]);
            let sw = dot(sum, w);
            let mut qw = vec![0.0; d];
            for (qi, row) in qw.iter_mut().zip(second.chunks_exact(d)) {
                *qi = dot(row, w);
            }
            value += weight * (dot(w, &qw) - 2.0 * theta * sw + self.shares[k] * theta * theta);
            axpy(2.0 * weight, &qw, gw);
            axpy(-2.0 * weight * theta, sum, gw);
            gst[k] = 2.0 * weight * (self.shares[k] * theta - sw);
        }
        gy[0] = 2.0 * dot(&u, w) - 2.0 * p * q * alpha;
        value
    }

    /// The minimiser of f̂(·, α) over the ball × box (up to rounding; the certificate does not
    /// rely on it): w from the trust-region problem in A's eigenbasis, then s*, t*.
    fn inner_point(&self, alpha: f64) -> Vec<f64> {
        let (d, r) = (self.spec.d, self.spec.radius);
        let beta = 1.0 + alpha;
        let g: Vec<f64> = self.u_hat.iter().map(|v| beta * v).collect();
        // z(ν) = −g/(λ + ν); ν = 0 when that is inside the ball (coordinates with λ = g = 0 at 0).
        let z_at = |nu: f64| -> Vec<f64> {
            g.iter()
                .zip(&self.eigenvalues)
                .map(|(gi, l)| if *gi == 0.0 { 0.0 } else { -gi / (l + nu) })
                .collect()
        };
        let inside = |z: &[f64]| z.iter().all(|v| v.is_finite()) && norm2(z) <= r;
        let mut z = z_at(0.0);
        if !inside(&z) {
            // ‖z(ν)‖ decreases in ν > 0 and is ≤ ‖g‖/ν: the root lies in (0, ‖g‖/R].
            let (mut lo, mut hi) = (0.0, norm2(&g) / r);
            for _ in 0..200 {
                let mid = 0.5 * (lo + hi);
                if mid <= lo || mid >= hi {
                    break;
                }
                if norm2(&z_at(mid)) > r {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            z = z_at(hi);
        }
        let mut x = vec![0.0; d + 2];
        for (i, xi) in x[..d].iter_mut().enumerate() {
            *xi = dot(&self.eigenvectors[i * d..(i + 1) * d], &z);
        }
        for k in 0..2 {
            let share = self.shares[k];
            x[d + k] = if share > 0.0 {
                dot(&self.sums[k], &x[..d]) / share
            } else {
                0.0
            };
        }
        self.ball_box.project(&mut x);
        x
    }

    /// Both ends of the certified duality gap at (x, α): exact max over α, and min over x
    /// bracketed by the inner solve's value and its Frank–Wolfe gap. **Non-private**.
    pub fn bracket(&self, x: &[f64], y: &[f64]) -> Result<Bracket> {
        let (dx, _) = self.spec.dims();
        let (mut gx, mut gy) = (vec![0.0; dx], [0.0]);
        self.check_point(x, y, &gx, &gy)?;
        let (p, q) = (CLASS_PRIOR, 1.0 - CLASS_PRIOR);
        let cap = 2.0 * self.spec.radius * self.spec.bound;
        let best = (dot(&self.u(), &x[..self.spec.d]) / (p * q)).clamp(-cap, cap);
        let upper = self.evaluate(x, best, &mut gx, &mut gy);
        let inner_x = self.inner_point(y[0]);
        let inner = self.evaluate(&inner_x, y[0], &mut gx, &mut gy);
        // max over x′ ∈ X of ⟨g, x_t − x′⟩ = ⟨g, x_t⟩ + σ_X(−g) ≥ 0.
        gx.iter_mut().for_each(|v| *v = -*v);
        let fw = (self.ball_box.support_l1(&gx, 0.0) - dot(&gx, &inner_x)).max(0.0);
        Ok(Bracket { upper, inner, fw })
    }

    /// The empirical game's saddle point (x*, α*), x* = (w, s, t), solved without noise (**non-private**:
    /// a reference for the readout, never for a release). The dual function
    /// g(α) = min_x f̂(x, α) is concave (a minimum of concave functions), so a golden-section
    /// search over Y = [−2Rc, 2Rc] finds α*, and x* is the inner minimiser at α*.
    pub fn reference_point(&self) -> (Vec<f64>, f64) {
        let cap = 2.0 * self.spec.radius * self.spec.bound;
        let (mut gx, mut gy) = (vec![0.0; self.spec.d + 2], [0.0]);
        let mut dual = |alpha: f64| {
            let x = self.inner_point(alpha);
            self.evaluate(&x, alpha, &mut gx, &mut gy)
        };
        let ratio = 0.5 * (5f64.sqrt() - 1.0);
        let (mut lo, mut hi) = (-cap, cap);
        let (mut a, mut b) = (hi - ratio * (hi - lo), lo + ratio * (hi - lo));
        let (mut ga, mut gb) = (dual(a), dual(b));
        // Each step keeps 0.618 of the interval: 100 steps leave 1e-21 of it, below rounding.
        for _ in 0..100 {
            if ga < gb {
                lo = a;
                (a, ga) = (b, gb);
                b = lo + ratio * (hi - lo);
                gb = dual(b);
            } else {
                hi = b;
                (b, gb) = (a, ga);
                a = hi - ratio * (hi - lo);
                ga = dual(a);
            }
        }
        let alpha = 0.5 * (lo + hi);
        (self.inner_point(alpha), alpha)
    }

    /// The AUC of the score wᵀa on the records: the share of (positive, negative) pairs the
    /// score orders correctly, ties counting half. One streamed pass and a sort. **Non-private**
    /// (a readout of the records).
    pub fn auc(&self, w: &[f64]) -> Result<f64> {
        let d = self.spec.d;
        if w.len() != d {
            return Err(Error::DimensionMismatch {
                what: "w",
                expected: d,
                got: w.len(),
            });
        }
        let mut buf = vec![0.0; d + 1];
        let mut scored: Vec<(f64, bool)> = (0..self.spec.n)
            .map(|i| {
                let record = self.fill_record(i, &mut buf);
                (dot(&record[..d], w), record[d] > 0.0)
            })
            .collect();
        scored.sort_by(|a, b| a.0.total_cmp(&b.0));
        // Mann–Whitney: a positive's rank counts the negatives below it, half those tied.
        let (mut negatives_below, mut correct, mut positives) = (0.0, 0.0, 0.0);
        let mut i = 0;
        while i < scored.len() {
            let j = i + scored[i..].partition_point(|s| s.0 == scored[i].0);
            let pos = scored[i..j].iter().filter(|s| s.1).count() as f64;
            let neg = (j - i) as f64 - pos;
            correct += pos * (negatives_below + 0.5 * neg);
            positives += pos;
            negatives_below += neg;
            i = j;
        }
        let pairs = positives * negatives_below;
        Ok(if pairs > 0.0 { correct / pairs } else { 0.5 })
    }
}

impl SaddleProblem for AucGame {
    fn dims(&self) -> (usize, usize) {
        self.spec.dims()
    }

    fn x_domain(&self) -> &dyn Domain {
        &self.ball_box
    }

    fn y_domain(&self) -> &dyn Domain {
        &self.interval
    }

    fn value(&self, x: &[f64], y: &[f64]) -> Result<f64> {
        let (mut gx, mut gy) = (vec![0.0; self.spec.d + 2], [0.0]);
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
        Ok(self.evaluate(x, y[0], gx, gy))
    }

    fn duality_gap(&self, x: &[f64], y: &[f64], gx: &mut [f64], gy: &mut [f64]) -> Result<Gap> {
        self.check_point(x, y, gx, gy)?;
        let b = self.bracket(x, y)?;
        Ok(Gap {
            upper: b.upper,
            lower: b.inner - b.fw,
        })
    }
}

impl RecordGame for AucGame {
    fn records(&self) -> usize {
        self.spec.n
    }

    fn constants(&self) -> GameConstants {
        self.spec.constants()
    }

    fn scratch(&self) -> RecordScratch {
        RecordScratch {
            buf: vec![0.0; self.spec.d + 1],
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
        let d = s.d;
        scratch.buf.resize(d + 1, 0.0);
        let record = self.fill_record(i, &mut scratch.buf);
        let (a, label) = record.split_at(d);
        let (p, q) = (CLASS_PRIOR, 1.0 - CLASS_PRIOR);
        let alpha = y[0];
        let score = dot(a, &x[..d]);
        // b = +1: weight q, offset s (x[d]), sign −1 on the α-term; b = −1: p, t, +1.
        let (own, offset, sign) = if label[0] > 0.0 {
            (q, d, -1.0)
        } else {
            (p, d + 1, 1.0)
        };
        let residual = score - x[offset];
        axpy(
            weight * 2.0 * own * (residual + sign * (1.0 + alpha)),
            a,
            &mut gx[..d],
        );
        gx[offset] -= weight * 2.0 * own * residual;
        gy[0] += weight * (2.0 * own * sign * score - 2.0 * p * q * alpha);
        Ok(())
    }
}

impl PosedGame for AucGame {
    fn x_domain_kind(&self) -> DomainKind {
        self.ball_box
    }

    fn y_domain_kind(&self) -> DomainKind {
        self.interval
    }

    fn leak(&self) -> Option<&'static str> {
        self.spec.leak()
    }

    /// The AUC of the released w, and of the reference saddle point's (both **non-private**).
    fn readout(&self, x: &[f64]) -> Option<Readout> {
        let d = self.spec.d;
        let reference = *self.reference_auc.0.get_or_init(|| {
            let (point, _) = self.reference_point();
            self.auc(&point[..d]).ok()
        });
        Some(Readout {
            name: READOUT,
            released: self.auc(x.get(..d)?).ok()?,
            reference,
        })
    }
}

#[cfg(test)]
mod tests;
