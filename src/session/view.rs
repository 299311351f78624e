//! The parameter view: the square of the plane the page draws, and F on a grid over it.
//! **Non-private** (reads the data).

use serde::Serialize;

use crate::domain::DomainKind;
use crate::objective::Objective;

use super::problem::{Game, Problem};

/// Per-sample loss evaluations the contour grid may cost (≈ 50 ms in wasm).
pub const GRID_BUDGET: f64 = 1e7;
const MIN_GRID_RES: usize = 8;

/// What the parameter view shows: a square of half-width `extent` around `center` (plane
/// coordinates), the domain's boundary in the plane, and the labels of the two axes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct View {
    /// Centre of the square in plane coordinates: the plane's origin.
    pub center: [f64; 2],
    /// Half-width of the square in plane units: it covers the domain (d ≤ 2) or the start (d > 2).
    pub extent: f64,
    /// The axes' labels: w₁, w₂ for d ≤ 2, else the plane's two directions.
    pub axis_labels: [&'static str; 2],
    /// The domain whose boundary the view draws (its serialised form is the plot's shape); `None`
    /// for d > 2, where its section by the plane is not drawn.
    pub domain: Option<DomainKind>,
    /// w* in plane coordinates; `None` without a reference.
    pub w_star: Option<[f64; 2]>,
}

/// The parameter view of a posed game (a trait, since [`Game`] is the algorithms crate's).
pub trait GameView {
    /// The view of the minimising player's first two coordinates (x₁, x₂): a square around the
    /// simplex's corner or the ball, with the base game's equilibrium x* marked where the
    /// generator declares it (public: a property of the generator, not of the records).
    fn view(&self) -> View;
}

impl GameView for Game {
    fn view(&self) -> View {
        use crate::domain::Domain;
        let (dx, _) = self.game.dims();
        let x_domain = self.game.x_domain_kind();
        let (center, extent) = match x_domain {
            DomainKind::Simplex => ([0.5, 0.5], 0.6),
            domain => ([0.0, 0.0], domain.radius_in(dx).min(1e6)),
        };
        View {
            center,
            extent,
            axis_labels: ["x₁", "x₂"],
            domain: (dx <= 2).then_some(x_domain),
            w_star: self
                .game
                .base_equilibrium()
                .map(|(x, _)| self.plane.project(&x)),
        }
    }
}

/// The parameter view of a posed minimisation problem, and F on a grid over it (a trait, since
/// [`Problem`] is the algorithms crate's).
pub trait ProblemView {
    /// The parameter view of this problem.
    fn view(&self) -> View;

    /// F on a res × res grid over the view's square, row by row from the bottom, and res.
    /// res ≤ `max_res`, lowered so that the grid costs at most [`GRID_BUDGET`] per-sample
    /// evaluations (a large n would stall the worker); where even the floor resolution would
    /// pass it (n > 156,250), F is estimated on an evenly strided subsample that fits
    /// (`grid_objective`). **Non-private** (reads the data).
    fn loss_grid(&self, max_res: usize) -> Option<(Vec<f64>, usize)>;
}

impl ProblemView for Problem {
    fn view(&self) -> View {
        let d = self.declared.d;
        let reference = self.reference.as_ref().ok();
        let w_star = reference.map(|r| self.plane.project(&r.w));
        let radius = self.declared.radius();
        if d <= 2 {
            let extent = match self.declared.domain {
                DomainKind::Simplex => 1.1,
                _ if radius.is_finite() => radius,
                _ => reference.map_or(1.0, |r| (2.0 * crate::linalg::norm2(&r.w)).max(1.0)),
            };
            return View {
                center: [0.0, 0.0],
                extent,
                axis_labels: ["w₁", "w₂"],
                domain: Some(self.declared.domain),
                w_star,
            };
        }
        if reference.is_none() {
            // d > 2 without a reference: the coordinate plane through the start
            // (`Plane::at_start`), as wide as the domain (or ±1 on R^d): data-free.
            let extent = if radius.is_finite() { radius } else { 1.0 };
            return View {
                center: [0.0, 0.0],
                extent,
                axis_labels: ["w₁ − start₁", "w₂ − start₂"],
                domain: None,
                w_star,
            };
        }
        // d > 2: the plane through w*; the view is centred on w* and reaches the start.
        let mut start = vec![0.0; d];
        self.objective.domain().project(&mut start);
        let s = self.plane.project(&start);
        let extent = (1.3 * s[0].abs().max(s[1].abs())).max(1e-3);
        View {
            center: [0.0, 0.0],
            extent,
            axis_labels: ["direction 1 (start − w*)", "direction 2 (descent)"],
            domain: None,
            w_star,
        }
    }

    fn loss_grid(&self, max_res: usize) -> Option<(Vec<f64>, usize)> {
        if max_res < MIN_GRID_RES {
            return None;
        }
        let d = self.declared.d;
        let view = self.view();
        let res = grid_resolution(self.data.n(), max_res);
        let strided = grid_objective(self, res);
        let objective = strided.as_ref().unwrap_or(&self.objective);
        let r = view.extent;
        let step = 2.0 * r / (res - 1) as f64;
        let mut grid = Vec::with_capacity(res * res);
        let mut w = vec![0.0; d];
        for i in 0..res {
            for j in 0..res {
                let (a, b) = (
                    view.center[0] - r + j as f64 * step,
                    view.center[1] - r + i as f64 * step,
                );
                if d == 1 {
                    w[0] = a;
                } else {
                    self.plane.point(a, b, &mut w);
                }
                grid.push(objective.value(&w));
            }
        }
        Some((grid, res))
    }
}

/// F on every k-th record, k the least stride with res²·(n/k) ≤ [`GRID_BUDGET`], or `None`
/// when F itself fits the budget. An estimate of the same mean, on a subsample spread evenly
/// over the rows (not the first rows, which a sorted file would bias); at the n where it
/// applies, at least 10⁵ records, the contours it draws are those of F to the eye. At
/// n = 10⁶ it saves 15 s of an otherwise idle worker in a loaded browser.
fn grid_objective(problem: &Problem, res: usize) -> Option<Objective> {
    let n = problem.data.n();
    let stride = ((res * res * n) as f64 / GRID_BUDGET).ceil() as usize;
    if stride <= 1 {
        return None;
    }
    let picked = problem.data.every(stride);
    let m = picked.n();
    // The mean over the subsample: the declared n is the full data's.
    let objective = problem.declared.objective(&picked, 0.0).ok()?;
    Some(objective.with_declared_n(m))
}

/// The largest res ≤ `max_res` with res²·n ≤ [`GRID_BUDGET`], but at least [`MIN_GRID_RES`].
fn grid_resolution(n: usize, max_res: usize) -> usize {
    let affordable = (GRID_BUDGET / n as f64).sqrt() as usize;
    max_res.min(affordable).max(MIN_GRID_RES)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RunConfig;
    use crate::session::Session;
    use crate::session::tests::small;

    #[test]
    fn loss_grid_only_in_two_dimensions() {
        let s = Session::new(small()).unwrap();
        let g = s.loss_grid(13).unwrap();
        assert_eq!(g.len(), 169);
        // The centre of the grid is w = 0, where logistic loss is ln 2.
        assert!((g[84] - std::f64::consts::LN_2).abs() < 1e-12);
        // A large n lowers the resolution to stay within the budget, down to a floor.
        assert_eq!(grid_resolution(2_000, 72), 70);
        assert_eq!(grid_resolution(100_000, 72), 10);
        assert_eq!(grid_resolution(1_000_000, 72), MIN_GRID_RES);
        assert_eq!(grid_resolution(10, 72), 72);
        let s3 = Session::new(RunConfig { d: 3, ..small() }).unwrap();
        assert_eq!(s3.loss_grid(13).map(|g| g.len()), Some(169));
    }

    #[test]
    fn past_the_budget_the_grid_estimates_f_on_an_even_subsample() {
        // Within the budget: F itself, the same bits as before.
        let s = Session::new(small()).unwrap();
        assert!(grid_objective(s.problem().unwrap(), 13).is_none());
        // 8² · 160,000 passes the budget of 10⁷ by 2.4 %: every other record.
        let s = Session::new(RunConfig {
            n: 160_000,
            ..small()
        })
        .unwrap();
        let problem = s.problem().unwrap();
        let strided = grid_objective(problem, MIN_GRID_RES).expect("a subsample");
        assert_eq!(strided.data().n(), 80_000);
        assert_eq!(strided.n(), 80_000, "a mean over the subsample");
        assert_eq!(strided.data().features(1), problem.data.features(2));
        // The same mean, estimated: close to F over the view, not equal.
        let (grid, res) = problem.loss_grid(72).unwrap();
        assert_eq!(res, MIN_GRID_RES);
        let view = problem.view();
        let mut w = vec![0.0; 2];
        let mut worst: f64 = 0.0;
        for (k, g) in grid.iter().enumerate() {
            let step = 2.0 * view.extent / (res - 1) as f64;
            let a = view.center[0] - view.extent + (k % res) as f64 * step;
            let b = view.center[1] - view.extent + (k / res) as f64 * step;
            problem.plane.point(a, b, &mut w);
            worst =
                worst.max((g - problem.objective.value(&w)).abs() / problem.objective.value(&w));
        }
        assert!(worst > 0.0 && worst < 0.01, "relative error {worst}");
    }

    #[test]
    fn the_contour_grid_is_as_fine_above_two_dimensions_as_in_two() {
        // The plane through w* (d > 2) is sampled as finely as the plane of w itself (d = 2);
        // the drawing then refines either (`figure::contour`).
        let side = |d: usize| {
            let s = Session::new(RunConfig { d, ..small() }).unwrap();
            s.problem().unwrap().loss_grid(72).map(|(_, res)| res)
        };
        let two = side(2).expect("a grid at d = 2");
        assert!(two >= 64, "{two}");
        for d in [3, 5, 20] {
            assert_eq!(side(d), Some(two), "d = {d}");
        }
    }

    #[test]
    fn in_higher_dimensions_the_view_is_the_plane_through_w_star() {
        let s = Session::new(RunConfig { d: 5, ..small() }).unwrap();
        let problem = s.problem().unwrap();
        let plane = &problem.plane;
        assert!((crate::linalg::norm2(&plane.e1) - 1.0).abs() < 1e-12);
        assert!((crate::linalg::norm2(&plane.e2) - 1.0).abs() < 1e-12);
        assert!(crate::linalg::dot(&plane.e1, &plane.e2).abs() < 1e-12);
        assert_eq!(
            plane.project(&problem.reference.as_ref().unwrap().w),
            [0.0, 0.0]
        );
        let (grid, res) = problem.loss_grid(13).unwrap();
        assert_eq!(grid.len(), res * res);
        // The grid's centre is w*, where F is smallest over the grid (up to the grid's reach).
        let centre = grid[(res / 2) * res + res / 2];
        assert!((centre - problem.reference.as_ref().unwrap().value).abs() < 1e-9);
        // w* minimises F over the domain: no grid point inside the domain does better.
        let view = problem.view();
        let step = 2.0 * view.extent / (res - 1) as f64;
        let mut w = vec![0.0; 5];
        for (k, &v) in grid.iter().enumerate() {
            let (a, b) = (
                -view.extent + (k % res) as f64 * step,
                -view.extent + (k / res) as f64 * step,
            );
            plane.point(a, b, &mut w);
            if problem.objective.domain().contains(&w, 0.0) {
                assert!(
                    v >= problem.reference.as_ref().unwrap().value - 1e-9,
                    "{v} < F* at ({a}, {b})"
                );
            }
        }
    }

    #[test]
    fn a_game_view_marks_the_declared_equilibrium_and_nothing_else() {
        use crate::algo::family::ProblemKind;
        use crate::config::GameChoice;
        let game = |choice| {
            let config = RunConfig {
                problem: ProblemKind::Saddle,
                game: choice,
                d: 4,
                ..RunConfig::default()
            };
            crate::config::pose::game(&config).unwrap().view()
        };
        let rps = game(GameChoice::RockPaperScissors);
        let [a, b] = rps.w_star.expect("rock–paper–scissors declares x*");
        assert!((a - 1.0 / 3.0).abs() < 1e-15 && (b - 1.0 / 3.0).abs() < 1e-15);
        assert_eq!(rps.axis_labels, ["x₁", "x₂"]);
        // A random game's equilibrium is not known in closed form: nothing is marked.
        assert_eq!(game(GameChoice::RandomMatrix).w_star, None);
    }
}
