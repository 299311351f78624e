//! The audit of private stochastic mirror descent's dense-gradient pitfall (González, Guzmán &
//! Paquette 2024, Algorithm 1), on a pair of games built for it.
//!
//! # Why a pair of its own
//! On the page's bilinear games the pitfall leaks little: a gradient of a bilinear game is
//! c-Lipschitz in the point, and the two players' dynamics rotate a perturbation without growing
//! it, so the dense trajectories of neighbouring games stay about 2L₀τ/B apart, as Algorithm 1's
//! draws do. The pitfall is dangerous when a whole batch's gradient can turn on a small move of
//! the point: Algorithm 1's privacy needs only ‖∇f‖_∞ ≤ L₀, never smoothness, and a record's f
//! may have a kink.
//!
//! # The pair
//! d strategies per player (d even), A the first half. Every record but the first is
//! f(x, y; ξ) = c·φ(Σ_{j∈A} xⱼ − ½) − c·φ(Σ_{j∈A} yⱼ − ½), with φ convex, φ′ = clamp(v/κ, −1, 1)
//! (a kink smoothed over κ = 10⁻⁹): convex–concave, ‖∇f‖_∞ ≤ c = L₀. The first record is
//! s·c·(Σ_{j∈A} xⱼ + Σ_{j∈A} yⱼ) with s = +1 (D) or −1 (D′), also within L₀.
//!
//! At the uniform start every other record's gradient is 0 (φ′(0) = 0), so after the first step
//! the planted record alone has moved each player's mass on A off ½ by ±cτ/(4B). With gradients
//! at the **dense** iterate every later batch then pushes the whole of c·τ against the side it
//! sees: the mass on A alternates between ½ ∓ small and ½ ± cτ/4, on opposite sides on D and
//! D′. The release (the average of T drawn vertices) carries that: its mass on A differs between
//! D and D′ by ≈ cτ/4 per player, against a spread of 1/(2√T); at τ = √(ℓ/T)/L₀ (ℓ = 2 ln d)
//! that is √ℓ/2 standard deviations per player. With gradients at the **drawn** vertices (the
//! algorithm) the other records' gradients are the same on D and D′ given the draws, and only
//! the planted record's 2L₀τ/B separates them.
//!
//! The statistic is the release's Σ_{j∈A} xⱼ − Σ_{j∈A} yⱼ. The claim is the guarantee of
//! Algorithm 1's plan for this n, d and L₀: what the page states for the run.

use std::sync::Arc;

use rand::{Rng, SeedableRng};

use super::{Auditable, Side};
use crate::algo::run::{Point, Run};
use crate::algo::smd::{PrivateSmd, SmdMode, SmdParams, SmdPlan};
use crate::domain::{Domain, DomainKind};
use crate::error::{Error, Result};
use crate::minimax::{GameConstants, Gap, RecordGame, RecordScratch, SaddleProblem};
use crate::privacy::{ApproxDp, Relation};
use crate::rng::DpRng;

/// The width κ over which the records' kink is smoothed.
const KINK_WIDTH: f64 = 1e-9;

/// The game of the pair: n records, the first planted with `sign`.
#[derive(Debug, Clone)]
pub struct KinkGame {
    d: usize,
    n: usize,
    c: f64,
    sign: f64,
    domain: DomainKind,
}

impl KinkGame {
    /// The game of `n` records on d × d simplices (d even ≥ 2), entry bound `c`, the first
    /// record planted with `sign` = ±1.
    pub fn new(d: usize, n: usize, c: f64, sign: f64) -> Result<Self> {
        if d < 2 || d % 2 != 0 {
            return Err(Error::invalid("d", "an even number ≥ 2", d));
        }
        if n < 2 {
            return Err(Error::invalid("n", "at least 2 records", n));
        }
        Ok(Self {
            d,
            n,
            c,
            sign,
            domain: DomainKind::Simplex,
        })
    }

    fn half_mass(&self, v: &[f64]) -> f64 {
        v[..self.d / 2].iter().sum()
    }

    /// φ′(v) = clamp(v/κ, −1, 1).
    fn kink(v: f64) -> f64 {
        (v / KINK_WIDTH).clamp(-1.0, 1.0)
    }

    /// φ(v): the Huber function of width κ (|v| − κ/2 outside, v²/(2κ) inside).
    fn kink_value(v: f64) -> f64 {
        if v.abs() <= KINK_WIDTH {
            v * v / (2.0 * KINK_WIDTH)
        } else {
            v.abs() - KINK_WIDTH / 2.0
        }
    }

    /// (∂f/∂(mass of x on A), ∂f/∂(mass of y on A)) of record i at (x, y).
    fn record_slopes(&self, i: usize, x: &[f64], y: &[f64]) -> (f64, f64) {
        if i == 0 {
            (self.sign * self.c, self.sign * self.c)
        } else {
            (
                self.c * Self::kink(self.half_mass(x) - 0.5),
                -self.c * Self::kink(self.half_mass(y) - 0.5),
            )
        }
    }
}

impl SaddleProblem for KinkGame {
    fn dims(&self) -> (usize, usize) {
        (self.d, self.d)
    }

    fn x_domain(&self) -> &dyn Domain {
        &self.domain
    }

    fn y_domain(&self) -> &dyn Domain {
        &self.domain
    }

    fn value(&self, x: &[f64], y: &[f64]) -> Result<f64> {
        let (a, b) = (self.half_mass(x), self.half_mass(y));
        let planted = self.sign * self.c * (a + b);
        let rest = self.c * (Self::kink_value(a - 0.5) - Self::kink_value(b - 0.5));
        Ok((planted + (self.n - 1) as f64 * rest) / self.n as f64)
    }

    fn value_and_gradients(
        &self,
        x: &[f64],
        y: &[f64],
        gx: &mut [f64],
        gy: &mut [f64],
    ) -> Result<f64> {
        let mut scratch = self.scratch();
        self.batch_gradients(0..self.n, x, y, gx, gy, &mut scratch)?;
        self.value(x, y)
    }

    fn duality_gap(&self, _x: &[f64], _y: &[f64], _gx: &mut [f64], _gy: &mut [f64]) -> Result<Gap> {
        Err(Error::invalid(
            "game",
            "a game the page scores (this audit pair only releases)",
            "the kinked audit game",
        ))
    }
}

impl RecordGame for KinkGame {
    fn records(&self) -> usize {
        self.n
    }

    fn constants(&self) -> GameConstants {
        GameConstants {
            linf_lipschitz: self.c,
            l1_smoothness: self.c / KINK_WIDTH,
            second_order: f64::INFINITY,
            lipschitz: f64::NAN,
            smoothness: f64::NAN,
            mu_x: 0.0,
            mu_y: 0.0,
        }
    }

    fn scratch(&self) -> RecordScratch {
        RecordScratch::default()
    }

    fn add_record_gradients(
        &self,
        i: usize,
        x: &[f64],
        y: &[f64],
        weight: f64,
        gx: &mut [f64],
        gy: &mut [f64],
        _scratch: &mut RecordScratch,
    ) -> Result<()> {
        let (sx, sy) = self.record_slopes(i, x, y);
        let half = self.d / 2;
        gx[..half].iter_mut().for_each(|g| *g += weight * sx);
        gy[..half].iter_mut().for_each(|g| *g += weight * sy);
        Ok(())
    }

    /// Two records' work whatever the batch (the closed form below).
    fn batch_work(&self, _records: usize) -> usize {
        2 * self.d
    }

    /// In closed form: every record but the first has the same gradient at a point.
    fn batch_gradients(
        &self,
        batch: std::ops::Range<usize>,
        x: &[f64],
        y: &[f64],
        gx: &mut [f64],
        gy: &mut [f64],
        scratch: &mut RecordScratch,
    ) -> Result<()> {
        gx.fill(0.0);
        gy.fill(0.0);
        let weight = 1.0 / batch.len() as f64;
        let others = (batch.len() - usize::from(batch.contains(&0))) as f64;
        if batch.contains(&0) {
            self.add_record_gradients(0, x, y, weight, gx, gy, scratch)?;
        }
        if others > 0.0 {
            self.add_record_gradients(1, x, y, weight * others, gx, gy, scratch)?;
        }
        Ok(())
    }
}

/// Algorithm 1 (or its dense-gradient pitfall) on the pair of [`KinkGame`]s.
pub struct SmdDenseGradientTarget {
    params: SmdParams,
    claim: ApproxDp,
    games: [Arc<KinkGame>; 2],
    d: usize,
}

impl SmdDenseGradientTarget {
    /// `mode` (Algorithm 1 or its pitfall) at (ε, δ) on games of d strategies per player, T
    /// steps of B records (n = TB), K = 1, entry bound 1.
    pub fn new(
        mode: SmdMode,
        (epsilon, delta): (f64, f64),
        d: usize,
        (steps, batch): (usize, usize),
    ) -> Result<Self> {
        let n = steps * batch;
        let games = [
            Arc::new(KinkGame::new(d, n, 1.0, 1.0)?),
            Arc::new(KinkGame::new(d, n, 1.0, -1.0)?),
        ];
        let params = SmdParams {
            epsilon,
            delta,
            steps,
            samples: 1,
            exact_epsilon0: false,
            mode,
            batch: None,
            step: None,
            relation: Relation::ReplaceOne,
        };
        let plan = SmdPlan::new(params, n, (d, d), games[0].constants())?;
        let g = &plan.guarantee;
        let claim = ApproxDp::new(g.epsilon, g.delta, g.relation)?;
        Ok(Self {
            params,
            claim,
            games,
            d,
        })
    }

    /// The plan both sides run (τ, B, the draws).
    pub fn plan(&self) -> Result<SmdPlan> {
        SmdPlan::new(
            self.params,
            self.games[0].records(),
            (self.d, self.d),
            self.games[0].constants(),
        )
    }
}

impl Auditable for SmdDenseGradientTarget {
    fn claim(&self) -> ApproxDp {
        self.claim
    }

    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64> {
        let game = match side {
            Side::D => &self.games[0],
            Side::DPrime => &self.games[1],
        };
        let noise = DpRng::seed_from_u64(rng.next_u64());
        let mut run = PrivateSmd::new(
            Arc::clone(game) as Arc<dyn RecordGame>,
            self.params,
            noise,
            false,
        )?;
        while run.step().is_some() {}
        let Point::Saddle { x, y } = run.point() else {
            return Err(Error::invalid(
                "algorithm",
                "a saddle release",
                "a minimisation",
            ));
        };
        let half = self.d / 2;
        Ok(x[..half].iter().sum::<f64>() - y[..half].iter().sum::<f64>())
    }
}
