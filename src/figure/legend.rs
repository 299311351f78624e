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
/// repeats the name of its path; none for an unnamed algorithm (no legend entry).
pub fn release_label(algorithm: &str) -> String {
    if algorithm.is_empty() {
        String::new()
    } else {
        format!("{algorithm} release (private)")
    }
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

/// How much one kept-clear box (a key mark such as w* or a release, a note) weighs against
/// drawn points: more than any plot draws, so a legend covers one only when every corner does.
pub const KEEP_CLEAR: usize = 1_000_000;

/// Where a legend box of `size` covers the fewest of `points` (pixel positions inside a plot
/// area of `area` = (width, height), origin top left) and of the `keep_clear` boxes
/// (`[left, top, right, bottom]`, each weighing [`KEEP_CLEAR`] points), the preferred corner on
/// a tie. A legend drawn over the data hides what the plot is for; this puts it where the data
/// are not, and off the marks a reader looks for.
pub fn least_covered_corner(
    points: &[(f64, f64)],
    keep_clear: &[[f64; 4]],
    area: (f64, f64),
    size: (f64, f64),
) -> Corner {
    let mut best = CORNERS[0];
    let mut least = usize::MAX;
    for corner in CORNERS {
        let n = corner_cost(points, keep_clear, area, size, corner);
        if n < least {
            best = corner;
            least = n;
        }
    }
    best
}

/// What a legend box of `size` in `corner` covers: the `points` under it, and [`KEEP_CLEAR`]
/// for each of the `keep_clear` boxes it overlaps.
pub fn corner_cost(
    points: &[(f64, f64)],
    keep_clear: &[[f64; 4]],
    area: (f64, f64),
    size: (f64, f64),
    corner: Corner,
) -> usize {
    let b = legend_box(corner, area, size);
    let [left, top, right, bottom] = b;
    let points = points
        .iter()
        .filter(|(x, y)| *x >= left && *x <= right && *y >= top && *y <= bottom)
        .count();
    let marks = keep_clear.iter().filter(|k| overlap(k, &b)).count();
    points + KEEP_CLEAR * marks
}

/// The box `[left, top, right, bottom]` a legend of `size` takes in `corner` of a plot area of
/// `area`: plotters leaves 5 px between the box and the area's edges.
pub fn legend_box(corner: Corner, area: (f64, f64), size: (f64, f64)) -> [f64; 4] {
    let (w, h) = area;
    let (bw, bh) = size;
    let (left, top) = match corner {
        Corner::UpperRight => (w - bw - 5.0, 5.0),
        Corner::UpperLeft => (5.0, 5.0),
        Corner::LowerLeft => (5.0, h - bh - 5.0),
        Corner::LowerRight => (w - bw - 5.0, h - bh - 5.0),
    };
    [left, top, left + bw, top + bh]
}

/// Whether two boxes `[left, top, right, bottom]` share any area.
pub fn overlap(a: &[f64; 4], b: &[f64; 4]) -> bool {
    a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
}

/// The points of a polyline (pixels) with points added along each segment, at most `step`
/// apart: what a legend's corner is weighed against, so a long straight segment (a release's
/// level, a bound) counts for every pixel it crosses, not for its two ends.
pub fn densify(points: &[(f64, f64)], step: f64) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(points.len());
    for (k, &p) in points.iter().enumerate() {
        if let Some(&q) = k.checked_sub(1).and_then(|j| points.get(j)) {
            let n = ((p.0 - q.0).hypot(p.1 - q.1) / step).ceil().min(10_000.0) as usize;
            out.extend((1..n).map(|i| {
                let t = i as f64 / n as f64;
                (q.0 + t * (p.0 - q.0), q.1 + t * (p.1 - q.1))
            }));
        }
        out.push(p);
    }
    out
}

/// `text` broken at spaces into rows each at most `room` wide by `width` (a word wider than
/// `room` alone keeps a row of its own): a legend entry fitted to its plot, never cut at the
/// canvas's edge.
pub fn fit_rows<E>(
    text: &str,
    room: f64,
    width: impl Fn(&str) -> Result<f64, E>,
) -> Result<Vec<String>, E> {
    let mut rows: Vec<String> = Vec::new();
    let mut row = String::new();
    for word in text.split_whitespace() {
        let joined = if row.is_empty() {
            word.to_string()
        } else {
            format!("{row} {word}")
        };
        if row.is_empty() || width(&joined)? <= room {
            row = joined;
        } else {
            rows.push(std::mem::replace(&mut row, word.to_string()));
        }
    }
    if !row.is_empty() {
        rows.push(row);
    }
    Ok(rows)
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
            least_covered_corner(&points, &[], area, size),
            Corner::LowerRight
        );
        // A curve falling from the upper left to the lower right: the upper right is free.
        let falling: Vec<(f64, f64)> = (0..400).map(|x| (x as f64, x as f64 * 0.75)).collect();
        assert_eq!(
            least_covered_corner(&falling, &[], area, size),
            Corner::UpperRight
        );
        // No data: the preferred corner.
        assert_eq!(
            least_covered_corner(&[], &[], area, size),
            Corner::UpperRight
        );
    }

    #[test]
    fn a_legend_leaves_a_key_mark_uncovered_even_over_more_data() {
        let area = (400.0, 300.0);
        let size = (150.0, 60.0);
        // w* in the upper right, and a dense curve along the bottom: the upper left is free of
        // both.
        let bottom: Vec<(f64, f64)> = (0..400).map(|x| (x as f64, 290.0)).collect();
        let w_star = [[350.0, 20.0, 362.0, 32.0]];
        assert_eq!(
            least_covered_corner(&bottom, &w_star, area, size),
            Corner::UpperLeft
        );
        // A shorter curve in the upper left too: the lower corners cover more of the bottom
        // curve, the upper right covers w*; the upper left covers least.
        let mut both = bottom.clone();
        both.extend((0..100).map(|x| (x as f64, 30.0)));
        assert_eq!(
            least_covered_corner(&both, &w_star, area, size),
            Corner::UpperLeft
        );
        // A note along the bottom left keeps the legend out of that corner.
        let note = [[10.0, 270.0, 200.0, 290.0]];
        let upper: Vec<(f64, f64)> = (0..400).map(|x| (x as f64, 10.0)).collect();
        assert_eq!(
            least_covered_corner(&upper, &note, area, size),
            Corner::LowerRight
        );
    }

    #[test]
    fn a_long_segment_counts_along_its_length() {
        let line = densify(&[(0.0, 0.0), (30.0, 0.0), (30.0, 4.0)], 3.0);
        assert_eq!(line.len(), 13, "{line:?}");
        assert!(
            line.windows(2)
                .all(|w| (w[1].0 - w[0].0).hypot(w[1].1 - w[0].1) <= 3.0)
        );
        assert_eq!((line[0], line[12]), ((0.0, 0.0), (30.0, 4.0)));
    }

    #[test]
    fn legend_rows_fit_their_room() {
        // Each character 6 px wide.
        let width = |s: &str| Ok::<f64, ()>(6.0 * s.chars().count() as f64);
        let label = "output perturbation: solver path (not released)";
        let rows = fit_rows(label, 180.0, width).unwrap();
        assert_eq!(rows, ["output perturbation: solver", "path (not released)"]);
        assert!(rows.iter().all(|r| width(r).unwrap() <= 180.0));
        // Room enough: one row, the label as it is.
        assert_eq!(fit_rows(label, 1000.0, width).unwrap(), [label]);
        // A word wider than the room keeps a row of its own.
        assert_eq!(
            fit_rows("a verylongword b", 30.0, width).unwrap(),
            ["a", "verylongword", "b"]
        );
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
