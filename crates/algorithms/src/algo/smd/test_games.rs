//! Record games for the tests only: stored or constant payoff matrices (the lead's streamed
//! `minimax::game::StochasticGame` is the one the page uses).

use crate::domain::Domain;
use crate::error::Result;
use crate::minimax::{BilinearGame, GameConstants, Gap, RecordGame, RecordScratch, SaddleProblem};
use crate::rng::{Stream, seeded};
use rand::RngExt;

/// f(x, y; ξᵢ) = xᵀMᵢy over simplices, with the records Mᵢ stored (or one matrix repeated n
/// times when `records` holds one). The empirical game is the bilinear game of their mean.
pub struct MatrixRecords {
    dx: usize,
    dy: usize,
    n: usize,
    records: Vec<Vec<f64>>,
    mean: BilinearGame,
    bound: f64,
}

impl MatrixRecords {
    /// n copies of one matrix: the batch gradient is the exact gradient of the game.
    pub fn constant(dx: usize, dy: usize, a: Vec<f64>, n: usize) -> Self {
        Self::stored(dx, dy, vec![a], n)
    }

    fn stored(dx: usize, dy: usize, records: Vec<Vec<f64>>, n: usize) -> Self {
        let mut mean = vec![0.0; dx * dy];
        let m = records.len() as f64;
        for r in &records {
            for (a, v) in mean.iter_mut().zip(r) {
                *a += v / m;
            }
        }
        let bound = records
            .iter()
            .flatten()
            .fold(0.0_f64, |b, v| b.max(v.abs()));
        Self {
            dx,
            dy,
            n,
            records,
            mean: BilinearGame::matrix_game(dx, dy, mean).unwrap(),
            bound,
        }
    }

    /// n records of ±1 entries, entry (i, j) = +1 with probability (1 + Aᵢⱼ)/2, so that
    /// E Mᵢ = A (González, Guzmán & Paquette 2024); the empirical mean is what the gap is measured on.
    pub fn signs(dx: usize, dy: usize, a: &[f64], n: usize, seed: u32) -> Self {
        let mut rng = seeded(seed, Stream::Data);
        let records = (0..n)
            .map(|_| {
                a.iter()
                    .map(|p| {
                        if rng.random::<f64>() < 0.5 * (1.0 + p) {
                            1.0
                        } else {
                            -1.0
                        }
                    })
                    .collect()
            })
            .collect();
        Self::stored(dx, dy, records, n)
    }

    /// The exact duality gap of the empirical game at (x, y).
    pub fn gap(&self, x: &[f64], y: &[f64]) -> f64 {
        let (mut gx, mut gy) = (vec![0.0; self.dx], vec![0.0; self.dy]);
        self.mean.duality_gap(x, y, &mut gx, &mut gy).unwrap().gap()
    }
}

/// Rock–paper–scissors in the top-left 3 × 3 block of a d × d game (d ≥ 3): x's extra rows pay
/// the maximiser 1 whatever y does, y's extra columns pay it −1 against the first three rows,
/// so the unique equilibrium is uniform play on rock, paper, scissors, value 0.
pub fn rps_embedded(d: usize) -> Vec<f64> {
    let rps = [[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]];
    let mut a = vec![0.0; d * d];
    for i in 0..d {
        for j in 0..d {
            a[i * d + j] = match (i < 3, j < 3) {
                (true, true) => rps[i][j],
                (false, true) => 1.0,
                (true, false) => -1.0,
                (false, false) => 0.0,
            };
        }
    }
    a
}

/// A d × d payoff matrix with entries uniform in \[−½, ½\] (seeded).
pub fn random_matrix(d: usize, seed: u32) -> Vec<f64> {
    let mut rng = seeded(seed, Stream::Data);
    (0..d * d).map(|_| rng.random::<f64>() - 0.5).collect()
}

impl SaddleProblem for MatrixRecords {
    fn dims(&self) -> (usize, usize) {
        (self.dx, self.dy)
    }
    fn x_domain(&self) -> &dyn Domain {
        self.mean.x_domain()
    }
    fn y_domain(&self) -> &dyn Domain {
        self.mean.y_domain()
    }
    fn value(&self, x: &[f64], y: &[f64]) -> Result<f64> {
        self.mean.value(x, y)
    }
    fn value_and_gradients(
        &self,
        x: &[f64],
        y: &[f64],
        gx: &mut [f64],
        gy: &mut [f64],
    ) -> Result<f64> {
        self.mean.value_and_gradients(x, y, gx, gy)
    }
    fn duality_gap(&self, x: &[f64], y: &[f64], gx: &mut [f64], gy: &mut [f64]) -> Result<Gap> {
        self.mean.duality_gap(x, y, gx, gy)
    }
}

impl RecordGame for MatrixRecords {
    fn records(&self) -> usize {
        self.n
    }
    fn constants(&self) -> GameConstants {
        // ∇ₓ = M y, ∇ᵧ = Mᵀx on simplices: ‖·‖_∞ ≤ max|Mᵢⱼ|; bilinear, so L₁ = max|Mᵢⱼ|, L₂ = 0.
        GameConstants {
            linf_lipschitz: self.bound,
            l1_smoothness: self.bound,
            second_order: 0.0,
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
        let m = &self.records[i % self.records.len()];
        for (r, row) in m.chunks_exact(self.dy).enumerate() {
            gx[r] += weight * crate::linalg::dot(row, y);
            crate::linalg::axpy(weight * x[r], row, gy);
        }
        Ok(())
    }
}

fn softplus(t: f64) -> f64 {
    t.max(0.0) + libm::log1p(libm::exp(-t.abs()))
}

fn sigmoid(t: f64) -> f64 {
    1.0 / (1.0 + libm::exp(-t))
}

/// f(x, y; ξ) = softplus(⟨a, x⟩) − softplus(⟨b, y⟩) for every record: convex in x, concave in y,
/// not bilinear (L₂ > 0), so a K-sample gradient is biased (what Algorithm 2 removes). Its
/// equilibrium is the vertex pair (argmin a, argmin b).
pub struct SoftplusGame {
    pub a: Vec<f64>,
    pub b: Vec<f64>,
    pub n: usize,
}

impl SaddleProblem for SoftplusGame {
    fn dims(&self) -> (usize, usize) {
        (self.a.len(), self.b.len())
    }
    fn x_domain(&self) -> &dyn Domain {
        &crate::domain::Simplex
    }
    fn y_domain(&self) -> &dyn Domain {
        &crate::domain::Simplex
    }
    fn value(&self, x: &[f64], y: &[f64]) -> Result<f64> {
        Ok(softplus(crate::linalg::dot(&self.a, x)) - softplus(crate::linalg::dot(&self.b, y)))
    }
    fn value_and_gradients(
        &self,
        x: &[f64],
        y: &[f64],
        gx: &mut [f64],
        gy: &mut [f64],
    ) -> Result<f64> {
        let (ax, by) = (
            crate::linalg::dot(&self.a, x),
            crate::linalg::dot(&self.b, y),
        );
        for (g, a) in gx.iter_mut().zip(&self.a) {
            *g = sigmoid(ax) * a;
        }
        for (g, b) in gy.iter_mut().zip(&self.b) {
            *g = -sigmoid(by) * b;
        }
        Ok(softplus(ax) - softplus(by))
    }
    fn duality_gap(&self, x: &[f64], y: &[f64], _gx: &mut [f64], _gy: &mut [f64]) -> Result<Gap> {
        let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
        let (ax, by) = (
            crate::linalg::dot(&self.a, x),
            crate::linalg::dot(&self.b, y),
        );
        Ok(Gap {
            upper: softplus(ax) - softplus(min(&self.b)),
            lower: softplus(min(&self.a)) - softplus(by),
        })
    }
}

impl RecordGame for SoftplusGame {
    fn records(&self) -> usize {
        self.n
    }
    fn constants(&self) -> GameConstants {
        // On simplices with ‖a‖_∞, ‖b‖_∞ ≤ A: L₀ = A, L₁ = A²/4, L₂ = A³/(6√3) (González, Guzmán & Paquette 2024).
        let big = self
            .a
            .iter()
            .chain(&self.b)
            .fold(0.0_f64, |m, v| m.max(v.abs()));
        GameConstants {
            linf_lipschitz: big,
            l1_smoothness: big * big / 4.0,
            second_order: big.powi(3) / (6.0 * 3f64.sqrt()),
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
        _i: usize,
        x: &[f64],
        y: &[f64],
        weight: f64,
        gx: &mut [f64],
        gy: &mut [f64],
        _scratch: &mut RecordScratch,
    ) -> Result<()> {
        let (ax, by) = (
            crate::linalg::dot(&self.a, x),
            crate::linalg::dot(&self.b, y),
        );
        for (g, a) in gx.iter_mut().zip(&self.a) {
            *g += weight * sigmoid(ax) * a;
        }
        for (g, b) in gy.iter_mut().zip(&self.b) {
            *g -= weight * sigmoid(by) * b;
        }
        Ok(())
    }
}

/// E ∂₀ softplus(⟨a, x̂⟩) with x̂ the mean of `draws` i.i.d. vertices from `x`, exactly, by
/// enumerating the multinomial counts (fine for d = 5 and draws ≤ 32).
pub fn exact_maurey_gradient0(a: &[f64], x: &[f64], draws: usize) -> f64 {
    #[allow(clippy::too_many_arguments)]
    fn walk(
        a: &[f64],
        x: &[f64],
        left: usize,
        j: usize,
        counts: &mut Vec<usize>,
        lnp: f64,
        draws: usize,
        acc: &mut f64,
    ) {
        if j + 1 == x.len() {
            counts.push(left);
            let lnp =
                lnp + left as f64 * libm::log(x[j]) - crate::stats::ln_gamma(left as f64 + 1.0);
            let dot: f64 = counts
                .iter()
                .zip(a)
                .map(|(c, a)| *c as f64 * a)
                .sum::<f64>()
                / draws as f64;
            let ln_total = crate::stats::ln_gamma(draws as f64 + 1.0) + lnp;
            *acc += libm::exp(ln_total) * sigmoid(dot) * a[0];
            counts.pop();
            return;
        }
        for c in 0..=left {
            counts.push(c);
            let lnp = lnp + c as f64 * libm::log(x[j]) - crate::stats::ln_gamma(c as f64 + 1.0);
            walk(a, x, left - c, j + 1, counts, lnp, draws, acc);
            counts.pop();
        }
    }
    let mut acc = 0.0;
    walk(a, x, draws, 0, &mut Vec::new(), 0.0, draws, &mut acc);
    acc
}
