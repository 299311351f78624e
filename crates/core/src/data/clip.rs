//! Data-independent clipping: the bound is declared, never measured. Every
//! clip here is the record gate's rule ([`super::gate`]), so a row whose norm overflows keeps its
//! direction.

use super::Dataset;
use super::gate::{clip_ball, clip_value};
use crate::linalg::norm2;

/// Scales every feature vector with norm above `bound` back onto the sphere of radius `bound`
/// (the gate's ℓ2 rule: a row whose norm exceeds `f64::MAX` is scaled along its direction).
///
/// Returns how many samples were clipped. That count is computed from the private data: it is a
/// **non-private** diagnostic and must be labelled so wherever it is shown.
pub fn clip_features(data: &mut Dataset, bound: f64) -> usize {
    data.features_mut()
        .map(|x| clip_ball(x, bound))
        .filter(|&clipped| clipped)
        .count()
}

/// Clamps every label/target into [−bound, bound] (a declared range). Returns how many were
/// changed: a **non-private** diagnostic.
pub fn clip_labels(data: &mut Dataset, bound: f64) -> usize {
    let mut clipped = 0;
    for y in data.labels_mut() {
        let c = clip_value(*y, bound);
        if c != *y {
            *y = c;
            clipped += 1;
        }
    }
    clipped
}

/// Scales each row of `rows` (consecutive blocks of length d, e.g. per-sample gradients from
/// `objective::Objective::per_sample_gradients`) to norm ≤ `threshold`, a declared
/// constant, by the gate's ℓ2 rule. Returns how many were clipped (non-private diagnostic).
pub fn clip_rows(rows: &mut [f64], d: usize, threshold: f64) -> usize {
    rows.chunks_exact_mut(d.max(1))
        .map(|row| clip_ball(row, threshold))
        .filter(|&clipped| clipped)
        .count()
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
