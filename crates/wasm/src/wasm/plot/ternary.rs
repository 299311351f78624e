//! A game's two players as ternary plots, when each has exactly three strategies
//! (rock–paper–scissors at d = 3): the simplex as a triangle, the player's path (where the run
//! stood, non-private), where it stands now, the release as a red ring (private) and the base
//! game's equilibrium as a black ×, where declared. The bar chart ([`super::players`]) draws
//! every other game.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{FONT, GRID_COLOR, PALETTE, PlotError, RELEASE_COLOR, faded, titled};
use crate::plot_spec::players::{Player, PlayersSpec};
use crate::plot_spec::ternary::{CORNERS, path_to_plane, to_plane};

/// The path and the point where the run stands.
const NOW_COLOR: RGBColor = PALETTE[0];

pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &PlayersSpec,
) -> Result<(), PlotError> {
    let halves = root.split_evenly((1, 2));
    for (k, (area, player)) in halves.iter().zip(spec.players()).enumerate() {
        let pinned: Vec<(&str, &[f64])> = spec
            .pinned
            .iter()
            .map(|p| (p.label.as_str(), if k == 0 { &p.x[..] } else { &p.y[..] }))
            .collect();
        draw_player(area, &player, &pinned)?;
    }
    Ok(())
}

/// A point of three weights in the plane, if it has a place there.
fn point(p: &[f64]) -> Option<(f64, f64)> {
    match p {
        [a, b, c] => to_plane([*a, *b, *c]),
        _ => None,
    }
}

fn draw_player<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    player: &Player<'_>,
    pinned: &[(&str, &[f64])],
) -> Result<(), PlotError> {
    let area = titled(&area.margin(8, 8, 8, 8), player.name, 14)?;
    // Equal scales on both axes, so the triangle is equilateral on screen.
    let (w, h) = area.dim_in_pixel();
    let (w, h) = (f64::from(w.max(1)), f64::from(h.max(1)));
    let (mut xr, mut yr) = ((-0.12, 1.12), (-0.14, 0.95));
    let (span_x, span_y) = (xr.1 - xr.0, yr.1 - yr.0);
    if span_x / w > span_y / h {
        let extra = (span_x * h / w - span_y) / 2.0;
        yr = (yr.0 - extra, yr.1 + extra);
    } else {
        let extra = (span_y * w / h - span_x) / 2.0;
        xr = (xr.0 - extra, xr.1 + extra);
    }
    let mut chart = ChartBuilder::on(&area).build_cartesian_2d(xr.0..xr.1, yr.0..yr.1)?;
    let mut edge = CORNERS.to_vec();
    edge.push(CORNERS[0]);
    chart.draw_series(std::iter::once(PathElement::new(
        edge,
        BLACK.stroke_width(1),
    )))?;
    // Faint lines at weight 1/3 and 2/3 of each strategy, so a weight can be read off.
    for k in 0..3 {
        for level in [1.0 / 3.0, 2.0 / 3.0] {
            let ends = [(k + 1) % 3, (k + 2) % 3].map(|other| {
                let mut p = [0.0; 3];
                p[k] = level;
                p[other] = 1.0 - level;
                to_plane(p).unwrap_or((0.0, 0.0))
            });
            chart.draw_series(std::iter::once(PathElement::new(
                ends.to_vec(),
                GRID_COLOR.stroke_width(1),
            )))?;
        }
    }
    let label = (FONT, 12).into_font().color(&BLACK);
    for (k, (cx, cy)) in CORNERS.iter().enumerate() {
        let (dx, dy) = match k {
            0 => (-0.02, -0.07),
            1 => (-0.16, -0.07),
            _ => (0.04, -0.01),
        };
        chart.draw_series(std::iter::once(Text::new(
            format!("strategy {}", k + 1),
            (cx + dx, cy + dy),
            label.clone(),
        )))?;
    }
    // Where the run stood: its path (non-private), breaking where a point has no place.
    let path = path_to_plane(player.path);
    for piece in path.split(|p| !(p.0.is_finite() && p.1.is_finite())) {
        if piece.len() >= 2 {
            chart.draw_series(std::iter::once(PathElement::new(
                piece.to_vec(),
                NOW_COLOR.mix(0.7).stroke_width(2),
            )))?;
        }
    }
    let mut legend: Vec<(&str, RGBAColor)> = Vec::new();
    if let Some(p) = point(player.now) {
        chart.draw_series(std::iter::once(Circle::new(p, 4, NOW_COLOR.filled())))?;
        legend.push((
            "path and where the run stands (not private)",
            NOW_COLOR.to_rgba(),
        ));
    }
    if let Some(p) = point(player.equilibrium) {
        chart.draw_series(std::iter::once(Cross::new(p, 6, BLACK.stroke_width(2))))?;
        legend.push(("equilibrium", BLACK.to_rgba()));
    }
    for (k, (_, values)) in pinned.iter().enumerate() {
        if let Some(p) = point(values) {
            chart.draw_series(std::iter::once(Circle::new(
                p,
                7,
                faded(1 + k).stroke_width(2),
            )))?;
        }
    }
    if let Some(p) = point(player.release) {
        chart.draw_series(std::iter::once(Circle::new(
            p,
            8,
            RELEASE_COLOR.stroke_width(3),
        )))?;
        legend.push(("release (private)", RELEASE_COLOR.to_rgba()));
    }
    // The legend in the triangle's empty top-left corner, one line each.
    let (lx, ly) = (xr.0 + 0.02 * (xr.1 - xr.0), yr.1 - 0.05 * (yr.1 - yr.0));
    let step = 0.065 * (yr.1 - yr.0);
    for (i, (text, color)) in legend.iter().enumerate() {
        let y = ly - step * i as f64;
        chart.draw_series(std::iter::once(Circle::new((lx, y), 3, color.filled())))?;
        chart.draw_series(std::iter::once(Text::new(
            *text,
            (lx + 0.03 * (xr.1 - xr.0), y + 0.02 * (yr.1 - yr.0)),
            (FONT, 11).into_font().color(&BLACK),
        )))?;
    }
    Ok(())
}
