//! Data-independent clipping (DESIGN.md §5 rule 1): the bound is declared, never measured.

use super::Dataset;
use crate::linalg::{norm2, scale};

/// Scales every feature vector with norm above `bound` back onto the sphere of radius `bound`.
///
/// Returns how many samples were clipped. That count is computed from the private data: it is a
/// **non-private** diagnostic and must be labelled so wherever it is shown.
pub fn clip_features(data: &mut Dataset, bound: f64) -> usize {
    let mut clipped = 0;
    for x in data.features_mut() {
        let norm = norm2(x);
        if norm > bound {
            scale(bound / norm, x);
            clipped += 1;
        }
    }
    clipped
}

/// Clamps every label/target into [−bound, bound] (a declared range). Returns how many were
/// changed: a **non-private** diagnostic.
pub fn clip_labels(data: &mut Dataset, bound: f64) -> usize {
    let mut clipped = 0;
    for y in data.labels_mut() {
        let c = y.clamp(-bound, bound);
        if c != *y {
            *y = c;
            clipped += 1;
        }
    }
    clipped
}

/// Scales each row of `rows` (consecutive blocks of length d, e.g. per-sample gradients from
/// [`crate::objective::Objective::per_sample_gradients`]) to norm ≤ `threshold`, a declared
/// constant. Returns how many were clipped (non-private diagnostic).
pub fn clip_rows(rows: &mut [f64], d: usize, threshold: f64) -> usize {
    let mut clipped = 0;
    for row in rows.chunks_exact_mut(d.max(1)) {
        let norm = norm2(row);
        if norm > threshold {
            scale(threshold / norm, row);
            clipped += 1;
        }
    }
    clipped
}

/// The fraction of samples whose feature norm exceeds `threshold`, measured on the data: a
/// **non-private** diagnostic (for the population value see [`super::clip_fraction`]).
pub fn fraction_above(data: &Dataset, threshold: f64) -> f64 {
    let above = data.samples().filter(|(x, _)| norm2(x) > threshold).count();
    above as f64 / data.n().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::DMatrix;

    #[test]
    fn clips_only_long_vectors_onto_the_sphere() {
        let x = DMatrix::from_column_slice(2, 3, &[3.0, 4.0, 0.3, 0.4, 0.0, -2.0]);
        let mut data = Dataset::new(x, vec![1.0, -1.0, 1.0]).unwrap();
        assert_eq!(clip_features(&mut data, 1.0), 2);
        let x0 = data.features(0);
        assert!((x0[0] - 0.6).abs() < 1e-15 && (x0[1] - 0.8).abs() < 1e-15);
        assert_eq!(data.features(1), &[0.3, 0.4]);
        assert_eq!(data.features(2), &[0.0, -1.0]);
    }
}
