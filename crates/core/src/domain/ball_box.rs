use super::{BoxSet, Domain, L2Ball};

/// The product of an ℓ2 ball and a box: w = (u, v) with ‖u‖₂ ≤ `radius` over all but the last
/// `boxed` coordinates and |vⱼ| ≤ `half_width` over those. AUC maximisation's minimising player
/// (the scorer w with the two class means s, t: `minimax::auc`) lives in one.
///
/// Every question splits over the two blocks: the projection, the support function and the prox
/// of λ₁‖·‖₁ + I_W are separable, so each block answers with its own set's formula (the default
/// `prox_l1` composition is exact on each block, hence on the product).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BallBox {
    /// The ball's radius.
    pub radius: f64,
    /// The box's half-width.
    pub half_width: f64,
    /// How many trailing coordinates the box holds.
    pub boxed: usize,
}

impl BallBox {
    fn parts(&self) -> (L2Ball, BoxSet) {
        (
            L2Ball {
                radius: self.radius,
            },
            BoxSet {
                lo: -self.half_width,
                hi: self.half_width,
            },
        )
    }

    /// Where the box's coordinates start in a vector of length `len`.
    fn split(&self, len: usize) -> usize {
        len.saturating_sub(self.boxed)
    }
}

impl Domain for BallBox {
    fn name(&self) -> &'static str {
        "ball_box"
    }

    fn project(&self, w: &mut [f64]) {
        let (ball, cube) = self.parts();
        let (u, v) = w.split_at_mut(self.split(w.len()));
        ball.project(u);
        cube.project(v);
    }

    fn contains(&self, w: &[f64], tol: f64) -> bool {
        let (ball, cube) = self.parts();
        let (u, v) = w.split_at(self.split(w.len()));
        ball.contains(u, tol) && cube.contains(v, tol)
    }

    /// √((2R)² + k(2h)²): the two blocks' diameters add in squares (k boxed coordinates).
    fn diameter(&self) -> f64 {
        2.0 * self.radius()
    }

    /// √(R² + k·h²).
    fn radius(&self) -> f64 {
        (self.radius * self.radius + self.boxed as f64 * self.half_width * self.half_width).sqrt()
    }

    fn support_l1(&self, v: &[f64], l1: f64) -> f64 {
        let (ball, cube) = self.parts();
        let (u, rest) = v.split_at(self.split(v.len()));
        ball.support_l1(u, l1) + cube.support_l1(rest, l1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::{dist2, dot, norm2};
    use crate::rng::{Stream, seeded};
    use rand::RngExt;

    const SET: BallBox = BallBox {
        radius: 1.5,
        half_width: 0.7,
        boxed: 2,
    };

    /// Feasible, idempotent, non-expansive and nearest (against random feasible points).
    #[test]
    fn projection_is_the_nearest_feasible_point() {
        let mut rng = seeded(41, Stream::Noise);
        for d in [3usize, 4, 7] {
            for _ in 0..500 {
                let draw = |rng: &mut crate::rng::DpRng| -> Vec<f64> {
                    (0..d).map(|_| 6.0 * rng.random::<f64>() - 3.0).collect()
                };
                let (a0, b0) = (draw(&mut rng), draw(&mut rng));
                let (mut a, mut b) = (a0.clone(), b0.clone());
                SET.project(&mut a);
                SET.project(&mut b);
                assert!(SET.contains(&a, 1e-12), "{a:?}");
                assert!(norm2(&a[..d - 2]) <= 1.5 + 1e-12);
                assert!(a[d - 2..].iter().all(|v| v.abs() <= 0.7));
                assert!(dist2(&a, &b) <= dist2(&a0, &b0) + 1e-12);
                let mut again = a.clone();
                SET.project(&mut again);
                assert!(
                    dist2(&again, &a) <= 1e-15,
                    "not idempotent: {again:?} {a:?}"
                );
                for _ in 0..20 {
                    let mut other = draw(&mut rng);
                    SET.project(&mut other);
                    assert!(dist2(&a0, &a) <= dist2(&a0, &other) + 1e-12);
                }
            }
        }
    }

    /// The support function is attained at a feasible point and no feasible point exceeds it.
    #[test]
    fn support_dominates_every_feasible_point_and_is_attained() {
        let mut rng = seeded(43, Stream::Noise);
        let d = 5;
        for _ in 0..200 {
            let v: Vec<f64> = (0..d).map(|_| 2.0 * rng.random::<f64>() - 1.0).collect();
            let sup = SET.support_l1(&v, 0.0);
            // The maximiser: R·u/‖u‖ on the ball, h·sign(v) on the box.
            let nu = norm2(&v[..3]);
            let mut best: Vec<f64> = v[..3].iter().map(|x| 1.5 * x / nu).collect();
            best.extend(v[3..].iter().map(|x| 0.7 * x.signum()));
            assert!((dot(&v, &best) - sup).abs() < 1e-12);
            for _ in 0..50 {
                let mut w: Vec<f64> = (0..d).map(|_| 4.0 * rng.random::<f64>() - 2.0).collect();
                SET.project(&mut w);
                assert!(dot(&v, &w) <= sup + 1e-12);
            }
        }
        assert!((SET.radius() - (1.5f64 * 1.5 + 2.0 * 0.49).sqrt()).abs() < 1e-15);
        assert_eq!(SET.diameter_in(9), 2.0 * SET.radius());
    }
}
