//! The min–max band over repeats, as polygons that cover only where the band has values.
//!
//! A band's edges may have gaps: NaN is "no value" at a step (a one-release method scores only
//! its start and its release; a repeat may stop earlier than another), and on a log axis a
//! non-positive edge cannot be drawn. One polygon over every drawable point would bridge each
//! gap with a long straight edge, a triangle from the first point to the far side;
//! [`band_pieces`] cuts the band at every gap instead.

/// One piece of a band: its edges over a run of consecutive drawable points, left to right.
#[derive(Debug, Clone, PartialEq)]
pub struct BandPiece {
    /// (x, hi) at each point of the run.
    pub upper: Vec<(f64, f64)>,
    /// (x, lo) at the same points.
    pub lower: Vec<(f64, f64)>,
}

impl BandPiece {
    /// The closed outline to fill: the upper edge left to right, then the lower edge back.
    pub fn outline(self) -> Vec<(f64, f64)> {
        let mut outline = self.upper;
        outline.extend(self.lower.into_iter().rev());
        outline
    }
}

/// The pieces of the band between `lo` and `hi` at abscissae `x` (arrays of one length; a
/// longer one is read up to the shortest): one per maximal run of consecutive indices where x,
/// lo and hi are all finite, in order. A run of one point has no area and gives no piece. The
/// caller maps what its axes cannot draw to NaN first (non-positive values on a log axis).
pub fn band_pieces(x: &[f64], lo: &[f64], hi: &[f64]) -> Vec<BandPiece> {
    let drawable = |i: usize| x[i].is_finite() && lo[i].is_finite() && hi[i].is_finite();
    let len = x.len().min(lo.len()).min(hi.len());
    let mut pieces = Vec::new();
    let mut i = 0;
    while i < len {
        if !drawable(i) {
            i += 1;
            continue;
        }
        let start = i;
        while i < len && drawable(i) {
            i += 1;
        }
        if i - start >= 2 {
            pieces.push(BandPiece {
                upper: (start..i).map(|k| (x[k], hi[k])).collect(),
                lower: (start..i).map(|k| (x[k], lo[k])).collect(),
            });
        }
    }
    pieces
}

/// Lowest a band's lower edge is drawn on a log axis, as a fraction of the smallest positive
/// mean: one repeat that lands near the optimum (an excess of 10⁻⁹) would otherwise stretch the
/// axis over many decades and squash every curve into its top.
pub const BAND_FLOOR_FRACTION: f64 = 0.1;

/// Where a band's lower edge is cut on a log axis: the smallest positive finite mean ×
/// [`BAND_FLOOR_FRACTION`] (`None` when no mean is positive: then nothing is drawn anyway).
pub fn band_floor<'a>(means: impl IntoIterator<Item = &'a f64>) -> Option<f64> {
    means
        .into_iter()
        .copied()
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold(None, |acc: Option<f64>, v| {
            Some(acc.map_or(v, |m| m.min(v)))
        })
        .map(|m| m * BAND_FLOOR_FRACTION)
}

/// `lo` with every finite value below `floor` raised to it, and whether any was (the plot then
/// says that the band is cut). NaN stays NaN: a gap stays a gap.
pub fn clamp_lower_edge(lo: &[f64], floor: f64) -> (Vec<f64>, bool) {
    let mut cut = false;
    let edge = lo
        .iter()
        .map(|&v| {
            if v.is_nan() || v >= floor {
                v
            } else {
                cut = true;
                floor
            }
        })
        .collect();
    (edge, cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAN: f64 = f64::NAN;

    /// The largest x-extent of one edge of any piece's outline.
    fn widest_edge(pieces: &[BandPiece]) -> f64 {
        pieces
            .iter()
            .flat_map(|p| {
                let outline = p.clone().outline();
                let closing = [outline[outline.len() - 1], outline[0]];
                outline
                    .windows(2)
                    .map(|w| (w[1].0 - w[0].0).abs())
                    .chain([(closing[1].0 - closing[0].0).abs()])
                    .collect::<Vec<_>>()
            })
            .fold(0.0, f64::max)
    }

    #[test]
    fn a_band_with_a_gap_is_two_pieces_and_never_bridges_it() {
        // A one-release method's band: the start, nothing while the solver runs, then the last
        // steps. One polygon over the drawable points drew a triangle from x = 1 to x = 90.
        let x: Vec<f64> = (1..=100).map(f64::from).collect();
        let lo: Vec<f64> = x
            .iter()
            .map(|&v| {
                if (2.0..90.0).contains(&v) {
                    NAN
                } else {
                    1.0 / v
                }
            })
            .collect();
        let hi: Vec<f64> = lo.iter().map(|v| 2.0 * v).collect();
        let pieces = band_pieces(&x, &lo, &hi);
        // The lone first point has no area: only the run from 90 to 100 is a piece.
        assert_eq!(pieces.len(), 1);
        assert_eq!(pieces[0].upper.first(), Some(&(90.0, 2.0 / 90.0)));
        assert_eq!(pieces[0].upper.len(), 11);
        assert!(widest_edge(&pieces) <= 1.0, "an edge bridges a gap");
    }

    #[test]
    fn every_run_of_values_is_its_own_closed_piece() {
        let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0];
        let lo = [1.0, 1.0, NAN, 1.0, 1.0, 1.0, 1.0];
        let hi = [2.0, 2.0, 2.0, 2.0, NAN, 2.0, 2.0];
        let pieces = band_pieces(&x, &lo, &hi);
        // Runs: x = 1–2, x = 4 alone (no area, no piece), x = 6–7.
        assert_eq!(pieces.len(), 2);
        assert_eq!(pieces[0].upper, [(1.0, 2.0), (2.0, 2.0)]);
        assert_eq!(
            pieces[1].clone().outline(),
            [(6.0, 2.0), (7.0, 2.0), (7.0, 1.0), (6.0, 1.0)]
        );
    }

    #[test]
    fn the_outline_goes_out_along_the_top_and_back_along_the_bottom() {
        let pieces = band_pieces(&[1.0, 2.0, 3.0], &[0.5, 0.4, 0.3], &[1.5, 1.4, 1.3]);
        assert_eq!(
            pieces[0].clone().outline(),
            [
                (1.0, 1.5),
                (2.0, 1.4),
                (3.0, 1.3),
                (3.0, 0.3),
                (2.0, 0.4),
                (1.0, 0.5)
            ]
        );
    }

    #[test]
    fn arrays_of_different_lengths_are_read_up_to_the_shortest() {
        // A repeat that stopped earlier leaves shorter edges: the band stops there.
        let pieces = band_pieces(&[1.0, 2.0, 3.0, 4.0], &[1.0, 1.0], &[2.0, 2.0, 2.0]);
        assert_eq!(pieces.len(), 1);
        assert_eq!(pieces[0].upper, [(1.0, 2.0), (2.0, 2.0)]);
        assert!(band_pieces(&[], &[], &[]).is_empty());
    }

    #[test]
    fn the_lower_edge_is_cut_at_a_tenth_of_the_smallest_positive_mean() {
        // A repeat that reached the optimum dips to 1e-9; the means stay near 1e-2.
        let means = [0.5, 0.02, f64::NAN, 0.0, 0.01];
        let floor = band_floor(&means).unwrap();
        assert!((floor - 1e-3).abs() < 1e-15, "{floor}");
        let (edge, cut) = clamp_lower_edge(&[0.4, 1e-9, NAN, 0.0, 0.005], floor);
        assert!(cut);
        assert_eq!(edge[0], 0.4);
        assert_eq!(edge[1], floor);
        assert!(edge[2].is_nan(), "a gap stays a gap");
        // A lower edge of 0 (an iterate at the optimum) is cut too, not left to reach the axis.
        assert_eq!(edge[3], floor);
        assert_eq!(edge[4], 0.005);
        // Nothing below the floor: nothing cut, nothing said.
        assert!(!clamp_lower_edge(&[0.4, 0.01], floor).1);
        assert_eq!(band_floor(&[0.0, -1.0, NAN]), None);
    }
}
