//! The stochastic regularised bilinear game, streamed from (seed, record index): the saddle
//! problem every minimax family of the playground runs on.
//!
//! Record ξᵢ = (Mᵢ, bᵢ) with Mᵢ ∈ R^{dₓ×dᵧ} and bᵢ ∈ R^{dᵧ}, and
//!
//! f(x, y; ξᵢ) = (μₓ/2)‖x‖² + xᵀMᵢ y − bᵢᵀy − (μᵧ/2)‖y‖²,   x ∈ X, y ∈ Y.
//!
//! With μₓ = μᵧ = 0, b = 0 and X, Y simplices this is the stochastic matrix game of González, Guzmán & Paquette 2024;
//! on ℓ2 balls with μₓ, μᵧ > 0 it is the regularised
//! SC-SC bilinear game of Zhang et al. 2022, and with
//! μ = 0 its convex–concave sibling.
//!
//! ## Records are streamed, never stored
//! Record i is regenerated from its own ChaCha key (seed, i) whenever an algorithm asks for it,
//! so memory is O(dₓdᵧ) whatever n is (records stream from (seed, index) rather than n stored
//! matrices). The empirical means M̄, b̄ are accumulated in one pass at construction;
//! the empirical game is bilinear in them, so its gap is exact.
//!
//! ## Declared bounds
//! Every entry of Mᵢ and bᵢ is clipped to [−c, c], c the declared `entry_bound`, and every constant
//! ([`GameConstants`]) follows from c, the dimensions, μ and the domains, never from the records
//! (docs/PRIVACY.md rule 1). With clipping off (a demonstration) the records may exceed c and the
//! declared constants are not bounds.
//!
//! ## The exact duality gap
//! With H_{ρ,W}(g) = max_{v∈W} gᵀv − (ρ/2)‖v‖² (for ρ > 0 the maximiser is the projection of g/ρ
//! onto W; for ρ = 0 it is W's support function),
//! max_y f̂(x, y) = (μₓ/2)‖x‖² + H_{μᵧ,Y}(M̄ᵀx − b̄) and
//! min_x f̂(x, y) = −H_{μₓ,X}(−M̄y) − b̄ᵀy − (μᵧ/2)‖y‖².

use rand::SeedableRng;

use super::query_release::{self, MAX_ATTRIBUTES, MIN_ATTRIBUTES, Marginals};
use super::{GameConstants, Gap, RecordGame, RecordScratch, SaddleProblem};
use crate::data::Tail;
use crate::data::gate::{Gated, RecordGate, Segment, clip_value};
use crate::domain::{Domain, DomainKind};
use crate::error::{Error, Result};
use crate::linalg::{axpy, dot};
use crate::rng::DpRng;

/// The base payoffs M₀ (b₀ = 0 unless the game has an offset), around which records scatter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Payoffs {
    /// Rock–paper–scissors (entries ±½) embedded in d ≥ 3 strategies per player: the extra
    /// strategies are strictly dominated, so the unique equilibrium is uniform play of the first
    /// three, with value 0.
    RockPaperScissors,
    /// Entries uniform in [−½, ½] from the seed's data stream (b₀ too, when the game has an offset).
    Random,
    /// Query release over k binary attributes ([`super::query_release`]): M fixed by the
    /// queries, each record a universe element whose answers are its offset b. The record law is
    /// the universe's distribution (the spec's `law` does not apply).
    QueryRelease {
        /// k, the number of binary attributes: dₓ = 2^k, dᵧ = 8·C(k, 2).
        attributes: usize,
    },
}

/// How each record scatters around the base game.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RecordLaw {
    /// Every entry ±c, +c with probability (1 + m₀/c)/2: mean exactly M₀, and bounded by c.
    Rademacher,
    /// Entry m₀ + scale·ξ with ξ from `tail` (one draw of the record's whole vector), clipped to
    /// [−c, c] when clipping is on.
    Heavy {
        /// The law of ξ (e.g. Student-t ν).
        tail: Tail,
        /// Its scale.
        scale: f64,
    },
}

/// Everything that defines a game, from the configuration alone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GameSpec {
    /// The base payoffs.
    pub payoffs: Payoffs,
    /// dₓ (the minimising player's dimension).
    pub dx: usize,
    /// dᵧ (the maximising player's dimension).
    pub dy: usize,
    /// Whether records carry a linear term bᵢ in y (Zhang et al. 2022's games); matrix games have none.
    pub offset: bool,
    /// μₓ ≥ 0: strong convexity in x.
    pub mu_x: f64,
    /// μᵧ ≥ 0: strong concavity in y.
    pub mu_y: f64,
    /// X.
    pub x_domain: DomainKind,
    /// Y.
    pub y_domain: DomainKind,
    /// n, the number of records.
    pub n: usize,
    /// The seed of the base game and of every record.
    pub seed: u32,
    /// c: the declared bound on every entry of Mᵢ and bᵢ.
    pub entry_bound: f64,
    /// How records scatter.
    pub law: RecordLaw,
    /// Whether records are clipped to c (off: a demonstration whose declared constants fail).
    pub clip: bool,
}

/// The stochastic game of [`GameSpec`], with its empirical means.
#[derive(Debug, Clone, PartialEq)]
pub struct StochasticGame {
    spec: GameSpec,
    /// M₀, dₓ × dᵧ row-major.
    base_m: Vec<f64>,
    base_b: Vec<f64>,
    /// M̄ = (1/n) Σ Mᵢ, row-major.
    mean_m: Vec<f64>,
    mean_b: Vec<f64>,
    /// Record 0 replaced by [`planted_record`] with this sign (audits' neighbouring pairs).
    planted: Option<f64>,
    /// Query release's queries and record distribution (`None` for other payoffs).
    marginals: Option<Marginals>,
    /// The stream's record gate: every record read passes it (`fill_record`).
    gate: RecordGate,
}

/// How far beyond the declared bound an audit's planted record goes when records are unclipped.
const UNCLIPPED_PLANT: f64 = 1000.0;

/// The record an audit plants at index 0, with `sign` = ±1: entry (j, k) of M is
/// sign·c·(+1 when exactly one of j, k is 0, else −1), and bⱼ likewise sign·c·(±1 by j = 0). Every
/// entry sits at the declared bound, so the pair (+1, −1) changes each by 2c, the most a
/// replaced record can; and, unlike a constant record, the change moves both players: it favours
/// x's first strategy against y's others, and y's first against x's others. (A constant shift
/// of M changes no one's choice on simplices.)
///
/// With heavy records left unclipped (the demonstration of [`GameSpec::leak`]) the planted record
/// is what such a record can be: a thousand times the declared bound.
fn planted_record(spec: &GameSpec, sign: f64, buf: &mut [f64]) {
    let c = if spec.leak().is_some() {
        UNCLIPPED_PLANT * spec.entry_bound
    } else {
        spec.entry_bound
    };
    let (dx, dy) = (spec.dx, spec.dy);
    for j in 0..dx {
        for k in 0..dy {
            buf[j * dy + k] = if (j == 0) != (k == 0) {
                sign * c
            } else {
                -sign * c
            };
        }
    }
    for (k, b) in buf[dx * dy..].iter_mut().enumerate() {
        *b = if !spec.offset {
            0.0
        } else if k == 0 {
            sign * c
        } else {
            -sign * c
        };
    }
}

/// Key of record i's generator: the run's seed, a tag no other stream uses, and the index.
fn record_rng(seed: u32, index: usize) -> DpRng {
    let mut key = [0u8; 32];
    key[..4].copy_from_slice(&seed.to_le_bytes());
    key[4..8].copy_from_slice(b"rec\0");
    key[8..16].copy_from_slice(&(index as u64).to_le_bytes());
    DpRng::from_seed(key)
}

fn positive_dim(field: &'static str, d: usize) -> Result<()> {
    if d == 0 {
        return Err(Error::invalid(field, "at least 1", d));
    }
    Ok(())
}

impl GameSpec {
    /// The sentence a run's ledger carries when heavy-tailed records are left unclipped: the
    /// declared constants then bound nothing, so neither does the guarantee computed from them.
    pub fn leak(&self) -> Option<&'static str> {
        let unbounded = matches!(self.law, RecordLaw::Heavy { .. }) && !self.clip;
        unbounded.then_some(
            "records NOT clipped to the declared bound ±c: a heavy-tailed record's payoffs can be \
             any size, so the constants that set the noise, and the guarantee, do not hold",
        )
    }

    /// Checks every field, naming the one that is wrong.
    pub fn validate(&self) -> Result<()> {
        positive_dim("d", self.dx)?;
        positive_dim("d", self.dy)?;
        positive_dim("n", self.n)?;
        if let Payoffs::QueryRelease { attributes } = self.payoffs {
            if !(MIN_ATTRIBUTES..=MAX_ATTRIBUTES).contains(&attributes) {
                return Err(Error::invalid(
                    "d",
                    format!(
                        "{MIN_ATTRIBUTES} to {MAX_ATTRIBUTES} binary attributes for query release"
                    ),
                    attributes,
                ));
            }
            let simplices =
                self.x_domain == DomainKind::Simplex && self.y_domain == DomainKind::Simplex;
            if (self.dx, self.dy) != query_release::dims(attributes) || !simplices || !self.offset {
                return Err(Error::invalid(
                    "game",
                    "query release as posed: histograms and signed queries on simplices",
                    format!("{} × {} strategies", self.dx, self.dy),
                ));
            }
            if self.entry_bound < 1.0 {
                return Err(Error::invalid(
                    "entry_bound",
                    "at least 1: a query answers ±1",
                    self.entry_bound,
                ));
            }
        }
        if self.payoffs == Payoffs::RockPaperScissors && (self.dx < 3 || self.dy < 3) {
            return Err(Error::invalid(
                "d",
                "at least 3 strategies for rock–paper–scissors",
                self.dx.min(self.dy),
            ));
        }
        for (field, mu) in [("mu_x", self.mu_x), ("mu_y", self.mu_y)] {
            if !(mu.is_finite() && mu >= 0.0) {
                return Err(Error::invalid(field, "a finite number ≥ 0", mu));
            }
        }
        self.x_domain.validate()?;
        self.y_domain.validate()?;
        if !(self.entry_bound.is_finite() && self.entry_bound > 0.0) {
            return Err(Error::invalid(
                "entry_bound",
                "a finite number > 0",
                self.entry_bound,
            ));
        }
        match self.law {
            // The ±c law has mean m₀ only if |m₀| ≤ c; the base payoffs lie in [−½, ½].
            RecordLaw::Rademacher if self.entry_bound < 0.5 => Err(Error::invalid(
                "entry_bound",
                "at least 0.5 (the largest base payoff) for ±c records",
                self.entry_bound,
            )),
            RecordLaw::Heavy { tail, scale } => {
                tail.validate("tail")?;
                if scale.is_finite() && scale >= 0.0 {
                    Ok(())
                } else {
                    Err(Error::invalid("noise_scale", "a finite number ≥ 0", scale))
                }
            }
            RecordLaw::Rademacher => Ok(()),
        }
    }

    /// The declared constants: from c, the dimensions, μ and the domains alone.
    pub fn constants(&self) -> GameConstants {
        let c = self.entry_bound;
        let cb = if self.offset { c } else { 0.0 };
        let (dx, dy) = (self.dx, self.dy);
        // ℓ1 / ℓ∞ geometry (González, Guzmán & Paquette 2024): |(M y)_j| ≤ c‖y‖₁ and |(Mᵀx)_k| ≤ c‖x‖₁.
        let gx_inf =
            self.mu_x * linf_radius(&self.x_domain, dx) + c * l1_radius(&self.y_domain, dy);
        let gy_inf =
            c * l1_radius(&self.x_domain, dx) + cb + self.mu_y * linf_radius(&self.y_domain, dy);
        let mu_max = self.mu_x.max(self.mu_y);
        // ℓ2 geometry (Zhang et al. 2022): ‖M‖₂ ≤ ‖M‖_F ≤ c√(dₓdᵧ), ‖b‖ ≤ c√dᵧ.
        let op = c * ((dx * dy) as f64).sqrt();
        let (rx, ry) = (self.x_domain.radius_in(dx), self.y_domain.radius_in(dy));
        let gx = self.mu_x * rx + op * ry;
        let gy = op * rx + cb * (dy as f64).sqrt() + self.mu_y * ry;
        GameConstants {
            linf_lipschitz: gx_inf.max(gy_inf),
            l1_smoothness: c + mu_max,
            second_order: 0.0,
            lipschitz: gx.hypot(gy),
            smoothness: mu_max + op,
            mu_x: self.mu_x,
            mu_y: self.mu_y,
        }
    }
}

/// sup ‖w‖₁ over W ⊆ R^d.
fn l1_radius(domain: &DomainKind, d: usize) -> f64 {
    match *domain {
        DomainKind::Simplex => 1.0,
        DomainKind::L1Ball { radius } => radius,
        DomainKind::L2Ball { radius } => radius * (d as f64).sqrt(),
        DomainKind::Box { lo, hi } => lo.abs().max(hi.abs()) * d as f64,
        // ‖u‖₁ ≤ √(d − k)·R on the ball's d − k coordinates, k·h on the box's.
        DomainKind::BallBox {
            radius,
            half_width,
            boxed,
        } => radius * (d.saturating_sub(boxed) as f64).sqrt() + half_width * boxed as f64,
        DomainKind::Unconstrained => f64::INFINITY,
    }
}

/// sup ‖w‖_∞ over W.
fn linf_radius(domain: &DomainKind, d: usize) -> f64 {
    match *domain {
        DomainKind::Simplex => 1.0,
        DomainKind::L1Ball { radius } | DomainKind::L2Ball { radius } => radius,
        DomainKind::Box { lo, hi } => lo.abs().max(hi.abs()),
        DomainKind::BallBox {
            radius, half_width, ..
        } => radius.max(half_width),
        DomainKind::Unconstrained if d == 0 => 0.0,
        DomainKind::Unconstrained => f64::INFINITY,
    }
}

/// H_{ρ,W}(g) = max_{v∈W} gᵀv − (ρ/2)‖v‖², with `buf` (len g) as scratch.
pub(crate) fn conjugate(domain: &DomainKind, rho: f64, g: &[f64], buf: &mut [f64]) -> f64 {
    if rho == 0.0 {
        return domain.support_l1(g, 0.0);
    }
    buf.iter_mut().zip(g).for_each(|(v, gi)| *v = gi / rho);
    domain.project(buf);
    dot(g, buf) - 0.5 * rho * dot(buf, buf)
}

impl StochasticGame {
    /// The game of `spec`: draws the base payoffs and accumulates the empirical means in one
    /// streamed pass over the n records.
    pub fn new(spec: GameSpec) -> Result<Self> {
        Self::build(spec, None)
    }

    /// The game of `spec` with record 0 replaced by the planted record of `sign` (±1, see
    /// `planted_record`): the games of signs +1 and −1 are neighbours under replace-one, at the
    /// largest distance the declared bound allows. For audits.
    pub fn with_planted_record(spec: GameSpec, sign: f64) -> Result<Self> {
        if sign.abs() != 1.0 {
            return Err(Error::invalid("sign", "+1 or −1", sign));
        }
        Self::build(spec, Some(sign))
    }

    fn build(spec: GameSpec, planted: Option<f64>) -> Result<Self> {
        spec.validate()?;
        let marginals = match spec.payoffs {
            Payoffs::QueryRelease { attributes } => Some(Marginals::new(
                attributes,
                &mut crate::rng::seeded(spec.seed, crate::rng::Stream::Data),
            )),
            _ => None,
        };
        let (base_m, base_b) = match &marginals {
            Some(m) => (m.payoffs(), m.population_offsets()),
            None => base_payoffs(&spec),
        };
        let mut game = Self {
            gate: stream_gate(&spec),
            spec,
            base_m,
            base_b,
            mean_m: vec![0.0; spec.dx * spec.dy],
            mean_b: vec![0.0; spec.dy],
            planted,
            marginals,
        };
        let mut scratch = game.scratch();
        let (mut sum_m, mut sum_b) = (vec![0.0; spec.dx * spec.dy], vec![0.0; spec.dy]);
        for i in 0..spec.n {
            let record = game.fill_record(i, &mut scratch.buf);
            let (m, b) = record.split_at(spec.dx * spec.dy);
            axpy(1.0, m, &mut sum_m);
            axpy(1.0, b, &mut sum_b);
        }
        let inv = 1.0 / spec.n as f64;
        game.mean_m = sum_m.iter().map(|v| v * inv).collect();
        game.mean_b = sum_b.iter().map(|v| v * inv).collect();
        if game
            .mean_m
            .iter()
            .chain(&game.mean_b)
            .any(|v| !v.is_finite())
        {
            return Err(Error::NonFinite {
                what: "the game's mean payoffs",
            });
        }
        Ok(game)
    }

    /// The specification it was built from.
    pub fn spec(&self) -> &GameSpec {
        &self.spec
    }

    /// (1/|batch|) Σ_{i ∈ batch} f(x, y; ξᵢ): the game's value at (x, y) over the records `batch`
    /// alone (non-empty, below n), one streamed pass, with `scratch` from
    /// [`RecordGame::scratch`]. Algorithm 4 of González, Guzmán & Paquette 2024 scores its
    /// candidates on a part of the records no other step reads. **Non-private** on its own.
    pub fn batch_value(
        &self,
        batch: std::ops::Range<usize>,
        x: &[f64],
        y: &[f64],
        scratch: &mut RecordScratch,
    ) -> Result<f64> {
        let s = &self.spec;
        if x.len() != s.dx || y.len() != s.dy {
            return Err(Error::DimensionMismatch {
                what: "point",
                expected: s.dx + s.dy,
                got: x.len() + y.len(),
            });
        }
        if batch.is_empty() || batch.end > s.n {
            return Err(Error::invalid(
                "record",
                format!("a non-empty range below {}", s.n),
                format!("{batch:?}"),
            ));
        }
        scratch.buf.resize(s.dx * s.dy + s.dy, 0.0);
        let count = batch.len() as f64;
        let mut total = 0.0;
        for i in batch {
            let record = self.fill_record(i, &mut scratch.buf);
            let (m, b) = record.split_at(s.dx * s.dy);
            let bilinear: f64 = m
                .chunks_exact(s.dy)
                .zip(x)
                .map(|(row, xi)| xi * dot(row, y))
                .sum();
            total += bilinear - dot(b, y);
        }
        Ok(total / count + 0.5 * s.mu_x * dot(x, x) - 0.5 * s.mu_y * dot(y, y))
    }

    /// M̄ (dₓ × dᵧ, row-major) and b̄: the empirical game. **Non-private** (a mean of the records).
    pub fn mean_payoffs(&self) -> (&[f64], &[f64]) {
        (&self.mean_m, &self.mean_b)
    }

    /// M₀ and b₀: the base game the records scatter around (the population game of ±c records).
    pub fn base_payoffs(&self) -> (&[f64], &[f64]) {
        (&self.base_m, &self.base_b)
    }

    /// The equilibrium of the base game M₀ when it is known in closed form: rock–paper–scissors
    /// on simplices, uniform play of the first three strategies by both players. With the
    /// regularisers it stays so while μₓ, μᵧ ≤ 3/2: then the first three strategies' gradient
    /// entries (μ/3, from the regulariser; 0 from the payoffs) do not exceed the dominated ones'
    /// (½), which is the simplex's optimality condition. A declared property of the generator,
    /// not a measurement of the records; the empirical game's equilibrium scatters around it by
    /// O(c/√n).
    ///
    /// Query release at μ = 0: x* is the population's histogram (it answers every query
    /// exactly) and y* uniform play of all signed queries (each query and its negation cancel,
    /// so f(x, y*) = 0 for every x).
    pub fn base_equilibrium(&self) -> Option<(Vec<f64>, Vec<f64>)> {
        let spec = &self.spec;
        if let Some(marginals) = &self.marginals {
            let unregularised = spec.mu_x == 0.0 && spec.mu_y == 0.0;
            let uniform = vec![1.0 / spec.dy as f64; spec.dy];
            return unregularised.then(|| (marginals.population().to_vec(), uniform));
        }
        let simplices =
            spec.x_domain == DomainKind::Simplex && spec.y_domain == DomainKind::Simplex;
        let known = spec.payoffs == Payoffs::RockPaperScissors
            && simplices
            && !spec.offset
            && spec.mu_x <= 1.5
            && spec.mu_y <= 1.5;
        let uniform_on_three = |d: usize| {
            (0..d)
                .map(|j| if j < 3 { 1.0 / 3.0 } else { 0.0 })
                .collect::<Vec<_>>()
        };
        known.then(|| (uniform_on_three(spec.dx), uniform_on_three(spec.dy)))
    }

    /// Writes record i = (Mᵢ row-major, then bᵢ) into `buf` (len dₓdᵧ + dᵧ); returns it as it
    /// passed the stream's gate (the record every reader takes).
    fn fill_record<'b>(&self, i: usize, buf: &'b mut [f64]) -> Gated<'b> {
        let spec = &self.spec;
        if let (0, Some(sign)) = (i, self.planted) {
            planted_record(spec, sign, buf);
            return self.gate.pass(buf);
        }
        let c = spec.entry_bound;
        let mut rng = record_rng(spec.seed, i);
        if let Some(marginals) = &self.marginals {
            let (m, b) = buf.split_at_mut(spec.dx * spec.dy);
            m.copy_from_slice(&self.base_m);
            marginals.record_offsets(&mut rng, b);
            return self.gate.pass(buf);
        }
        let bases = self.base_m.iter().chain(&self.base_b);
        match spec.law {
            RecordLaw::Rademacher => {
                use rand::RngExt;
                for (v, m0) in buf.iter_mut().zip(bases) {
                    let up: f64 = rng.random();
                    *v = if up < 0.5 * (1.0 + m0 / c) { c } else { -c };
                }
            }
            RecordLaw::Heavy { tail, scale } => {
                tail.sample_into(&mut rng, buf);
                // The record gate: every entry in [−c, c], or (the NOT PRIVATE demonstration)
                // finite.
                let bound = if spec.clip { c } else { f64::INFINITY };
                for (v, m0) in buf.iter_mut().zip(bases) {
                    *v = clip_value(m0 + scale * *v, bound);
                }
            }
        }
        if !spec.offset {
            buf[spec.dx * spec.dy..].fill(0.0);
        }
        self.gate.pass(buf)
    }
}

/// The record gate of `spec`'s stream: every entry of Mᵢ and bᵢ in [−c, c] (+∞, finite only, in
/// the NOT PRIVATE demonstration of [`GameSpec::leak`]): the bound the generator and the planted
/// record clip to, so a record they produced passes bit for bit.
fn stream_gate(spec: &GameSpec) -> RecordGate {
    let c = if spec.leak().is_some() {
        f64::INFINITY
    } else {
        spec.entry_bound
    };
    RecordGate::new(vec![Segment::Interval {
        len: spec.dx * spec.dy + spec.dy,
        bound: c,
    }])
}

/// M₀ and b₀ of the spec (entries in [−½, ½]).
fn base_payoffs(spec: &GameSpec) -> (Vec<f64>, Vec<f64>) {
    let (dx, dy) = (spec.dx, spec.dy);
    let mut rng = crate::rng::seeded(spec.seed, crate::rng::Stream::Data);
    let mut uniform = || {
        use rand::RngExt;
        rng.random::<f64>() - 0.5
    };
    let m = match spec.payoffs {
        Payoffs::RockPaperScissors => {
            // The maximiser's payoff xᵀM y: row j is the minimiser's strategy, column k the
            // maximiser's. Rock–paper–scissors in the first 3 × 3 block; a minimiser's extra
            // strategy pays the maximiser ½ against everything (dominated for x), a maximiser's
            // extra strategy pays −½ against x's first three (dominated for y).
            const RPS: [[f64; 3]; 3] = [[0.0, 0.5, -0.5], [-0.5, 0.0, 0.5], [0.5, -0.5, 0.0]];
            let mut m = vec![0.0; dx * dy];
            for j in 0..dx {
                for k in 0..dy {
                    m[j * dy + k] = match (j < 3, k < 3) {
                        (true, true) => RPS[j][k],
                        (false, _) => 0.5,
                        (true, false) => -0.5,
                    };
                }
            }
            m
        }
        Payoffs::Random => (0..dx * dy).map(|_| uniform()).collect(),
        // Built from its marginals (StochasticGame::build); never drawn here.
        Payoffs::QueryRelease { .. } => vec![0.0; dx * dy],
    };
    let b = if spec.offset {
        (0..dy).map(|_| uniform()).collect()
    } else {
        vec![0.0; dy]
    };
    (m, b)
}

impl SaddleProblem for StochasticGame {
    fn dims(&self) -> (usize, usize) {
        (self.spec.dx, self.spec.dy)
    }

    fn x_domain(&self) -> &dyn Domain {
        &self.spec.x_domain
    }

    fn y_domain(&self) -> &dyn Domain {
        &self.spec.y_domain
    }

    fn value(&self, x: &[f64], y: &[f64]) -> Result<f64> {
        let (mut gx, mut gy) = (vec![0.0; self.spec.dx], vec![0.0; self.spec.dy]);
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
        // gx ← M̄y + μₓx, gy ← M̄ᵀx − b̄ − μᵧy (one pass over M̄).
        gy.fill(0.0);
        for ((row, xi), gxi) in self.mean_m.chunks_exact(s.dy).zip(x).zip(gx.iter_mut()) {
            *gxi = dot(row, y);
            axpy(*xi, row, gy);
        }
        let bilinear = dot(x, gx);
        let (xx, yy) = (dot(x, x), dot(y, y));
        axpy(s.mu_x, x, gx);
        axpy(-1.0, &self.mean_b, gy);
        axpy(-s.mu_y, y, gy);
        Ok(0.5 * s.mu_x * xx + bilinear - dot(&self.mean_b, y) - 0.5 * s.mu_y * yy)
    }

    fn duality_gap(&self, x: &[f64], y: &[f64], gx: &mut [f64], gy: &mut [f64]) -> Result<Gap> {
        self.check_point(x, y, gx, gy)?;
        let s = &self.spec;
        // gy ← M̄ᵀx − b̄ and gx ← −M̄y, the linear parts the two inner problems see.
        gy.fill(0.0);
        for ((row, xi), gxi) in self.mean_m.chunks_exact(s.dy).zip(x).zip(gx.iter_mut()) {
            *gxi = -dot(row, y);
            axpy(*xi, row, gy);
        }
        axpy(-1.0, &self.mean_b, gy);
        let mut buf_y = vec![0.0; s.dy];
        let mut buf_x = vec![0.0; s.dx];
        let upper = 0.5 * s.mu_x * dot(x, x) + conjugate(&s.y_domain, s.mu_y, gy, &mut buf_y);
        let lower = -conjugate(&s.x_domain, s.mu_x, gx, &mut buf_x)
            - dot(&self.mean_b, y)
            - 0.5 * s.mu_y * dot(y, y);
        Ok(Gap { upper, lower })
    }
}

impl RecordGame for StochasticGame {
    fn records(&self) -> usize {
        self.spec.n
    }

    fn constants(&self) -> GameConstants {
        self.spec.constants()
    }

    fn scratch(&self) -> RecordScratch {
        RecordScratch {
            buf: vec![0.0; self.spec.dx * self.spec.dy + self.spec.dy],
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
        scratch.buf.resize(s.dx * s.dy + s.dy, 0.0);
        let record = self.fill_record(i, &mut scratch.buf);
        let (m, b) = record.split_at(s.dx * s.dy);
        for ((row, xi), gxi) in m.chunks_exact(s.dy).zip(x).zip(gx.iter_mut()) {
            *gxi += weight * (dot(row, y) + s.mu_x * xi);
            axpy(weight * xi, row, gy);
        }
        axpy(-weight, b, gy);
        axpy(-weight * s.mu_y, y, gy);
        Ok(())
    }
}

#[cfg(test)]
mod tests;
