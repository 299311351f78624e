//! A game's two players side by side: each coordinate of x (the minimising player) and of y (the
//! maximising player) as a bar. The bars are where the run stands — the curator's dense view,
//! non-private —; the release is outlined in red (private); the equilibrium of the mean game,
//! when the game declares one, is a black tick.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::legend::Legend;
use super::{
    GRID_COLOR, PALETTE, PlotError, RELEASE_COLOR, draw_axes, faded, finite_range, px, tick, titled,
};
use crate::plot_spec::players::{Player, PlayersSpec};

/// The bars where the run stands.
const NOW_COLOR: RGBColor = PALETTE[0];

pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &PlayersSpec,
) -> Result<(), PlotError> {
    let all = spec
        .players()
        .iter()
        .flat_map(|p| [p.now, p.release, p.equilibrium])
        .chain(spec.pinned.iter().flat_map(|p| [&p.x[..], &p.y[..]]))
        .flat_map(|v| v.iter().copied())
        .collect::<Vec<_>>();
    // One value axis for both players, always through 0 (a simplex's [0, 1] when it fits).
    let (lo, hi) =
        finite_range(all.iter().copied().chain([0.0, 1.0]), |_| true).unwrap_or((0.0, 1.0));
    let pad = 0.05 * (hi - lo);
    let (lo, hi) = (if lo < 0.0 { lo - pad } else { 0.0 }, hi + pad);
    let halves = root.split_evenly((1, 2));
    for (k, (area, player)) in halves.iter().zip(spec.players()).enumerate() {
        let pinned: Vec<(&str, &[f64])> = spec
            .pinned
            .iter()
            .map(|p| (p.label.as_str(), if k == 0 { &p.x[..] } else { &p.y[..] }))
            .collect();
        draw_player(area, &player, &pinned, lo, hi)?;
    }
    Ok(())
}

fn draw_player<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    player: &Player<'_>,
    pinned: &[(&str, &[f64])],
    lo: f64,
    hi: f64,
) -> Result<(), PlotError> {
    let k = [player.now, player.release, player.equilibrium]
        .iter()
        .map(|v| v.len())
        .max()
        .unwrap_or(0)
        .max(1);
    let area = titled(&area.margin(10, 10, 10, 10), player.name, 14)?;
    let mut chart = ChartBuilder::on(&area)
        .x_label_area_size(34)
        .y_label_area_size(44)
        .build_cartesian_2d(0.0..k as f64, lo..hi)?;
    draw_axes(&mut chart, player.axis, "weight", &|v| tick(*v))?;
    let slot = |i: usize, inset: f64| (i as f64 + inset, i as f64 + 1.0 - inset);
    chart.draw_series(player.now.iter().enumerate().map(|(i, &v)| {
        let (a, b) = slot(i, 0.2);
        Rectangle::new([(a, 0.0), (b, v)], NOW_COLOR.mix(0.6).filled())
    }))?;
    chart.draw_series(player.release.iter().enumerate().map(|(i, &v)| {
        let (a, b) = slot(i, 0.12);
        Rectangle::new([(a, 0.0), (b, v)], RELEASE_COLOR.stroke_width(2))
    }))?;
    chart.draw_series(player.equilibrium.iter().enumerate().map(|(i, &v)| {
        let (a, b) = slot(i, 0.05);
        PathElement::new(vec![(a, v), (b, v)], BLACK.stroke_width(3))
    }))?;
    // Pinned games' releases: a faded tick each, in the palette's later colours.
    let mut legend = Legend::new(&chart);
    for (k, (label, values)) in pinned.iter().enumerate() {
        let c = faded(1 + k);
        chart.draw_series(values.iter().enumerate().map(|(i, &v)| {
            let (a, b) = slot(i, 0.2);
            PathElement::new(vec![(a, v), (b, v)], c.stroke_width(4))
        }))?;
        legend.entry(label, move |(x, y)| {
            PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(4))
        });
    }
    if !pinned.is_empty() {
        // The legend where it hides the fewest bars and ticks (each sampled along its height).
        let columns = [player.now, player.release, player.equilibrium]
            .into_iter()
            .chain(pinned.iter().map(|(_, v)| *v));
        let drawn: Vec<(f64, f64)> = columns
            .flat_map(|values| values.iter().enumerate())
            .flat_map(|(i, &v)| (0..=10).map(move |t| (i as f64 + 0.5, v * f64::from(t) / 10.0)))
            .map(|p| px(&chart, p))
            .collect();
        legend.draw(&mut chart, &drawn, GRID_COLOR)?;
    }
    Ok(())
}
