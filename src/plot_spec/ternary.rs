//! The ternary plot's geometry: a point of the probability simplex in three strategies drawn in
//! an equilateral triangle (barycentric coordinates), used when a player has exactly three
//! strategies (rock–paper–scissors at d = 3).

/// The triangle's corners in the plot's plane: strategy 1 bottom left, 2 bottom right, 3 on top.
pub const CORNERS: [(f64, f64); 3] = [(0.0, 0.0), (1.0, 0.0), (0.5, SQRT3_2)];

/// √3/2, the height of the unit equilateral triangle.
const SQRT3_2: f64 = 0.866_025_403_784_438_6;

/// The plot-plane point of weights `p` = (p₁, p₂, p₃): Σ pᵢ·cornerᵢ / Σ pᵢ. A point of the
/// simplex lands inside the triangle; a released point off the simplex (an unprojected Gaussian
/// release) lands where its weights put it, outside, rather than being moved. `None` when the
/// weights are not finite or sum to (nearly) zero, which has no place in the plane.
pub fn to_plane(p: [f64; 3]) -> Option<(f64, f64)> {
    let sum: f64 = p.iter().sum();
    if !p.iter().all(|v| v.is_finite()) || sum.abs() < 1e-12 {
        return None;
    }
    let (mut a, mut b) = (0.0, 0.0);
    for (w, (cx, cy)) in p.iter().zip(CORNERS) {
        a += w * cx;
        b += w * cy;
    }
    Some((a / sum, b / sum))
}

/// The points of a flat array of three-strategy points (p₁, p₂, p₃, p₁, …) in the plane; the
/// ones without a place (see [`to_plane`]) become NaN, which breaks a drawn line there.
pub fn path_to_plane(flat: &[f64]) -> Vec<(f64, f64)> {
    flat.chunks_exact(3)
        .map(|p| to_plane([p[0], p[1], p[2]]).unwrap_or((f64::NAN, f64::NAN)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: (f64, f64), b: (f64, f64)) -> bool {
        (a.0 - b.0).abs() < 1e-12 && (a.1 - b.1).abs() < 1e-12
    }

    #[test]
    fn vertices_go_to_the_corners_and_the_uniform_point_to_the_centre() {
        for (i, corner) in CORNERS.iter().enumerate() {
            let mut p = [0.0; 3];
            p[i] = 1.0;
            assert!(close(to_plane(p).unwrap(), *corner), "strategy {i}");
        }
        let centre = to_plane([1.0 / 3.0; 3]).unwrap();
        assert!(close(centre, (0.5, SQRT3_2 / 3.0)));
        // The centre is equidistant from the three corners (the triangle is equilateral).
        let d = |c: (f64, f64)| ((c.0 - centre.0).powi(2) + (c.1 - centre.1).powi(2)).sqrt();
        assert!((d(CORNERS[0]) - d(CORNERS[1])).abs() < 1e-12);
        assert!((d(CORNERS[0]) - d(CORNERS[2])).abs() < 1e-12);
    }

    #[test]
    fn an_edge_point_lies_on_its_edge_and_weights_are_normalised() {
        // Half rock, half paper: the middle of the bottom edge.
        assert!(close(to_plane([0.5, 0.5, 0.0]).unwrap(), (0.5, 0.0)));
        // Counts (not yet divided by their total) are the same point as their shares.
        assert!(close(
            to_plane([2.0, 1.0, 1.0]).unwrap(),
            to_plane([0.5, 0.25, 0.25]).unwrap()
        ));
        // A distance of each point to the edge opposite corner i is its weight pᵢ times the height.
        let p = [0.2, 0.3, 0.5];
        let (_, y) = to_plane(p).unwrap();
        assert!((y - 0.5 * SQRT3_2).abs() < 1e-12);
    }

    #[test]
    fn points_off_the_simplex_are_not_moved_and_degenerate_ones_have_no_place() {
        // A Gaussian release with a negative weight lands outside the triangle, below its base.
        let (_, y) = to_plane([0.6, 0.6, -0.2]).unwrap();
        assert!(y < 0.0);
        assert_eq!(to_plane([0.0, 0.0, 0.0]), None);
        assert_eq!(to_plane([f64::NAN, 0.5, 0.5]), None);
        let path = path_to_plane(&[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 9.0]);
        assert_eq!(path.len(), 3, "a trailing partial point is dropped");
        assert!(path[1].0.is_nan());
        assert!(close(path[2], CORNERS[1]));
    }
}
