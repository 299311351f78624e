//! A test-only stored record game: f(x, y; ξᵢ) = (μₓ/2)‖x‖² + xᵀMᵢy − bᵢᵀy − (μᵧ/2)‖y‖² on two
//! ℓ2 balls (Zhang et al. 2022), with its exact gap and an independent linear solve for the
//! saddle point of a regularised phase when it is interior.

use rand::RngExt;

use crate::domain::{Domain, DomainKind};
use crate::error::Result;
use crate::linalg::dot;
use crate::minimax::{GameConstants, Gap, RecordGame, RecordScratch, SaddleProblem};
use crate::rng::{Stream, seeded};

/// The stored game.
pub struct TestGame {
    pub dx: usize,
    pub dy: usize,
    pub mu_x: f64,
    pub mu_y: f64,
    pub rx: f64,
    pub ry: f64,
    /// Mᵢ row-major (dx × dy), one per record.
    pub m: Vec<Vec<f64>>,
    pub b: Vec<Vec<f64>>,
    xd: DomainKind,
    yd: DomainKind,
}

impl TestGame {
    /// n records with entries of Mᵢ uniform in ±1/√(dx·dy) and of bᵢ in ±1/√dy.
    #[allow(clippy::too_many_arguments)]
    pub fn random(
        seed: u32,
        n: usize,
        dx: usize,
        dy: usize,
        mu_x: f64,
        mu_y: f64,
        rx: f64,
        ry: f64,
    ) -> Self {
        let mut rng = seeded(seed, Stream::Data);
        let sm = 1.0 / ((dx * dy) as f64).sqrt();
        let sb = 1.0 / (dy as f64).sqrt();
        let m = (0..n)
            .map(|_| {
                (0..dx * dy)
                    .map(|_| sm * (2.0 * rng.random::<f64>() - 1.0))
                    .collect()
            })
            .collect();
        let b = (0..n)
            .map(|_| {
                (0..dy)
                    .map(|_| 0.5 + sb * (2.0 * rng.random::<f64>() - 1.0))
                    .collect()
            })
            .collect();
        Self {
            dx,
            dy,
            mu_x,
            mu_y,
            rx,
            ry,
            m,
            b,
            xd: DomainKind::L2Ball { radius: rx },
            yd: DomainKind::L2Ball { radius: ry },
        }
    }

    /// Ā over the records `range` (row-major) and b̄.
    pub fn means(&self, range: std::ops::Range<usize>) -> (Vec<f64>, Vec<f64>) {
        let k = range.len() as f64;
        let mut a = vec![0.0; self.dx * self.dy];
        let mut b = vec![0.0; self.dy];
        for i in range {
            a.iter_mut().zip(&self.m[i]).for_each(|(s, v)| *s += v / k);
            b.iter_mut().zip(&self.b[i]).for_each(|(s, v)| *s += v / k);
        }
        (a, b)
    }

    /// The saddle point of the chunk `range` plus (a/2)‖x − cx‖² − (b/2)‖y − cy‖², by solving
    /// the stationarity system (μₓ + a)x + Āy = a·cx, Āᵀx − (μᵧ + b)y = b̄ − b·cy with Gaussian
    /// elimination (valid when the solution is interior; the caller checks).
    #[allow(clippy::too_many_arguments)]
    pub fn interior_saddle(
        &self,
        range: std::ops::Range<usize>,
        a: f64,
        cx: &[f64],
        breg: f64,
        cy: &[f64],
    ) -> (Vec<f64>, Vec<f64>) {
        let (am, bm) = self.means(range);
        let (dx, dy) = (self.dx, self.dy);
        let k = dx + dy;
        let mut mat = vec![vec![0.0; k + 1]; k];
        for i in 0..dx {
            mat[i][i] = self.mu_x + a;
            for j in 0..dy {
                mat[i][dx + j] = am[i * dy + j];
                mat[dx + j][i] = am[i * dy + j];
            }
            mat[i][k] = a * cx[i];
        }
        for j in 0..dy {
            mat[dx + j][dx + j] = -(self.mu_y + breg);
            mat[dx + j][k] = bm[j] - breg * cy[j];
        }
        for col in 0..k {
            let p = (col..k)
                .max_by(|&r, &s| mat[r][col].abs().total_cmp(&mat[s][col].abs()))
                .unwrap();
            mat.swap(col, p);
            let pivot = mat[col].clone();
            for (r, row) in mat.iter_mut().enumerate() {
                if r != col {
                    let f = row[col] / pivot[col];
                    for (v, p) in row.iter_mut().zip(&pivot).skip(col) {
                        *v -= f * p;
                    }
                }
            }
        }
        let z: Vec<f64> = (0..k).map(|i| mat[i][k] / mat[i][i]).collect();
        (z[..dx].to_vec(), z[dx..].to_vec())
    }

    fn max_norms(&self) -> (f64, f64) {
        let cm = self.m.iter().map(|m| dot(m, m).sqrt()).fold(0.0, f64::max);
        let cb = self.b.iter().map(|b| dot(b, b).sqrt()).fold(0.0, f64::max);
        (cm, cb)
    }
}

/// H_{ρ,R}(g) = max_{‖v‖≤R} gᵀv − (ρ/2)‖v‖².
fn h(rho: f64, r: f64, g: &[f64]) -> f64 {
    let n = dot(g, g).sqrt();
    if n <= rho * r {
        n * n / (2.0 * rho)
    } else {
        r * n - rho * r * r / 2.0
    }
}

impl SaddleProblem for TestGame {
    fn dims(&self) -> (usize, usize) {
        (self.dx, self.dy)
    }
    fn x_domain(&self) -> &dyn Domain {
        &self.xd
    }
    fn y_domain(&self) -> &dyn Domain {
        &self.yd
    }
    fn value(&self, x: &[f64], y: &[f64]) -> Result<f64> {
        let (a, b) = self.means(0..self.m.len());
        let mut v = 0.5 * self.mu_x * dot(x, x) - dot(&b, y) - 0.5 * self.mu_y * dot(y, y);
        for i in 0..self.dx {
            v += x[i] * dot(&a[i * self.dy..(i + 1) * self.dy], y);
        }
        Ok(v)
    }
    fn value_and_gradients(
        &self,
        x: &[f64],
        y: &[f64],
        gx: &mut [f64],
        gy: &mut [f64],
    ) -> Result<f64> {
        let mut s = self.scratch();
        self.batch_gradients(0..self.m.len(), x, y, gx, gy, &mut s)?;
        self.value(x, y)
    }
    fn duality_gap(&self, x: &[f64], y: &[f64], _gx: &mut [f64], _gy: &mut [f64]) -> Result<Gap> {
        let (a, b) = self.means(0..self.m.len());
        let (dx, dy) = (self.dx, self.dy);
        // Āᵀx − b̄ and −Āy.
        let mut atx: Vec<f64> = b.iter().map(|v| -v).collect();
        let mut ay = vec![0.0; dx];
        for i in 0..dx {
            for j in 0..dy {
                atx[j] += a[i * dy + j] * x[i];
                ay[i] -= a[i * dy + j] * y[j];
            }
        }
        Ok(Gap {
            upper: 0.5 * self.mu_x * dot(x, x) + h(self.mu_y, self.ry, &atx),
            lower: -0.5 * self.mu_y * dot(y, y) - dot(&b, y) - h(self.mu_x, self.rx, &ay),
        })
    }
}

impl RecordGame for TestGame {
    fn records(&self) -> usize {
        self.m.len()
    }
    fn constants(&self) -> GameConstants {
        let (cm, cb) = self.max_norms();
        let lx = self.mu_x * self.rx + cm * self.ry;
        let ly = cm * self.rx + cb + self.mu_y * self.ry;
        GameConstants {
            linf_lipschitz: lx.max(ly),
            l1_smoothness: f64::NAN,
            second_order: 0.0,
            lipschitz: (lx * lx + ly * ly).sqrt(),
            smoothness: self.mu_x.max(self.mu_y) + cm,
            mu_x: self.mu_x,
            mu_y: self.mu_y,
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
        let (m, b) = (&self.m[i], &self.b[i]);
        let dy = self.dy;
        for (k, g) in gx.iter_mut().enumerate() {
            *g += weight * (self.mu_x * x[k] + dot(&m[k * dy..(k + 1) * dy], y));
        }
        for (j, g) in gy.iter_mut().enumerate() {
            let mut mtx = 0.0;
            for k in 0..self.dx {
                mtx += m[k * dy + j] * x[k];
            }
            *g += weight * (mtx - b[j] - self.mu_y * y[j]);
        }
        Ok(())
    }
}
