//! Zhang et al. 2022 (Zhang et al., BYOA): utility bounds of the minimisation algorithms, with the
//! theorems' constants (Zhang et al. 2022). They assume ε < 1 and δ < 1/n, and interior
//! optima for Thm 3.4; ln is natural and log n ≡ K = ⌊log₂ n⌋ (Zhang et al. 2022).

/// Thm 3.4, excess empirical risk of Algorithm 1: 33L²κ·d·ln(2.5/δ)/(μn²ε²), κ = β/μ.
#[allow(clippy::too_many_arguments)]
pub fn algorithm_1_empirical(
    lipschitz: f64,
    smoothness: f64,
    mu: f64,
    n: usize,
    d: usize,
    epsilon: f64,
    delta: f64,
) -> f64 {
    let n = n as f64;
    33.0 * lipschitz * lipschitz * (smoothness / mu) * d as f64 * libm::log(2.5 / delta)
        / (mu * n * n * epsilon * epsilon)
}

/// Thm 3.4, excess population risk of Algorithm 1: L²κ(7/(μn) + 48·d·ln(2.5/δ)/(μn²ε²)).
pub fn algorithm_1_population(
    lipschitz: f64,
    smoothness: f64,
    mu: f64,
    n: usize,
    d: usize,
    epsilon: f64,
    delta: f64,
) -> f64 {
    let n = n as f64;
    lipschitz
        * lipschitz
        * (smoothness / mu)
        * (7.0 / (mu * n)
            + 48.0 * d as f64 * libm::log(2.5 / delta) / (mu * n * n * epsilon * epsilon))
}

/// Thm 3.7, excess population risk of Algorithm 2: 4LD·K·(1/√n + 7√(d ln(2.5/δ))/(nε)).
pub fn algorithm_2_population(
    lipschitz: f64,
    big_d: f64,
    n: usize,
    d: usize,
    epsilon: f64,
    delta: f64,
) -> f64 {
    let k = (usize::BITS - 1 - n.max(2).leading_zeros()) as f64;
    let nf = n as f64;
    4.0 * lipschitz
        * big_d
        * k
        * (1.0 / libm::sqrt(nf)
            + 7.0 * libm::sqrt(d as f64 * libm::log(2.5 / delta)) / (nf * epsilon))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zhang_et_al_theorem_3_7_vector() {
        // Zhang et al. 2022: n = 4096, d = 10, L = D = 1, ε = 1,
        // δ = 1e-6 gives 1.74565 (vacuous for LD = 1).
        let b = algorithm_2_population(1.0, 1.0, 4096, 10, 1.0, 1e-6);
        assert!((b - 1.74565).abs() < 1e-5, "{b}");
        // Thm 3.4 scales as 1/(nε)² in its privacy term.
        let a = algorithm_1_empirical(1.0, 0.5, 0.1, 1000, 3, 0.5, 1e-5);
        let a2 = algorithm_1_empirical(1.0, 0.5, 0.1, 2000, 3, 0.5, 1e-5);
        assert!((a / a2 - 4.0).abs() < 1e-12);
        assert!(algorithm_1_population(1.0, 0.5, 0.1, 1000, 3, 0.5, 1e-5) > a);
    }
}
