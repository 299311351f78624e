//! Histogram of the released noise norms against the density the calibration promises: a
//! miscalibrated sampler shows as a histogram off the curve.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{
    FONT, GRID_COLOR, PALETTE, PlotError, draw_axes, faded, finite_range, positive_finite, tick,
    titled,
};
use crate::algo::NoiseShape;
use crate::plot_spec::noise::NoiseSpec;
use crate::plot_spec::pinned::hold;
use crate::stats::{gamma_p, ln_gamma};

/// The law of ‖z‖ the calibration promises, for drawing it (a trait of this module's, since
/// [`NoiseShape`] is the algorithms crate's).
trait NormLaw {
    /// The density of ‖z‖ at r.
    fn density(&self, r: f64) -> f64;
    /// P(‖z‖ ≤ r).
    fn cdf(&self, r: f64) -> f64;
    /// The p-quantile of ‖z‖; `None` without a law.
    fn quantile(&self, p: f64) -> Option<f64>;
    /// The law in words, for the legend.
    fn describe(&self) -> String;
}

impl NormLaw for NoiseShape {
    fn density(&self, r: f64) -> f64 {
        match *self {
            NoiseShape::Gaussian { sigma, d } => crate::noise::norm_density(r, sigma, d),
            NoiseShape::L2Laplace { scale, d } => gamma_density(r, d as f64, scale),
            NoiseShape::None => 0.0,
        }
    }

    /// P(‖z‖ ≤ r).
    fn cdf(&self, r: f64) -> f64 {
        match *self {
            // ‖z‖²/σ² ~ χ²_d, i.e. Gamma(d/2, 2).
            NoiseShape::Gaussian { sigma, d } => {
                gamma_p(d as f64 / 2.0, r * r / (2.0 * sigma * sigma))
            }
            NoiseShape::L2Laplace { scale, d } => gamma_p(d as f64, r / scale),
            NoiseShape::None => 1.0,
        }
    }

    /// The p-quantile of ‖z‖ by bisection on the CDF (only sets the axis, so 1e-6 relative is
    /// plenty); `None` without a law.
    fn quantile(&self, p: f64) -> Option<f64> {
        if matches!(self, NoiseShape::None) {
            return None;
        }
        let mut hi = 1.0;
        while self.cdf(hi) < p && hi < 1e300 {
            hi *= 2.0;
        }
        let mut lo = 0.0;
        while hi - lo > 1e-6 * hi {
            let mid = 0.5 * (lo + hi);
            if self.cdf(mid) < p {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(hi)
    }

    fn describe(&self) -> String {
        match *self {
            NoiseShape::Gaussian { d, .. } => format!("σ·χ_{d} density"),
            NoiseShape::L2Laplace { d, .. } => format!("Gamma({d}, b) density (ℓ2-Laplace)"),
            NoiseShape::None => "no reference law".into(),
        }
    }
}

/// Gamma(shape k, scale b) density at r, in log space so large k neither overflows r^(k−1) nor
/// underflows the normaliser: the radius of an ℓ2-Laplace draw in dimension k (Lowy & Razaviyayn 2021, footnote 2;
/// the sampler is `crate::noise::L2Laplace`).
fn gamma_density(r: f64, k: f64, b: f64) -> f64 {
    if r < 0.0 {
        return 0.0;
    }
    if r == 0.0 {
        return if k == 1.0 { 1.0 / b } else { 0.0 };
    }
    let log_p = (k - 1.0) * libm::log(r) - r / b - ln_gamma(k) - k * libm::log(b);
    libm::exp(log_p)
}

/// The axis extends to the law's 99.9% quantile, so its whole bulk shows.
const AXIS_QUANTILE: f64 = 0.999;

/// The x axis drawn: up to the largest draw and the law's [`AXIS_QUANTILE`], of the current run
/// and of every pinned one (y follows the histograms' heights; see [`draw`]).
pub(super) fn x_axis(spec: &NoiseSpec) -> (f64, f64) {
    let own = x_max_of(&positive_finite(&spec.norms), Some(&spec.law));
    let pinned = spec
        .pinned
        .iter()
        .map(|p| (0.0, x_max_of(&positive_finite(&p.norms), None)));
    let (_, x_max) = pinned.fold((0.0, own), |held, p| hold(held, Some(p)));
    (0.0, if x_max > 0.0 { x_max } else { 1.0 })
}

/// The largest draw, or the law's [`AXIS_QUANTILE`] if larger (0 for nothing).
fn x_max_of(norms: &[f64], law: Option<&NoiseShape>) -> f64 {
    let data_max = finite_range(norms.iter().copied(), |_| true).map(|r| r.1);
    [data_max, law.and_then(|l| l.quantile(AXIS_QUANTILE))]
        .into_iter()
        .flatten()
        .fold(0.0, f64::max)
}

/// Counts of `norms` in `bins` bins of [0, x_max], and the scale that makes them a density.
fn histogram(norms: &[f64], x_max: f64, bins: usize) -> (Vec<usize>, f64) {
    let width = x_max / bins as f64;
    let mut counts = vec![0usize; bins];
    for v in norms {
        counts[((v / width) as usize).min(bins - 1)] += 1;
    }
    (counts, 1.0 / (norms.len().max(1) as f64 * width))
}

pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &NoiseSpec,
) -> Result<(), PlotError> {
    // The algorithms report a norm of 0 for a step that drew no noise (a solver step of
    // output perturbation); a real draw is 0 with probability 0.
    let norms = positive_finite(&spec.norms);
    let x_max = x_axis(spec).1;
    // About √n bins, at least 10 and at most 60: enough to show a shape, few enough to fill.
    let bins = ((norms.len() as f64).sqrt().round() as usize).clamp(10, 60);
    let width = x_max / bins as f64;
    let (counts, scale) = histogram(&norms, x_max, bins);
    // Pinned runs' histograms on the same bins, so the two widths compare at a glance.
    let pinned: Vec<(&str, Vec<usize>, f64)> = spec
        .pinned
        .iter()
        .map(|p| {
            let (counts, scale) = histogram(&positive_finite(&p.norms), x_max, bins);
            (p.label.as_str(), counts, scale)
        })
        .collect();
    let density: Vec<(f64, f64)> = if matches!(spec.law, NoiseShape::None) {
        Vec::new()
    } else {
        (0..=240)
            .map(|i| {
                let r = x_max * i as f64 / 240.0;
                (r, spec.law.density(r))
            })
            .filter(|p| p.1.is_finite())
            .collect()
    };
    let y_max = counts
        .iter()
        .map(|&c| c as f64 * scale)
        .chain(
            pinned
                .iter()
                .flat_map(|(_, c, s)| c.iter().map(move |&c| c as f64 * s)),
        )
        .chain(density.iter().map(|p| p.1))
        .fold(0.0, f64::max);
    let y_max = if y_max > 0.0 {
        y_max * 1.1
    } else {
        1.0 / x_max
    };
    let title = if spec.title.is_empty() {
        format!(
            "noise norms ‖z‖ ({} draws) vs {}",
            norms.len(),
            spec.law.describe()
        )
    } else {
        spec.title.clone()
    };
    // The draws are a diagnostic of the raw data and the noise: with the non-private path they
    // name the dataset. The plot says so whatever its caption.
    let title = format!("{title} · NON-PRIVATE");
    let area = titled(&root.margin(12, 12, 12, 12), &title, 15)?;
    let mut chart = ChartBuilder::on(&area)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d(0.0..x_max, 0.0..y_max)?;
    draw_axes(&mut chart, "‖z‖", "density", &|v| tick(*v))?;
    chart.draw_series(
        counts
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(i, &c)| {
                let x0 = i as f64 * width;
                Rectangle::new(
                    [(x0, 0.0), (x0 + width, c as f64 * scale)],
                    PALETTE[0].mix(0.45).filled(),
                )
            }),
    )?;
    if !density.is_empty() {
        chart.draw_series(LineSeries::new(density, BLACK.stroke_width(2)))?;
    }
    let mut legend = super::legend::Legend::new(&chart);
    for (k, (label, counts, scale)) in pinned.iter().enumerate() {
        let c = faded(1 + k);
        chart.draw_series(
            counts
                .iter()
                .enumerate()
                .filter(|(_, n)| **n > 0)
                .map(|(i, &n)| {
                    let x0 = i as f64 * width;
                    Rectangle::new(
                        [(x0, 0.0), (x0 + width, n as f64 * scale)],
                        c.stroke_width(2),
                    )
                }),
        )?;
        legend.entry(label, move |(x, y)| {
            Rectangle::new([(x, y - 5), (x + 20, y + 5)], c.stroke_width(2))
        });
    }
    if let Some(note) = spec.empty_note().filter(|_| spec.pinned.is_empty()) {
        let (xr, yr) = chart.plotting_area().get_pixel_range();
        let (x0, y0) = root.get_base_pixel();
        let chars = (((xr.end - xr.start) as f64 / 7.5) as usize).max(20);
        for (k, line) in super::wrap(&note, chars).into_iter().enumerate() {
            root.draw_text(
                &line,
                &(FONT, 13).into_font().color(&RGBColor(60, 60, 60)),
                (xr.start - x0 + 10, yr.start - y0 + 20 + 18 * k as i32),
            )?;
        }
    }
    // The pins' legend, in the upper right (the histogram's tail is low there).
    legend.draw(&mut chart, &[], GRID_COLOR)?;
    Ok(())
}
