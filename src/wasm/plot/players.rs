//! A game's two players side by side: each coordinate of x (the minimising player) and of y (the
//! maximising player) as a bar. The bars are where the run stands — the curator's dense view,
//! non-private —; the release is outlined in red (private); the equilibrium of the mean game,
//! when the game declares one, is a black tick.

use plotters::coord::Shift;
use plotters::prelude::*;
use serde::Deserialize;

use super::{FONT, Floats, PALETTE, PlotError, RELEASE_COLOR, draw_axes, finite_range, tick};
use crate::error::Error;

/// Most strategies a player's chart draws (the games' dimension limit is 100).
pub(super) const MAX_STRATEGIES: usize = 200;

/// The players plot.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayersSpec {
    /// x where the run stands (empty before the first step).
    pub x: Floats,
    /// y where the run stands.
    pub y: Floats,
    /// The released x (empty until the release).
    #[serde(default)]
    pub release_x: Floats,
    /// The released y.
    #[serde(default)]
    pub release_y: Floats,
    /// The mean game's equilibrium x, when known (empty otherwise).
    #[serde(default)]
    pub equilibrium_x: Floats,
    /// The mean game's equilibrium y.
    #[serde(default)]
    pub equilibrium_y: Floats,
}

/// One player's bars, checked: every non-empty array of the player has the same length.
struct Player<'a> {
    name: &'static str,
    now: &'a [f64],
    release: &'a [f64],
    equilibrium: &'a [f64],
}

impl PlayersSpec {
    fn players(&self) -> [Player<'_>; 2] {
        [
            Player {
                name: "x (minimising player)",
                now: &self.x,
                release: &self.release_x,
                equilibrium: &self.equilibrium_x,
            },
            Player {
                name: "y (maximising player)",
                now: &self.y,
                release: &self.release_y,
                equilibrium: &self.equilibrium_y,
            },
        ]
    }

    pub(super) fn check(&self) -> Result<(), Error> {
        let arrays = [
            ("players.x", &self.x),
            ("players.releaseX", &self.release_x),
            ("players.equilibriumX", &self.equilibrium_x),
            ("players.y", &self.y),
            ("players.releaseY", &self.release_y),
            ("players.equilibriumY", &self.equilibrium_y),
        ];
        for (field, values) in arrays {
            if values.len() > MAX_STRATEGIES {
                return Err(Error::invalid(
                    field,
                    format!("at most {MAX_STRATEGIES} strategies"),
                    values.len(),
                ));
            }
            if let Some(v) = values.iter().find(|v| !v.is_finite()) {
                return Err(Error::invalid(field, "finite coordinates", v));
            }
        }
        // Within a player, every array that is drawn has the player's length.
        for player in arrays.chunks(3) {
            let len = player.iter().map(|(_, v)| v.len()).max().unwrap_or(0);
            if let Some((field, values)) =
                player.iter().find(|(_, v)| !v.is_empty() && v.len() != len)
            {
                return Err(Error::invalid(
                    *field,
                    format!("{len} coordinates, like the player's other arrays"),
                    values.len(),
                ));
            }
        }
        Ok(())
    }
}

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
        .flat_map(|v| v.iter().copied())
        .collect::<Vec<_>>();
    // One value axis for both players, always through 0 (a simplex's [0, 1] when it fits).
    let (lo, hi) =
        finite_range(all.iter().copied().chain([0.0, 1.0]), |_| true).unwrap_or((0.0, 1.0));
    let pad = 0.05 * (hi - lo);
    let (lo, hi) = (if lo < 0.0 { lo - pad } else { 0.0 }, hi + pad);
    let halves = root.split_evenly((1, 2));
    for (area, player) in halves.iter().zip(spec.players()) {
        draw_player(area, &player, lo, hi)?;
    }
    Ok(())
}

fn draw_player<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    player: &Player<'_>,
    lo: f64,
    hi: f64,
) -> Result<(), PlotError> {
    let k = [player.now, player.release, player.equilibrium]
        .iter()
        .map(|v| v.len())
        .max()
        .unwrap_or(0)
        .max(1);
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .x_label_area_size(34)
        .y_label_area_size(44)
        .caption(player.name, (FONT, 14))
        .build_cartesian_2d(0.0..k as f64, lo..hi)?;
    draw_axes(&mut chart, "strategy", "weight", &|v| tick(*v))?;
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
    Ok(())
}
