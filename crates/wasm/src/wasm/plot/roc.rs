//! The attacker's view: the empirical ROC (solid) against the curve the guarantee allows
//! (dashed) and the diagonal of a guess, on log–log axes, with dotted marks at the FPRs read.

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::legend::Legend;
use super::{
    Bounds, GRID_COLOR, PALETTE, PlotError, RELEASE_COLOR, clip_polyline_loglog, draw_axes,
    log_axis, px, thin, tick, titled,
};
use crate::plot_spec::roc::RocSpec;

pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &RocSpec,
) -> Result<(), PlotError> {
    let floor = spec.floor;
    let b = Bounds {
        x: (floor, 1.0),
        y: (floor, 1.0),
    };
    let area = titled(
        &root.margin(12, 12, 12, 12),
        "the attacker's test: true against false positives",
        15,
    )?;
    let mut chart = ChartBuilder::on(&area)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d(log_axis(b.x), log_axis(b.y))?;
    draw_axes(
        &mut chart,
        "false-positive rate (says in when out)",
        "true-positive rate",
        &|v| tick(*v),
    )?;
    let mut drawn: Vec<(f64, f64)> = Vec::new();
    let mut legend = Legend::new(&chart);
    // A rate below the floor (0 included) is drawn at it, so the curve starts at the axes.
    let at_floor = |v: f64| if v.is_finite() { v.max(floor) } else { v };
    let grey = RGBColor(150, 150, 150);
    for &m in &spec.marks {
        let line = [(m.max(floor), floor), (m.max(floor), 1.0)];
        chart.draw_series(DashedLineSeries::new(line, 2, 4, grey.stroke_width(1)))?;
    }
    // The guess: TPR = FPR.
    chart.draw_series(LineSeries::new(
        [(floor, floor), (1.0, 1.0)],
        grey.stroke_width(1),
    ))?;
    legend.entry("a guess (TPR = FPR)", move |(x, y)| {
        PathElement::new(vec![(x, y), (x + 20, y)], grey.stroke_width(1))
    });
    // The allowed curve from the floor on (a bound below the axes' range is not drawn).
    let allowed: Vec<(f64, f64)> = spec
        .allowed_fpr
        .iter()
        .zip(spec.allowed_tpr.iter())
        .filter(|(x, _)| **x >= floor)
        .map(|(&x, &y)| (x, at_floor(y)))
        .collect();
    let black = BLACK.stroke_width(2);
    for piece in clip_polyline_loglog(allowed, b) {
        drawn.extend(piece.iter().map(|p| px(&chart, *p)));
        chart.draw_series(DashedLineSeries::new(piece, 8, 5, black))?;
    }
    let allowed_label = if spec.allowed_label.is_empty() {
        "allowed by the guarantee"
    } else {
        &spec.allowed_label
    };
    legend.entry(allowed_label, move |(x, y)| {
        DashedPathElement::new(vec![(x, y), (x + 20, y)], 5, 3, black)
    });
    // The empirical ROC is a staircase: from each point, right to the next FPR, then up.
    let mut stairs: Vec<(f64, f64)> = Vec::new();
    for (&x, &y) in spec.fpr.iter().zip(spec.tpr.iter()) {
        let p = (at_floor(x), at_floor(y));
        if let Some(&(_, last_y)) = stairs.last() {
            stairs.push((p.0, last_y));
        }
        stairs.push(p);
    }
    let blue = PALETTE[0].stroke_width(3);
    for piece in clip_polyline_loglog(stairs, b) {
        let piece = thin(&chart, piece);
        drawn.extend(piece.iter().map(|p| px(&chart, *p)));
        chart.draw_series(LineSeries::new(piece, blue))?;
    }
    let label = if spec.label.is_empty() {
        "measured (a lower bound on the leak)"
    } else {
        &spec.label
    };
    legend.entry(label, move |(x, y)| {
        PathElement::new(vec![(x, y), (x + 20, y)], blue)
    });
    // Where the measured TPR at a mark exceeds the allowed one, a red ring says so.
    for &m in &spec.marks {
        let measured = spec
            .fpr
            .iter()
            .zip(spec.tpr.iter())
            .filter(|(x, _)| **x <= m)
            .map(|(_, y)| *y)
            .fold(0.0, f64::max);
        let allowed = spec
            .allowed_fpr
            .iter()
            .zip(spec.allowed_tpr.iter())
            .filter(|(x, _)| **x <= m)
            .map(|(_, y)| *y)
            .fold(0.0, f64::max);
        if measured > allowed && measured >= floor {
            chart.draw_series([Circle::new(
                (m.max(floor), measured),
                7,
                RELEASE_COLOR.stroke_width(2),
            )])?;
        }
    }
    legend.draw(&mut chart, &drawn, GRID_COLOR)?;
    Ok(())
}
