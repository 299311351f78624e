//! Which series get a legend entry: each text once, the first time it appears.
//!
//! Two layers of one algorithm (its path and its release) named alike would read as the same
//! thing twice in a legend; a legend names each thing once.

/// For each label in order, whether it gets a legend entry: not when empty, and not when an
/// earlier label reads the same.
pub fn first_of_each(labels: &[&str]) -> Vec<bool> {
    labels
        .iter()
        .enumerate()
        .map(|(i, label)| !label.is_empty() && !labels[..i].contains(label))
        .collect()
}

/// The legend text of an algorithm's released points: its name and what they are, so it never
/// repeats the name of its path.
pub fn release_label(algorithm: &str) -> String {
    format!("{algorithm} release (private)")
}

/// A corner of a plot area, where a legend box may sit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Corner {
    UpperRight,
    UpperLeft,
    LowerLeft,
    LowerRight,
}

/// The corners in the order they are preferred on a tie (a falling curve leaves the upper right
/// and lower left free most often).
pub const CORNERS: [Corner; 4] = [
    Corner::UpperRight,
    Corner::LowerLeft,
    Corner::UpperLeft,
    Corner::LowerRight,
];

/// The size in pixels of a legend box of `labels` in a font of `font_px` pixels: plotters draws
/// one row per entry (a 20 px sample, a gap, the text) with a margin around. An estimate (an
/// average glyph is about 0.55 of the font size wide); it only chooses a corner.
pub fn legend_size(labels: &[&str], font_px: f64) -> (f64, f64) {
    let widest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let width = 20.0 + 10.0 + widest as f64 * 0.55 * font_px + 20.0;
    let height = labels.len() as f64 * (font_px + 6.0) + 14.0;
    (width, height)
}

/// Where a legend box of `size` covers the fewest of `points` (pixel positions inside a plot
/// area of `area` = (width, height), origin top left), the preferred corner on a tie. A legend
/// drawn over the data hides what the plot is for; this puts it where the data are not.
pub fn least_covered_corner(points: &[(f64, f64)], area: (f64, f64), size: (f64, f64)) -> Corner {
    let (w, h) = area;
    // plotters leaves a 10 px margin between the box and the area's edges.
    let (bw, bh) = (size.0 + 10.0, size.1 + 10.0);
    let covered = |corner: Corner| {
        let (left, top) = match corner {
            Corner::UpperRight => (w - bw, 0.0),
            Corner::UpperLeft => (0.0, 0.0),
            Corner::LowerLeft => (0.0, h - bh),
            Corner::LowerRight => (w - bw, h - bh),
        };
        points
            .iter()
            .filter(|(x, y)| *x >= left && *x <= left + bw && *y >= top && *y <= top + bh)
            .count()
    };
    let mut best = CORNERS[0];
    let mut least = covered(best);
    for corner in &CORNERS[1..] {
        let n = covered(*corner);
        if n < least {
            best = *corner;
            least = n;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_legend_goes_to_the_corner_the_data_leave_free() {
        let area = (400.0, 300.0);
        let size = legend_size(&["DP-GD", "DP-GD bound"], 12.0);
        assert!(size.0 > 60.0 && size.0 < 160.0 && size.1 > 30.0, "{size:?}");
        // A curve flat along the top (an excess plot's flat bound at the right, say) and
        // down the left: the lower right is the one free corner.
        let mut points: Vec<(f64, f64)> = (0..400).map(|x| (x as f64, 5.0)).collect();
        points.extend((0..300).map(|y| (5.0, y as f64)));
        assert_eq!(
            least_covered_corner(&points, area, size),
            Corner::LowerRight
        );
        // A curve falling from the upper left to the lower right: the upper right is free.
        let falling: Vec<(f64, f64)> = (0..400).map(|x| (x as f64, x as f64 * 0.75)).collect();
        assert_eq!(
            least_covered_corner(&falling, area, size),
            Corner::UpperRight
        );
        // No data: the preferred corner.
        assert_eq!(least_covered_corner(&[], area, size), Corner::UpperRight);
    }

    #[test]
    fn each_text_is_named_once() {
        assert_eq!(
            first_of_each(&["DP-GD", "DP-SGD", "DP-GD", "", "w*"]),
            [true, true, false, false, true]
        );
    }

    #[test]
    fn a_path_and_its_release_read_apart() {
        let release = release_label("DP-GD");
        assert_eq!(first_of_each(&["DP-GD", &release]), [true, true]);
        assert_ne!(release, "DP-GD");
    }
}
