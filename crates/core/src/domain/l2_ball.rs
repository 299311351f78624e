use super::Domain;
use crate::linalg::{norm2, scale};
use crate::loss::soft;

/// The Euclidean ball {w : ‖w‖₂ ≤ radius}.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct L2Ball {
    pub radius: f64,
}

impl Domain for L2Ball {
    fn name(&self) -> &'static str {
        "l2_ball"
    }

    fn project(&self, w: &mut [f64]) {
        let norm = norm2(w);
        if norm > self.radius {
            scale(self.radius / norm, w);
        }
    }

    fn contains(&self, w: &[f64], tol: f64) -> bool {
        norm2(w) <= self.radius * (1.0 + tol)
    }

    fn diameter(&self) -> f64 {
        2.0 * self.radius
    }

    fn radius(&self) -> f64 {
        self.radius
    }

    /// sup_{‖w‖≤R} ⟨v, w⟩ − λ₁‖w‖₁ = R‖soft(v, λ₁)‖: the maximiser is R·s/‖s‖ with s = soft(v, λ₁)
    /// (for fixed ‖w‖ the best direction is soft(v, λ₁), Yu 2013).
    fn support_l1(&self, v: &[f64], l1: f64) -> f64 {
        let s2: f64 = v.iter().map(|&x| soft(x, l1) * soft(x, l1)).sum();
        self.radius * s2.sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::dist2;
    use crate::noise::fill_gaussian;
    use crate::rng::{Stream, seeded};

    #[test]
    fn projection_is_feasible_idempotent_and_non_expansive() {
        let ball = L2Ball { radius: 1.5 };
        let mut rng = seeded(3, Stream::Noise);
        let (mut a, mut b) = (vec![0.0; 4], vec![0.0; 4]);
        for _ in 0..500 {
            fill_gaussian(&mut rng, 2.0, &mut a);
            fill_gaussian(&mut rng, 2.0, &mut b);
            let before = dist2(&a, &b);
            ball.project(&mut a);
            ball.project(&mut b);
            assert!(ball.contains(&a, 1e-12) && ball.contains(&b, 1e-12));
            assert!(dist2(&a, &b) <= before + 1e-12);
            let again = {
                let mut c = a.clone();
                ball.project(&mut c);
                c
            };
            assert!(dist2(&again, &a) <= 1e-15);
        }
    }
}
