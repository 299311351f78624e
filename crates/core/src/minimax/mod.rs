//! Saddle problems min_{x∈X} max_{y∈Y} φ(x, y) and their duality gap (docs/ARCHITECTURE.md).
//!
//! The shape sits beside [`crate::objective::FirstOrder`], the one-block oracle: a
//! [`SaddleProblem`] has two blocks, each with its own [`Domain`], and writes both partial
//! gradients into caller buffers in one call (no allocation inside an iteration, docs/ARCHITECTURE.md, Performance).
//! The minimax algorithms of González, Guzmán & Paquette 2024 and Zhang et al. 2022 (GDA, extragradient, stochastic mirror descent
//! on simplices and ℓ1 balls, phased output perturbation) will be written against it; Lowy & Razaviyayn 2021's
//! adversarial training already has a closed form in [`crate::loss::Wrap::Adversarial`].
//!
//! ## The duality gap
//! For a convex–concave φ and a point (x, y) ∈ X × Y,
//! gap(x, y) = max_{y'∈Y} φ(x, y') − min_{x'∈X} φ(x', y) ≥ φ(x, y) − φ(x, y) = 0,
//! with equality exactly at the saddle points. The two terms bracket the value of the game:
//! min_{x'} φ(x', y) ≤ min_x max_y φ ≤ max_{y'} φ(x, y') ([`Gap`]). Problems whose inner max and
//! min have closed forms (the bilinear game below) evaluate the gap exactly; the others will
//! bracket it with an inner solve.

pub mod auc;
pub mod game;
pub mod group_dro;
pub mod query_release;
pub mod records;
pub mod solvers;

pub use records::{GameConstants, RecordGame, RecordScratch};

use serde::Serialize;

use crate::domain::{Domain, DomainKind};
use crate::error::{Error, Result};
use crate::linalg::{axpy, dot};

/// What a run needs to know of a game before any record is drawn: its size, its two sets, its
/// declared constants and its leak, all from the configuration alone (docs/PRIVACY.md rule 2).
/// Every saddle family plans from this, whichever game the menu poses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GameDeclaration {
    /// n, the number of records.
    pub n: usize,
    /// (dₓ, dᵧ).
    pub dims: (usize, usize),
    /// X.
    pub x_domain: DomainKind,
    /// Y.
    pub y_domain: DomainKind,
    /// The declared constants.
    pub constants: GameConstants,
    /// The ledger's sentence when the records break the declared bounds (a demonstration).
    pub leak: Option<&'static str>,
}

/// A game's own measure of a released point ([`PosedGame::readout`]). **Non-private**.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Readout {
    /// What is measured, as the page names it (e.g. "AUC").
    pub name: &'static str,
    /// Its value at the released point.
    pub released: f64,
    /// Its value at the game's reference saddle point (the empirical game's, solved without
    /// noise), where one was found.
    pub reference: Option<f64>,
}

/// A game a session poses: a [`RecordGame`] with what the page shows beside it.
pub trait PosedGame: RecordGame {
    /// X as a value (the parameter view draws its boundary).
    fn x_domain_kind(&self) -> DomainKind;
    /// The ledger's sentence when the records break the declared bounds.
    fn leak(&self) -> Option<&'static str>;
    /// The equilibrium of the generator's population game, where it is known in closed form (a
    /// declared property of the generator, not a measurement of the records).
    fn base_equilibrium(&self) -> Option<(Vec<f64>, Vec<f64>)> {
        None
    }
    /// Y as a value (the players plot draws a ternary plot when both players are 3-simplices).
    fn y_domain_kind(&self) -> DomainKind;
    /// The game's own measure of a released x, beside the duality gap (AUC maximisation: the
    /// AUC of the score wᵀa). **Non-private**: a readout of the records, shown after a release
    /// and never gating it (docs/PRIVACY.md rule 6). `None` for games without one.
    fn readout(&self, _x: &[f64]) -> Option<Readout> {
        None
    }
    /// The game's value at (x, y) over the records `batch` alone, for games that score points by
    /// it (González, Guzmán & Paquette's Algorithm 4). **Non-private** on its own. Games without
    /// it are refused at `game` (the boosted family plans only on games on simplices — the matrix
    /// games and group DRO on the simplex, which have it — so a page run never gets here).
    fn batch_value(
        &self,
        batch: std::ops::Range<usize>,
        _x: &[f64],
        _y: &[f64],
        _scratch: &mut RecordScratch,
    ) -> Result<f64> {
        Err(Error::invalid(
            "game",
            "a matrix game (its value over a part of the records scores Algorithm 4's candidates)",
            format!("records {batch:?} of another game"),
        ))
    }
}

impl PosedGame for game::StochasticGame {
    fn y_domain_kind(&self) -> DomainKind {
        self.spec().y_domain
    }

    fn batch_value(
        &self,
        batch: std::ops::Range<usize>,
        x: &[f64],
        y: &[f64],
        scratch: &mut RecordScratch,
    ) -> Result<f64> {
        game::StochasticGame::batch_value(self, batch, x, y, scratch)
    }

    fn x_domain_kind(&self) -> DomainKind {
        self.spec().x_domain
    }

    fn leak(&self) -> Option<&'static str> {
        self.spec().leak()
    }

    fn base_equilibrium(&self) -> Option<(Vec<f64>, Vec<f64>)> {
        game::StochasticGame::base_equilibrium(self)
    }
}

impl PosedGame for group_dro::GroupDro {
    fn y_domain_kind(&self) -> DomainKind {
        self.spec().y_domain()
    }

    fn x_domain_kind(&self) -> DomainKind {
        self.spec().x_domain()
    }

    fn leak(&self) -> Option<&'static str> {
        self.spec().leak()
    }

    fn batch_value(
        &self,
        batch: std::ops::Range<usize>,
        x: &[f64],
        y: &[f64],
        scratch: &mut RecordScratch,
    ) -> Result<f64> {
        group_dro::GroupDro::batch_value(self, batch, x, y, scratch)
    }
}

/// A game's point (x, y) and its gradient buffers against its dimensions (dₓ, dᵧ), and the
/// point finite: what every game checks before it reads a record.
pub(crate) fn check_point(
    (dx, dy): (usize, usize),
    x: &[f64],
    y: &[f64],
    gx: &[f64],
    gy: &[f64],
) -> Result<()> {
    for (what, expected, got) in [
        ("x", dx, x.len()),
        ("y", dy, y.len()),
        ("gradient buffer for x", dx, gx.len()),
        ("gradient buffer for y", dy, gy.len()),
    ] {
        if expected != got {
            return Err(Error::DimensionMismatch {
                what,
                expected,
                got,
            });
        }
    }
    if x.iter().chain(y).any(|v| !v.is_finite()) {
        return Err(Error::NonFinite { what: "x or y" });
    }
    Ok(())
}

/// A two-block problem min_{x∈X} max_{y∈Y} φ(x, y), φ convex in x and concave in y.
pub trait SaddleProblem {
    /// (dim x, dim y).
    fn dims(&self) -> (usize, usize);
    /// X, the minimising player's set.
    fn x_domain(&self) -> &dyn Domain;
    /// Y, the maximising player's set.
    fn y_domain(&self) -> &dyn Domain;
    /// φ(x, y).
    fn value(&self, x: &[f64], y: &[f64]) -> Result<f64>;
    /// φ(x, y), writing ∇ₓφ(x, y) into `gx` and ∇ᵧφ(x, y) into `gy`.
    fn value_and_gradients(
        &self,
        x: &[f64],
        y: &[f64],
        gx: &mut [f64],
        gy: &mut [f64],
    ) -> Result<f64>;
    /// The duality gap at (x, y), with the buffers `gx`, `gy` (lengths dim x, dim y) as scratch.
    fn duality_gap(&self, x: &[f64], y: &[f64], gx: &mut [f64], gy: &mut [f64]) -> Result<Gap>;

    /// The point (x, y) and the gradient buffers against [`SaddleProblem::dims`], and the point
    /// finite: what every game checks before it evaluates (held once, in the module's `check_point`).
    fn check_point(&self, x: &[f64], y: &[f64], gx: &[f64], gy: &[f64]) -> Result<()> {
        check_point(self.dims(), x, y, gx, gy)
    }
}

/// The two sides of the duality gap at a point (x, y).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gap {
    /// max_{y'∈Y} φ(x, y'): what x guarantees the minimiser (an upper bound on the game's value).
    pub upper: f64,
    /// min_{x'∈X} φ(x', y): what y guarantees the maximiser (a lower bound on the game's value).
    pub lower: f64,
}

impl Gap {
    /// upper − lower ≥ 0 (up to the rounding of the two evaluations); 0 at a saddle point.
    pub fn gap(&self) -> f64 {
        self.upper - self.lower
    }
}

/// The bilinear game φ(x, y) = xᵀA y over x ∈ X, y ∈ Y (matrix games when X and Y are
/// simplices: x and y are mixed strategies, A the payoffs to the maximiser).
///
/// Gradients: ∇ₓφ = A y, ∇ᵧφ = Aᵀx. The gap is exact through the support functions of the two
/// sets: max_{y'} xᵀA y' = σ_Y(Aᵀx) and min_{x'} x'ᵀA y = −σ_X(−A y), with
/// σ_W(v) = sup_{w∈W} ⟨v, w⟩ = [`Domain::support_l1`]`(v, 0)` (on the simplex the largest entry,
/// on the ℓ1 ball R‖v‖_∞, on the ℓ2 ball R‖v‖₂; +∞ on R^d unless v = 0).
#[derive(Debug, Clone, PartialEq)]
pub struct BilinearGame {
    rows: usize,
    cols: usize,
    /// A, row-major: a[i·cols + j] = A_ij.
    a: Vec<f64>,
    x_domain: DomainKind,
    y_domain: DomainKind,
}

impl BilinearGame {
    /// A game with the `rows` × `cols` payoff matrix `a` (row-major), x ∈ `x_domain` ⊆ R^rows and
    /// y ∈ `y_domain` ⊆ R^cols. Errors name the empty, mis-sized or non-finite input.
    pub fn new(
        rows: usize,
        cols: usize,
        a: Vec<f64>,
        x_domain: DomainKind,
        y_domain: DomainKind,
    ) -> Result<Self> {
        if rows == 0 || cols == 0 {
            return Err(Error::invalid(
                "payoff matrix",
                "at least one row and one column",
                format!("{rows} × {cols}"),
            ));
        }
        if a.len() != rows * cols {
            return Err(Error::DimensionMismatch {
                what: "payoff matrix entries",
                expected: rows * cols,
                got: a.len(),
            });
        }
        if a.iter().any(|v| !v.is_finite()) {
            return Err(Error::NonFinite {
                what: "payoff matrix",
            });
        }
        x_domain.validate()?;
        y_domain.validate()?;
        Ok(Self {
            rows,
            cols,
            a,
            x_domain,
            y_domain,
        })
    }

    /// A matrix game: both players on probability simplices.
    pub fn matrix_game(rows: usize, cols: usize, a: Vec<f64>) -> Result<Self> {
        Self::new(rows, cols, a, DomainKind::Simplex, DomainKind::Simplex)
    }

    /// gx ← A y, gy ← Aᵀx (one pass over A); returns xᵀA y = ⟨x, gx⟩.
    fn products(&self, x: &[f64], y: &[f64], gx: &mut [f64], gy: &mut [f64]) -> f64 {
        gy.fill(0.0);
        for ((row, xi), gxi) in self.a.chunks_exact(self.cols).zip(x).zip(gx.iter_mut()) {
            *gxi = dot(row, y);
            axpy(*xi, row, gy);
        }
        dot(x, gx)
    }
}

impl SaddleProblem for BilinearGame {
    fn dims(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }

    fn x_domain(&self) -> &dyn Domain {
        &self.x_domain
    }

    fn y_domain(&self) -> &dyn Domain {
        &self.y_domain
    }

    fn value(&self, x: &[f64], y: &[f64]) -> Result<f64> {
        self.check_point(x, y, x, y)?;
        Ok(self
            .a
            .chunks_exact(self.cols)
            .zip(x)
            .map(|(row, xi)| xi * dot(row, y))
            .sum())
    }

    fn value_and_gradients(
        &self,
        x: &[f64],
        y: &[f64],
        gx: &mut [f64],
        gy: &mut [f64],
    ) -> Result<f64> {
        self.check_point(x, y, gx, gy)?;
        Ok(self.products(x, y, gx, gy))
    }

    fn duality_gap(&self, x: &[f64], y: &[f64], gx: &mut [f64], gy: &mut [f64]) -> Result<Gap> {
        self.check_point(x, y, gx, gy)?;
        self.products(x, y, gx, gy);
        let upper = self.y_domain.support_l1(gy, 0.0);
        gx.iter_mut().for_each(|v| *v = -*v);
        let lower = -self.x_domain.support_l1(gx, 0.0);
        Ok(Gap { upper, lower })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Stream, seeded};
    use rand::RngExt;

    fn game(x: DomainKind, y: DomainKind) -> BilinearGame {
        // A fixed 3 × 4 payoff matrix with no saddle point in pure strategies.
        let a = vec![
            1.0, -2.0, 0.5, 3.0, //
            -1.5, 2.5, -0.5, 0.0, //
            0.25, -1.0, 2.0, -3.0,
        ];
        BilinearGame::new(3, 4, a, x, y).unwrap()
    }

    fn random_point(rng: &mut crate::rng::DpRng, dom: &DomainKind, d: usize) -> Vec<f64> {
        let mut v: Vec<f64> = (0..d).map(|_| 4.0 * rng.random::<f64>() - 2.0).collect();
        dom.project(&mut v);
        v
    }

    #[test]
    fn gradients_match_finite_differences() {
        let g = game(DomainKind::L2Ball { radius: 1.0 }, DomainKind::Simplex);
        let x = [0.3, -0.2, 0.7];
        let y = [0.1, 0.2, 0.3, 0.4];
        let (mut gx, mut gy) = ([0.0; 3], [0.0; 4]);
        let v = g.value_and_gradients(&x, &y, &mut gx, &mut gy).unwrap();
        assert_eq!(v, g.value(&x, &y).unwrap());
        // φ is bilinear, so central differences are exact up to rounding: the tolerance is a
        // few ulps of |φ| ≈ 1 divided by h.
        let h = 1e-5;
        for i in 0..3 {
            let (mut xp, mut xm) = (x, x);
            xp[i] += h;
            xm[i] -= h;
            let fd = (g.value(&xp, &y).unwrap() - g.value(&xm, &y).unwrap()) / (2.0 * h);
            assert!((fd - gx[i]).abs() < 1e-10, "x[{i}]: {fd} vs {}", gx[i]);
        }
        for j in 0..4 {
            let (mut yp, mut ym) = (y, y);
            yp[j] += h;
            ym[j] -= h;
            let fd = (g.value(&x, &yp).unwrap() - g.value(&x, &ym).unwrap()) / (2.0 * h);
            assert!((fd - gy[j]).abs() < 1e-10, "y[{j}]: {fd} vs {}", gy[j]);
        }
    }

    /// The gap is the supremum of φ(x, y') − φ(x', y) over the sets: it is ≥ 0, and no pair of
    /// feasible points (vertices included) exceeds it, for every pair of bounded domains.
    #[test]
    fn the_gap_is_nonnegative_and_dominates_every_feasible_deviation() {
        let mut rng = seeded(31, Stream::Noise);
        let bounded: Vec<DomainKind> = DomainKind::examples()
            .into_iter()
            .filter(|d| d.diameter_in(4).is_finite())
            .collect();
        for dx in &bounded {
            for dy in &bounded {
                let g = game(*dx, *dy);
                let (mut gx, mut gy) = ([0.0; 3], [0.0; 4]);
                for _ in 0..50 {
                    let x = random_point(&mut rng, dx, 3);
                    let y = random_point(&mut rng, dy, 4);
                    let gap = g.duality_gap(&x, &y, &mut gx, &mut gy).unwrap();
                    assert!(gap.gap() >= 0.0, "{dx:?} {dy:?}: {gap:?}");
                    let v = g.value(&x, &y).unwrap();
                    assert!(gap.lower <= v + 1e-12 && v <= gap.upper + 1e-12);
                    for _ in 0..20 {
                        let xp = random_point(&mut rng, dx, 3);
                        let yp = random_point(&mut rng, dy, 4);
                        let dev = g.value(&x, &yp).unwrap() - g.value(&xp, &y).unwrap();
                        assert!(dev <= gap.gap() + 1e-12, "{dev} > {}", gap.gap());
                    }
                }
            }
        }
    }

    #[test]
    fn the_gap_is_zero_at_known_equilibria_and_exact_elsewhere() {
        let (mut gx, mut gy) = ([0.0; 3], [0.0; 3]);
        // Matching pennies: the unique equilibrium is (½, ½) for both players, value 0.
        let pennies = BilinearGame::matrix_game(2, 2, vec![1.0, -1.0, -1.0, 1.0]).unwrap();
        let half = [0.5, 0.5];
        let gap = pennies
            .duality_gap(&half, &half, &mut gx[..2], &mut gy[..2])
            .unwrap();
        assert_eq!(
            gap,
            Gap {
                upper: 0.0,
                lower: 0.0
            }
        );
        // A pure row against the mixed column: the column player answers with column 1 (payoff
        // 1), and the row player's best answer to (½, ½) still gets 0: the gap is exactly 1.
        let gap = pennies
            .duality_gap(&[1.0, 0.0], &half, &mut gx[..2], &mut gy[..2])
            .unwrap();
        assert_eq!(
            gap,
            Gap {
                upper: 1.0,
                lower: 0.0
            }
        );
        // Rock–paper–scissors: uniform play is the equilibrium.
        let rps =
            BilinearGame::matrix_game(3, 3, vec![0.0, -1.0, 1.0, 1.0, 0.0, -1.0, -1.0, 1.0, 0.0])
                .unwrap();
        let third = [1.0 / 3.0; 3];
        let gap = rps.duality_gap(&third, &third, &mut gx, &mut gy).unwrap();
        assert!(gap.gap().abs() <= 1e-16, "{gap:?}");
        // A game with a saddle point in pure strategies: row 0, column 1 (A₀₁ = 2 is the
        // largest in its row and the smallest in its column).
        let pure = BilinearGame::matrix_game(2, 2, vec![1.0, 2.0, 4.0, 3.0]).unwrap();
        let gap = pure
            .duality_gap(&[0.0, 1.0], &[0.0, 1.0], &mut gx[..2], &mut gy[..2])
            .unwrap();
        // (row 1, column 1): the column player gets 4 by switching, the row player 2: gap 2.
        assert_eq!(gap.gap(), 2.0);
        let gap = pure
            .duality_gap(&[1.0, 0.0], &[0.0, 1.0], &mut gx[..2], &mut gy[..2])
            .unwrap();
        assert_eq!(
            gap,
            Gap {
                upper: 2.0,
                lower: 2.0
            }
        );
    }

    #[test]
    fn an_unbounded_player_makes_the_gap_infinite_unless_its_gradient_vanishes() {
        let g = game(DomainKind::Simplex, DomainKind::Unconstrained);
        let (mut gx, mut gy) = ([0.0; 3], [0.0; 4]);
        let gap = g
            .duality_gap(&[1.0, 0.0, 0.0], &[0.0; 4], &mut gx, &mut gy)
            .unwrap();
        assert_eq!(gap.upper, f64::INFINITY);
    }

    #[test]
    fn bad_input_is_an_error() {
        let s = DomainKind::Simplex;
        assert!(matches!(
            BilinearGame::new(2, 2, vec![1.0; 3], s, s),
            Err(Error::DimensionMismatch { .. })
        ));
        assert!(matches!(
            BilinearGame::new(1, 2, vec![1.0, f64::NAN], s, s),
            Err(Error::NonFinite { .. })
        ));
        assert!(BilinearGame::new(0, 2, vec![], s, s).is_err());
        assert!(
            BilinearGame::new(1, 1, vec![1.0], DomainKind::L2Ball { radius: -1.0 }, s).is_err()
        );
        let g = BilinearGame::matrix_game(2, 2, vec![1.0; 4]).unwrap();
        let (mut gx, mut gy) = ([0.0; 2], [0.0; 2]);
        assert!(matches!(
            g.value_and_gradients(&[1.0], &[0.5, 0.5], &mut gx, &mut gy),
            Err(Error::DimensionMismatch { what: "x", .. })
        ));
        assert!(matches!(
            g.duality_gap(&[0.5, 0.5], &[0.5, 0.5], &mut gx, &mut gy[..1]),
            Err(Error::DimensionMismatch { .. })
        ));
        assert!(g.value(&[f64::INFINITY, 0.0], &[0.5, 0.5]).is_err());
    }
}
