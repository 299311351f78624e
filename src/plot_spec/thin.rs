//! Thinning a per-step series before it crosses to the main thread (docs/ARCHITECTURE.md, Performance: a few thousand
//! points per series): [`Thinned`] keeps evenly spaced rows of a stream of unknown length in
//! bounded memory, and always the last one.

/// Rows of `width` numbers, one offered per step, of which at most `max` (plus the last) are
/// kept, evenly spaced: every `stride`-th, the stride doubling whenever the kept rows pass `max`.
#[derive(Debug, Clone, PartialEq)]
pub struct Thinned {
    width: usize,
    max: usize,
    stride: usize,
    seen: usize,
    rows: Vec<f64>,
    /// The newest row offered when it was not kept (so [`Thinned::finish`] can end on it).
    last: Vec<f64>,
}

impl Thinned {
    /// An empty series of rows of `width` numbers, keeping at most `max` (≥ 2) of them.
    pub fn new(width: usize, max: usize) -> Self {
        Self {
            width,
            max: max.max(2),
            stride: 1,
            seen: 0,
            rows: Vec::new(),
            last: Vec::new(),
        }
    }

    /// Offers the next step's row (`row.len()` must be the width; a row of another length is
    /// ignored, so a caller's slip cannot shift every later row).
    pub fn offer(&mut self, row: &[f64]) {
        if row.len() != self.width {
            return;
        }
        self.last.clear();
        if self.seen % self.stride == 0 {
            self.rows.extend_from_slice(row);
            if self.rows.len() / self.width.max(1) > self.max {
                self.halve();
            }
        } else {
            self.last.extend_from_slice(row);
        }
        self.seen += 1;
    }

    /// Keeps every other kept row (those at multiples of twice the stride).
    fn halve(&mut self) {
        let w = self.width.max(1);
        let kept: Vec<f64> = self
            .rows
            .chunks_exact(w)
            .step_by(2)
            .flatten()
            .copied()
            .collect();
        self.rows = kept;
        self.stride *= 2;
    }

    /// Rows offered so far.
    pub fn seen(&self) -> usize {
        self.seen
    }

    /// The kept rows, flattened, ending with the last row offered.
    pub fn finish(mut self) -> Vec<f64> {
        self.rows.append(&mut self.last);
        self.rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(n: usize, max: usize) -> Vec<f64> {
        let mut t = Thinned::new(1, max);
        for i in 0..n {
            t.offer(&[i as f64]);
        }
        assert_eq!(t.seen(), n);
        t.finish()
    }

    #[test]
    fn a_short_series_is_kept_whole() {
        assert_eq!(kept(5, 8), vec![0.0, 1.0, 2.0, 3.0, 4.0]);
        assert_eq!(kept(0, 8), Vec::<f64>::new());
    }

    #[test]
    fn a_long_series_keeps_at_most_max_plus_the_last_evenly_spaced() {
        for n in [9, 100, 1000, 4097, 100_000] {
            let rows = kept(n, 64);
            assert!(rows.len() <= 65, "n = {n}: {} rows", rows.len());
            assert!(rows.len() >= n.min(32), "n = {n}: {} rows", rows.len());
            assert_eq!(rows[0], 0.0, "the first step stays");
            assert_eq!(*rows.last().unwrap(), (n - 1) as f64, "the last step stays");
            // Evenly spaced (but for the last, appended as it came).
            let body = &rows[..rows.len() - 1];
            let gap = body.get(1).map_or(1.0, |b| b - body[0]);
            assert!(body.windows(2).all(|p| p[1] - p[0] == gap), "n = {n}");
        }
    }

    #[test]
    fn rows_stay_whole_and_a_row_of_the_wrong_width_is_ignored() {
        let mut t = Thinned::new(3, 4);
        for i in 0..20 {
            t.offer(&[i as f64, 10.0 * i as f64, 100.0 * i as f64]);
            t.offer(&[1.0]);
        }
        let rows = t.finish();
        assert_eq!(rows.len() % 3, 0);
        for r in rows.chunks_exact(3) {
            assert_eq!((r[1], r[2]), (10.0 * r[0], 100.0 * r[0]));
        }
        assert_eq!(rows[rows.len() - 3], 19.0);
    }
}
