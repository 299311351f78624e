//! ε spent against steps, rising by composition towards the claimed ε (dashed).

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::legend::Legend;
use super::{
    Bounds, GRID_COLOR, PlotError, clip_polyline, color, draw_axes, faded, finite_range, px, thin,
    tick, titled,
};
use crate::plot_spec::privacy::{PrivacySeries, PrivacySpec};

/// The axes of `series`: steps from 0 to `span` (by default the data's last), ε from 0 to a
/// little above the larger of `floor` and the ε spent.
fn ranges(series: &[PrivacySeries], span: Option<f64>, floor: f64) -> Bounds {
    let data_x = finite_range(series.iter().flat_map(|s| s.x.iter().copied()), |_| true);
    let x_max = span
        .or(data_x.map(|r| r.1))
        .filter(|v| *v > 0.0)
        .unwrap_or(1.0);
    let eps_max = finite_range(series.iter().flat_map(|s| s.eps.iter().copied()), |_| true)
        .map_or(0.0, |r| r.1);
    Bounds {
        x: (0.0, x_max),
        y: (0.0, floor.max(eps_max) * 1.15),
    }
}

/// The axes drawn: the current run's (up to its planned steps and claimed ε), held over the
/// pinned runs' spending.
pub(super) fn axes(spec: &PrivacySpec) -> Bounds {
    let pinned = (!spec.pinned.is_empty()).then(|| ranges(&spec.pinned, None, 0.0));
    ranges(&spec.series, spec.span, spec.target.unwrap_or(1.0)).hold(pinned)
}

pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &PrivacySpec,
) -> Result<(), PlotError> {
    let b = axes(spec);
    let x_max = b.x.1;
    let caption = if spec.target.is_some() {
        "privacy spent ε(t)"
    } else {
        "privacy spent: none claimed (a non-private run, ε = ∞)"
    };
    let area = titled(&root.margin(12, 12, 12, 12), caption, 15)?;
    let mut chart = ChartBuilder::on(&area)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d(b.x.0..b.x.1, b.y.0..b.y.1)?;
    draw_axes(&mut chart, "steps (noisy releases)", "ε spent", &|v| {
        tick(*v)
    })?;
    // Every point drawn and every legend text, for the legend's corner.
    let mut drawn: Vec<(f64, f64)> = Vec::new();
    let mut legend = Legend::new(&chart);
    if let Some(target) = spec.target {
        drawn.extend((0..=20).map(|k| px(&chart, (x_max * f64::from(k) / 20.0, target))));
        chart.draw_series(DashedLineSeries::new(
            [(0.0, target), (x_max, target)],
            8,
            5,
            BLACK.stroke_width(1),
        ))?;
        legend.entry(&format!("claimed ε = {}", tick(target)), |(x, y)| {
            DashedPathElement::new(vec![(x, y), (x + 20, y)], 5, 3, BLACK.stroke_width(1))
        });
    }
    // Pinned runs first and faded, the current run over them.
    let pinned = spec.pinned.iter().map(|s| (s, faded(s.color), 3));
    let current = spec.series.iter().map(|s| (s, color(s.color).to_rgba(), 2));
    for (s, c, width) in pinned.chain(current) {
        for (k, piece) in clip_polyline(staircase(&s.x, &s.eps), b)
            .into_iter()
            .enumerate()
        {
            let piece = thin(&chart, piece);
            drawn.extend(piece.iter().map(|p| px(&chart, *p)));
            chart.draw_series(LineSeries::new(piece, c.stroke_width(width)))?;
            if k == 0 && !s.label.is_empty() {
                legend.entry(&s.label, move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(width))
                });
            }
        }
    }
    legend.draw(&mut chart, &drawn, GRID_COLOR)?;
    Ok(())
}

/// ε is spent at discrete steps: from (0, 0), the curve stays flat until a step and jumps there,
/// so a single release (output perturbation) shows as one jump rather than as nothing.
fn staircase(x: &[f64], eps: &[f64]) -> Vec<(f64, f64)> {
    let mut points = vec![(0.0, 0.0)];
    let mut level = 0.0;
    for (&t, &e) in x.iter().zip(eps) {
        if !(t.is_finite() && e.is_finite()) {
            continue;
        }
        points.push((t, level));
        points.push((t, e));
        level = e;
    }
    points
}
