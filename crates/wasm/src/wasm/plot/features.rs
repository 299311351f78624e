//! The data plot: a histogram of feature norms ‖xᵢ‖ before clipping, on log-spaced bins, with
//! the declared clip threshold. The clipped fraction is measured on the private data, so the
//! caption says it is a non-private statistic.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{
    PALETTE, PlotError, at_least_a_decade, draw_axes, finite_range, log_axis, positive_finite,
    tick, titled,
};
use crate::plot_spec::features::FeaturesSpec;

/// Bars beyond the threshold: the records that clipping shortens.
const CLIPPED_COLOR: RGBColor = PALETTE[1];

pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &FeaturesSpec,
) -> Result<(), PlotError> {
    // A zero norm has no place on a log axis; it is never clipped either.
    let norms = positive_finite(&spec.norms);
    let t = spec.threshold;
    let (lo, hi) = finite_range(norms.iter().copied().chain([t]), |_| true).unwrap_or((t, t));
    let (lo, hi) = at_least_a_decade(lo / 1.2, hi * 1.2);
    // About √n log-spaced bins, between 10 and 50.
    let bins = ((norms.len() as f64).sqrt().round() as usize).clamp(10, 50);
    let (ln_lo, ln_hi) = (lo.ln(), hi.ln());
    let ln_width = (ln_hi - ln_lo) / bins as f64;
    let edge = |k: usize| (ln_lo + k as f64 * ln_width).exp();
    let mut counts = vec![0usize; bins];
    for v in &norms {
        let k = ((v.ln() - ln_lo) / ln_width) as usize;
        counts[k.min(bins - 1)] += 1;
    }
    let y_max = counts.iter().copied().max().unwrap_or(0).max(1) as f64 * 1.1;
    let caption = format!(
        "feature norms ‖xᵢ‖ ({} records); clipped at {}: {:.1}% (non-private statistic)",
        norms.len(),
        tick(t),
        100.0 * spec.clipped_fraction
    );
    let area = titled(&root.margin(12, 12, 12, 12), &caption, 14)?;
    let mut chart = ChartBuilder::on(&area)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d(log_axis((lo, hi)), 0.0..y_max)?;
    draw_axes(
        &mut chart,
        "‖xᵢ‖ before clipping (log scale)",
        "records",
        &|v| tick(*v),
    )?;
    chart.draw_series(
        counts
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(k, &c)| {
                let (x0, x1) = (edge(k), edge(k + 1));
                // A bar straddling the threshold counts as clipped only if its middle is beyond it.
                let shade = if (x0 * x1).sqrt() > t {
                    CLIPPED_COLOR
                } else {
                    PALETTE[0]
                };
                Rectangle::new([(x0, 0.0), (x1, c as f64)], shade.mix(0.6).filled())
            }),
    )?;
    chart.draw_series(LineSeries::new(
        [(t, 0.0), (t, y_max)],
        BLACK.stroke_width(2),
    ))?;
    Ok(())
}
