//! Filled contours of F over the parameter view, smooth whatever the grid's resolution.
//!
//! The session samples F on a res × res grid, res lowered for a large n to stay within its time
//! budget (`session::view`): at n = 10⁵ a 10 × 10 grid. Shading each grid cell by its band drew
//! that grid as blocks. Here the grid is first refined by cubic convolution
//! (Keys 1981, "Cubic convolution interpolation for digital image processing": exact on
//! quadratics, which a smooth F is near its minimum) to at least `MIN_SIDE` points a side, and
//! the level curves of the refined grid are traced by marching squares with linear
//! interpolation along the cell edges. Each band is then one polygon per connected piece,
//! painted from the highest band down: a dozen smooth polygons instead of hundreds of
//! rectangles, in the SVG export too.

/// The number of shades: bands of equal area (quantiles of F on the grid), so the contours are
/// even whatever the loss's scale.
pub const BANDS: usize = 12;

/// The refined grid has at least this many points a side: a cell of about 3 pixels on the
/// page's plot, where the traced curve's corners no longer show.
const MIN_SIDE: usize = 97;

/// One filled region, painted in order: `band` 0 holds the lowest values of F (the darkest
/// shade), `BANDS − 1` the highest.
#[derive(Debug, Clone, PartialEq)]
pub struct Fill {
    /// The band whose shade fills the region.
    pub band: usize,
    /// The region's closed outline (the last point joins the first), inside the view.
    pub outline: Vec<(f64, f64)>,
}

/// The fills that draw F's bands over the view [x.0, x.1] × [y.0, y.1], to be painted in order
/// (each over the ones before): first the whole view in the highest band, then for each band
/// from the second highest down, the region where F lies below that band's upper level. `grid`
/// is res × res values of F, row by row from the bottom, at points spanning the view (corners
/// included); a non-finite value counts as above every level. Empty when the grid holds no
/// finite value (nothing to shade) or is not res × res with res ≥ 2.
///
/// F restricted to a plane is convex, so each region below a level is convex and is one
/// polygon; a non-convex F would be drawn with its regions' holes filled.
pub fn contour_fills(grid: &[f64], res: usize, x: (f64, f64), y: (f64, f64)) -> Vec<Fill> {
    if res < 2 || grid.len() != res * res {
        return Vec::new();
    }
    let levels = band_levels(grid);
    if levels.is_empty() {
        return Vec::new();
    }
    let fine = Refined::new(grid, res);
    let mut fills = vec![Fill {
        band: BANDS - 1,
        outline: vec![(x.0, y.0), (x.1, y.0), (x.1, y.1), (x.0, y.1)],
    }];
    for k in (1..BANDS).rev() {
        // A level equal to the next lower one bounds the same region, which that one paints.
        if k >= 2 && levels[k - 2] == levels[k - 1] {
            continue;
        }
        fills.extend(
            fine.level_loops(levels[k - 1], x, y)
                .into_iter()
                .map(|outline| Fill {
                    band: k - 1,
                    outline,
                }),
        );
    }
    fills
}

/// The upper levels of the bands but the highest (`BANDS − 1` of them, increasing): band b holds
/// the values below level b and at or above level b − 1. The k/`BANDS` quantiles of the finite
/// grid values; empty when there are none.
pub fn band_levels(grid: &[f64]) -> Vec<f64> {
    let mut sorted: Vec<f64> = grid.iter().copied().filter(|v| v.is_finite()).collect();
    if sorted.is_empty() {
        return Vec::new();
    }
    sorted.sort_by(f64::total_cmp);
    (1..BANDS)
        .map(|k| sorted[(k * sorted.len() / BANDS).min(sorted.len() - 1)])
        .collect()
}

/// The grid refined to `side` points a side, row by row from the bottom; +∞ where F is not
/// finite (or a refined value next to such a point).
struct Refined {
    values: Vec<f64>,
    side: usize,
}

impl Refined {
    fn new(grid: &[f64], res: usize) -> Self {
        let factor = (MIN_SIDE - 1).div_ceil(res - 1).max(1);
        let side = (res - 1) * factor + 1;
        let finite = |v: f64| if v.is_finite() { v } else { f64::INFINITY };
        // Separable: along each row, then along each refined column.
        let rows: Vec<Vec<f64>> = grid
            .chunks_exact(res)
            .map(|row| refine_line(&row.iter().copied().map(finite).collect::<Vec<_>>(), factor))
            .collect();
        let mut values = vec![0.0; side * side];
        let mut column = vec![0.0; res];
        for j in 0..side {
            for (i, row) in rows.iter().enumerate() {
                column[i] = row[j];
            }
            for (i, v) in refine_line(&column, factor).into_iter().enumerate() {
                values[i * side + j] = finite(v);
            }
        }
        Self { values, side }
    }

    /// The closed level curves where F = `level`, each the boundary of a connected piece of the
    /// region F < `level`, in plane coordinates over the view. The grid is framed by a ring of
    /// +∞ at the view's own edge, so a region reaching the edge is closed along it.
    fn level_loops(&self, level: f64, x: (f64, f64), y: (f64, f64)) -> Vec<Vec<(f64, f64)>> {
        let n = self.side;
        let s = n + 2; // the framed grid's side
        let value = |i: usize, j: usize| {
            if i == 0 || j == 0 || i == s - 1 || j == s - 1 {
                f64::INFINITY
            } else {
                self.values[(i - 1) * n + (j - 1)]
            }
        };
        let step = |(lo, hi): (f64, f64)| (hi - lo) / (n - 1) as f64;
        let (dx, dy) = (step(x), step(y));
        // The frame sits on the view's edge: index 0 and s − 1 at the first and last point.
        let at = |i: usize, j: usize| {
            let (i, j) = (i.clamp(1, n) - 1, j.clamp(1, n) - 1);
            (x.0 + j as f64 * dx, y.0 + i as f64 * dy)
        };
        let inside = |i: usize, j: usize| value(i, j) < level;
        // Edge ids: 2·(i·s + j) for the edge from (i, j) to (i, j + 1), + 1 for the one to (i + 1, j).
        let horizontal = |i: usize, j: usize| 2 * (i * s + j);
        let vertical = |i: usize, j: usize| 2 * (i * s + j) + 1;
        let crossing = |edge: usize| {
            let (i, j) = ((edge / 2) / s, (edge / 2) % s);
            let (i2, j2) = if edge % 2 == 0 {
                (i, j + 1)
            } else {
                (i + 1, j)
            };
            let (va, vb) = (value(i, j), value(i2, j2));
            // Linear along the edge; an edge to +∞ (the frame, a non-finite F) is cut halfway:
            // on the frame both ends are the same point anyway.
            let t = if va.is_finite() && vb.is_finite() {
                ((level - va) / (vb - va)).clamp(0.0, 1.0)
            } else {
                0.5
            };
            let (a, b) = (at(i, j), at(i2, j2));
            (a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1))
        };

        // Marching squares: each cell's corners (counter-clockwise from the bottom left) and its
        // edges, edge k joining corner k to corner k + 1.
        let mut segments: Vec<[usize; 2]> = Vec::new();
        for i in 0..s - 1 {
            for j in 0..s - 1 {
                let corners = [(i, j), (i, j + 1), (i + 1, j + 1), (i + 1, j)];
                let ins = corners.map(|(a, b)| inside(a, b));
                if ins.iter().all(|&b| b == ins[0]) {
                    continue;
                }
                let edges = [
                    horizontal(i, j),
                    vertical(i, j + 1),
                    horizontal(i + 1, j),
                    vertical(i, j),
                ];
                let cut: Vec<usize> = (0..4).filter(|&k| ins[k] != ins[(k + 1) % 4]).collect();
                if cut.len() == 2 {
                    segments.push([edges[cut[0]], edges[cut[1]]]);
                } else {
                    // A saddle cell: the cell's centre decides which corners are cut off.
                    let centre = corners.iter().map(|&(a, b)| value(a, b)).sum::<f64>() / 4.0;
                    let centre_in = centre < level;
                    for k in (0..4).filter(|&k| ins[k] != centre_in) {
                        segments.push([edges[(k + 3) % 4], edges[k]]);
                    }
                }
            }
        }

        // Every crossed edge is shared by exactly two segments (its two cells): walk the loops.
        let mut at_edge = vec![[usize::MAX; 2]; 2 * s * s];
        for (k, seg) in segments.iter().enumerate() {
            for &edge in seg {
                let slot = &mut at_edge[edge];
                if slot[0] == usize::MAX {
                    slot[0] = k;
                } else {
                    slot[1] = k;
                }
            }
        }
        let mut used = vec![false; segments.len()];
        let mut loops = Vec::new();
        for first in 0..segments.len() {
            if used[first] {
                continue;
            }
            used[first] = true;
            let start = segments[first][0];
            let mut points = vec![crossing(start)];
            let (mut seg, mut edge) = (first, segments[first][1]);
            while edge != start {
                points.push(crossing(edge));
                let [a, b] = at_edge[edge];
                let next = if a == seg { b } else { a };
                if next == usize::MAX || used[next] {
                    break;
                }
                used[next] = true;
                let [e0, e1] = segments[next];
                edge = if e0 == edge { e1 } else { e0 };
                seg = next;
            }
            points.dedup();
            while points.len() > 1 && points.first() == points.last() {
                points.pop();
            }
            if points.len() >= 3 {
                loops.push(points);
            }
        }
        loops
    }
}

/// `values` (at least two) with `factor − 1` points inserted between each pair by Keys' cubic
/// convolution (a = −1/2, Catmull–Rom), the ends extended by Keys' boundary condition
/// (quadratic extrapolation; linear for two points).
fn refine_line(values: &[f64], factor: usize) -> Vec<f64> {
    let n = values.len();
    let before = if n >= 3 {
        3.0 * values[0] - 3.0 * values[1] + values[2]
    } else {
        2.0 * values[0] - values[1]
    };
    let after = if n >= 3 {
        3.0 * values[n - 1] - 3.0 * values[n - 2] + values[n - 3]
    } else {
        2.0 * values[n - 1] - values[n - 2]
    };
    let get = |k: isize| match k {
        -1 => before,
        k if k as usize >= n => after,
        k => values[k as usize],
    };
    let mut out = Vec::with_capacity((n - 1) * factor + 1);
    for seg in 0..n - 1 {
        let k = seg as isize;
        let (p0, p1, p2, p3) = (get(k - 1), get(k), get(k + 1), get(k + 2));
        out.push(p1);
        for m in 1..factor {
            let t = m as f64 / factor as f64;
            out.push(
                0.5 * (2.0 * p1
                    + (p2 - p0) * t
                    + (2.0 * p0 - 5.0 * p1 + 4.0 * p2 - p3) * t * t
                    + (3.0 * (p1 - p2) + p3 - p0) * t * t * t),
            );
        }
    }
    out.push(values[n - 1]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A convex quadratic, tilted and off-centre: its level curves are ellipses.
    fn f(a: f64, b: f64) -> f64 {
        (a - 0.1).powi(2) + 2.0 * (b + 0.05).powi(2) + 0.6 * a * b
    }

    const VIEW: (f64, f64) = (-1.0, 1.0);

    /// F on a res × res grid over the view, row by row from the bottom.
    fn grid(res: usize) -> Vec<f64> {
        let at = |k: usize| VIEW.0 + (VIEW.1 - VIEW.0) * k as f64 / (res - 1) as f64;
        (0..res)
            .flat_map(|i| (0..res).map(move |j| f(at(j), at(i))))
            .collect()
    }

    /// Whether `p` is inside the closed polygon `poly` (even–odd ray casting).
    fn contains(poly: &[(f64, f64)], p: (f64, f64)) -> bool {
        let mut inside = false;
        let mut j = poly.len() - 1;
        for i in 0..poly.len() {
            let ((xi, yi), (xj, yj)) = (poly[i], poly[j]);
            if (yi > p.1) != (yj > p.1) && p.0 < (xj - xi) * (p.1 - yi) / (yj - yi) + xi {
                inside = !inside;
            }
            j = i;
        }
        inside
    }

    /// The band the fills paint at `p`: that of the last fill containing it.
    fn painted(fills: &[Fill], p: (f64, f64)) -> Option<usize> {
        fills
            .iter()
            .rev()
            .find(|fill| contains(&fill.outline, p))
            .map(|fill| fill.band)
    }

    /// The band F itself is in at `p`, for the levels the grid gives.
    fn true_band(levels: &[f64], p: (f64, f64)) -> usize {
        levels.iter().filter(|&&l| f(p.0, p.1) >= l).count()
    }

    /// The fraction of an n × n lattice of points (cell centres) over the view where the
    /// painted band differs from F's own.
    fn mismatch(fills: &[Fill], levels: &[f64], n: usize) -> f64 {
        let at = |k: usize| VIEW.0 + (VIEW.1 - VIEW.0) * (k as f64 + 0.5) / n as f64;
        let wrong = (0..n)
            .flat_map(|i| (0..n).map(move |j| (at(j), at(i))))
            .filter(|&p| painted(fills, p) != Some(true_band(levels, p)))
            .count();
        wrong as f64 / (n * n) as f64
    }

    #[test]
    fn a_coarse_grid_draws_the_bands_of_f_itself() {
        // A 10 × 10 grid (what n = 10⁵ affords): the painted bands are F's own bands at all
        // but a sliver of points along the curves. Shading the grid's cells drew 10 × 10 blocks,
        // wrong over a strip half a cell wide beside every curve.
        let g = grid(10);
        let levels = band_levels(&g);
        let fills = contour_fills(&g, 10, VIEW, VIEW);
        let wrong = mismatch(&fills, &levels, 120);
        assert!(
            wrong < 0.01,
            "the painted bands differ from F's at {:.1}% of points",
            100.0 * wrong
        );
    }

    #[test]
    fn the_level_curves_are_smooth_where_they_lie_inside_the_view() {
        // Every vertex and every edge's midpoint lies on the true level curve, to 0.2% of the
        // view's width: no staircase, no corner cut.
        let g = grid(10);
        let levels = band_levels(&g);
        let fills = contour_fills(&g, 10, VIEW, VIEW);
        let inner: Vec<&Fill> = fills
            .iter()
            .skip(1)
            .filter(|fill| {
                fill.outline
                    .iter()
                    .all(|p| p.0.abs() < 0.99 && p.1.abs() < 0.99)
            })
            .collect();
        assert!(
            inner.len() >= 3,
            "{} closed curves inside the view",
            inner.len()
        );
        for fill in inner {
            let level = levels[fill.band];
            let n = fill.outline.len();
            for k in 0..n {
                let (p, q) = (fill.outline[k], fill.outline[(k + 1) % n]);
                for r in [p, ((p.0 + q.0) / 2.0, (p.1 + q.1) / 2.0)] {
                    // Distance to the curve, to first order: |F − level| / ‖∇F‖.
                    let grad = (
                        2.0 * (r.0 - 0.1) + 0.6 * r.1,
                        4.0 * (r.1 + 0.05) + 0.6 * r.0,
                    );
                    let distance = (f(r.0, r.1) - level).abs() / grad.0.hypot(grad.1);
                    assert!(
                        distance < 0.004,
                        "{r:?} is {distance} off the curve F = {level}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_refined_grid_is_exact_on_a_quadratic() {
        let g = grid(6);
        let fine = Refined::new(&g, 6);
        assert!(fine.side >= MIN_SIDE);
        let at = |k: usize| VIEW.0 + (VIEW.1 - VIEW.0) * k as f64 / (fine.side - 1) as f64;
        for i in 0..fine.side {
            for j in 0..fine.side {
                let v = fine.values[i * fine.side + j];
                assert!((v - f(at(j), at(i))).abs() < 1e-12, "({i}, {j}): {v}");
            }
        }
    }

    #[test]
    fn the_first_fill_is_the_view_and_the_bands_go_down() {
        let g = grid(72);
        let fills = contour_fills(&g, 72, VIEW, VIEW);
        assert_eq!(fills[0].band, BANDS - 1);
        assert!(fills.windows(2).all(|w| w[0].band >= w[1].band));
        assert!(fills.iter().any(|fill| fill.band == 0));
        for p in fills.iter().flat_map(|fill| &fill.outline) {
            assert!(
                (-1.0..=1.0).contains(&p.0) && (-1.0..=1.0).contains(&p.1),
                "{p:?}"
            );
        }
        // Painted bands match F at 72 × 72 as at 10 × 10.
        assert!(mismatch(&fills, &band_levels(&g), 60) < 0.01);
    }

    #[test]
    fn non_finite_values_and_flat_grids_are_drawn_without_a_panic() {
        let mut g = grid(8);
        g[20] = f64::NAN;
        g[21] = f64::INFINITY;
        let fills = contour_fills(&g, 8, VIEW, VIEW);
        assert!(fills.len() > 1);
        assert!(
            fills
                .iter()
                .flat_map(|fill| &fill.outline)
                .all(|p| p.0.is_finite() && p.1.is_finite())
        );
        // A flat F is one band: the view.
        assert_eq!(contour_fills(&[1.0; 4], 2, VIEW, VIEW).len(), 1);
        assert!(contour_fills(&[f64::NAN; 4], 2, VIEW, VIEW).is_empty());
        assert!(contour_fills(&[1.0; 5], 2, VIEW, VIEW).is_empty());
    }
}
