//! Where a log axis stops below, and how a value under it is drawn.
//!
//! A private iterate's excess risk is noisy: at R = 1 it dips, now and then, orders of magnitude
//! below its level (an iterate that happens to land near the optimum; an excess floored at 0 by
//! the certified reference). On a log axis one such dip stretches the axis over decades, and a
//! value of 0 cannot be drawn at all: the curve broke into pieces with gaps. A running minimum
//! would hide the noise the plot exists to show. Instead the axis stops a decade under the
//! curve's low values ([`log_floor`]) and a value under it is drawn *at* the floor with a mark
//! saying "below" ([`clamp_to_floor`]): the line keeps every step, no gap, and no value is
//! passed off as another.

/// The share of a curve's values allowed under the floor before it moves down: the floor sits
/// a decade under this quantile of the positive values, so a few dips per hundred steps are
/// marked at the floor rather than stretching the axis.
pub const FLOOR_QUANTILE: f64 = 0.05;

/// How far under that quantile the floor sits.
pub const FLOOR_DECADES: f64 = 10.0;

/// The lowest value a log axis shows of `values`: [`FLOOR_DECADES`] times under their
/// [`FLOOR_QUANTILE`] quantile of the positive finite ones, and never under their smallest
/// (`None` when no value is positive).
pub fn log_floor(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let mut positive: Vec<f64> = values
        .into_iter()
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    if positive.is_empty() {
        return None;
    }
    positive.sort_by(f64::total_cmp);
    let q = positive[((positive.len() - 1) as f64 * FLOOR_QUANTILE).floor() as usize];
    Some((q / FLOOR_DECADES).max(positive[0]))
}

/// `values` with every finite value under `floor` (0 and negatives included) drawn at `floor`,
/// and the indices of those values (each gets a "below the axis" mark). NaN stays NaN: it is
/// "no value", not a small one.
pub fn clamp_to_floor(values: &[f64], floor: f64) -> (Vec<f64>, Vec<usize>) {
    let mut below = Vec::new();
    let drawn = values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            if v.is_finite() && v < floor {
                below.push(i);
                floor
            } else {
                v
            }
        })
        .collect();
    (drawn, below)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_dip_does_not_stretch_the_axis() {
        // 199 values around 10⁻² and one dip to 10⁻⁹: the floor stays near 10⁻³.
        let mut v: Vec<f64> = (0..199)
            .map(|i| 1e-2 * (1.0 + (i % 7) as f64 / 10.0))
            .collect();
        v.push(1e-9);
        let floor = log_floor(v.iter().copied()).unwrap();
        assert!((1e-3..=1.01e-3).contains(&floor), "{floor}");
        // Without the dip nothing lies under the curve's smallest value, so the axis stops there.
        assert_eq!(log_floor(v[..199].iter().copied()), Some(1e-2));
    }

    #[test]
    fn the_floor_is_never_under_the_smallest_value() {
        assert_eq!(log_floor([0.5, 2.0, 3.0]), Some(0.5));
        assert_eq!(log_floor([0.0, -1.0, f64::NAN]), None);
    }

    #[test]
    fn values_under_the_floor_are_drawn_at_it_and_named_gaps_stay_gaps() {
        let (drawn, below) = clamp_to_floor(&[1.0, 0.0, 1e-9, f64::NAN, -2.0, 0.5], 0.1);
        assert_eq!(below, [1, 2, 4]);
        assert_eq!(drawn[..3], [1.0, 0.1, 0.1]);
        assert!(drawn[3].is_nan());
        assert_eq!(drawn[4..], [0.1, 0.5]);
    }
}
