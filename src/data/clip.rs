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
