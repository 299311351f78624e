//! A vertex-sampling run seen two ways (González, Guzmán & Paquette 2024, Algorithms 1 and 3):
//! on the left, what an outsider sees — the vertex drawn for the output at each step, covered by
//! the run's ε —; on the right, the dense iterate those vertices are drawn from, which only the
//! curator sees (non-private). One row per player, sharing the strategy axis.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{PALETTE, PlotError, draw_axes, finite_range, titled};
use crate::plot_spec::vertices::VerticesSpec;

/// The public draws.
const DRAW_COLOR: RGBColor = PALETTE[1];
/// The dense iterate.
const DENSE_COLOR: RGBColor = PALETTE[0];
/// Logical width under which the two views stack (see [`draw`]).
const STACK_BELOW: u32 = 560;

pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &VerticesSpec,
) -> Result<(), PlotError> {
    let points = spec.points();
    let steps = finite_range(spec.steps.iter().copied(), |_| true).unwrap_or((0.0, 1.0));
    let steps = (steps.0, steps.1.max(steps.0 + 1.0));
    let (width, _) = root.dim_in_pixel();
    // Narrower than this, the two views of a player stack instead of sitting side by side: at
    // its displayed size a phone's or a half column's canvas has no room for both, and their
    // titles would shrink to unreadable sizes.
    let stacked = width < STACK_BELOW;
    let rows = root.split_evenly((if stacked { 4 } else { 2 }, 1));
    let players = [
        ("x", &spec.dense_x, &points[0]),
        ("y", &spec.dense_y, &points[1]),
    ];
    for (k, (name, dense, drawn)) in players.into_iter().enumerate() {
        let (left, right) = if stacked {
            (rows[2 * k].clone(), rows[2 * k + 1].clone())
        } else {
            let (w, _) = rows[k].dim_in_pixel();
            rows[k].split_horizontally(w * 3 / 5)
        };
        // Strategies: the dense iterate's, else as many as the draws reach.
        let d = if dense.is_empty() {
            drawn.iter().map(|p| p.1 as usize + 1).max().unwrap_or(1)
        } else {
            dense.len()
        };
        let strategies = -0.5..d as f64 - 0.5;
        let strategy_label = |v: &f64| {
            let r = v.round();
            if (v - r).abs() < 1e-9 && r >= 0.0 {
                format!("{}", r as usize + 1)
            } else {
                String::new()
            }
        };
        let area = titled(
            &left.margin(6, 4, 8, 4),
            &format!("public: vertex of {name} drawn each step (in ε)"),
            13,
        )?;
        let mut chart = ChartBuilder::on(&area)
            .x_label_area_size(30)
            .y_label_area_size(44)
            .build_cartesian_2d(steps.0..steps.1, strategies.clone())?;
        draw_axes(&mut chart, "step", "strategy", &strategy_label)?;
        let radius = if drawn.len() > 400 { 1 } else { 2 };
        chart.draw_series(
            drawn
                .iter()
                .map(|p| Circle::new(*p, radius, DRAW_COLOR.mix(0.8).filled())),
        )?;
        let area = titled(
            &right.margin(6, 4, 4, 8),
            &format!("curator: dense {name}ᵗ (not private)"),
            13,
        )?;
        let top = finite_range(dense.iter().copied(), |_| true).map_or(1.0, |r| r.1.max(1e-9));
        let mut chart = ChartBuilder::on(&area)
            .x_label_area_size(30)
            .y_label_area_size(30)
            .build_cartesian_2d(0.0..top * 1.05, strategies)?;
        draw_axes(&mut chart, "weight", "", &strategy_label)?;
        chart.draw_series(dense.iter().enumerate().map(|(i, &v)| {
            let y = i as f64;
            Rectangle::new(
                [(0.0, y - 0.35), (v, y + 0.35)],
                DENSE_COLOR.mix(0.6).filled(),
            )
        }))?;
    }
    Ok(())
}
