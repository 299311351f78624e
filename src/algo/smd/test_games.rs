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
    /// E Mᵢ = A (digest 001 E1); the empirical mean is what the gap is measured on.
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

/// A d × d payoff matrix with entries uniform in [−½, ½] (seeded).
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
