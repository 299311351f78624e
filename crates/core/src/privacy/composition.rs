//! Composition theorems. Every function refuses to compose guarantees stated under different
//! neighbouring relations (`relation` error): the sum of an add/remove ε and a replace-one ε is
//! not a guarantee under either.

use super::measures::{ApproxDp, PureDp, Rdp, Zcdp};
use super::{Relation, check_delta};
use crate::error::{Error, Result};

fn common_relation(relations: impl IntoIterator<Item = Relation>) -> Result<Relation> {
    let mut it = relations.into_iter();
    let first = it
        .next()
        .ok_or_else(|| Error::invalid("mechanisms", "at least one guarantee", 0))?;
    if it.any(|r| r != first) {
        return Err(Error::invalid(
            "relation",
            "all guarantees under the same neighbouring relation",
            "a mix of add/remove and replace-one",
        ));
    }
    Ok(first)
}

/// Basic (sequential, adaptive) composition: ε and δ add up (Dwork & Roth 2014, Thm 3.16 and
/// its adaptive form, Dwork, Rothblum & Vadhan 2010).
pub fn basic(parts: &[ApproxDp]) -> Result<ApproxDp> {
    let relation = common_relation(parts.iter().map(|p| p.relation))?;
    let delta: f64 = parts.iter().map(|p| p.delta).sum();
    if delta >= 1.0 {
        return Err(Error::invalid("delta", "a total δ < 1", delta));
    }
    ApproxDp::new(parts.iter().map(|p| p.epsilon).sum(), delta, relation)
}

/// Advanced composition of k adaptive (ε, δ)-DP mechanisms (Dwork, Rothblum & Vadhan 2010;
/// Dwork & Roth 2014, Thm 3.20): for any δ′ > 0 the composition is
/// (√(2k ln(1/δ′))·ε + k·ε(e^ε − 1), kδ + δ′)-DP.
///
/// We return the better of this and basic composition (kε, kδ + δ′) — basic wins for small k
/// or large ε, and both are valid, so the minimum is too.
pub fn advanced(part: ApproxDp, k: u64, delta_slack: f64) -> Result<ApproxDp> {
    check_delta(delta_slack)?;
    if k == 0 {
        return Err(Error::invalid("k", "at least 1 mechanism", 0));
    }
    let kf = k as f64;
    let eps = part.epsilon;
    let advanced =
        libm::sqrt(2.0 * kf * -libm::log(delta_slack)) * eps + kf * eps * libm::expm1(eps);
    let delta = kf * part.delta + delta_slack;
    if delta >= 1.0 {
        return Err(Error::invalid("delta", "a total δ < 1", delta));
    }
    ApproxDp::new(advanced.min(kf * eps), delta, part.relation)
}

/// Pure-DP composition: ε adds up (Dwork & Roth 2014, Thm 3.16 with δ = 0).
pub fn pure(parts: &[PureDp]) -> Result<PureDp> {
    let relation = common_relation(parts.iter().map(|p| p.relation))?;
    PureDp::new(parts.iter().map(|p| p.epsilon).sum(), relation)
}

/// zCDP composition: ρ adds up, also adaptively (Bun & Steinke 2016, Lemma 2.3).
pub fn zcdp(parts: &[Zcdp]) -> Result<Zcdp> {
    let relation = common_relation(parts.iter().map(|p| p.relation))?;
    Zcdp::new(parts.iter().map(|p| p.rho).sum(), relation)
}

/// RDP composition: the curves add order by order, also adaptively (Mironov 2017, Prop. 1).
/// The curves must be given at the same orders.
pub fn rdp(parts: &[Rdp]) -> Result<Rdp> {
    let relation = common_relation(parts.iter().map(|p| p.relation))?;
    let orders = parts[0].orders.clone();
    if parts.iter().any(|p| p.orders != orders) {
        return Err(Error::invalid(
            "order",
            "RDP curves evaluated at the same orders",
            "different orders",
        ));
    }
    let mut sum = vec![0.0; orders.len()];
    for p in parts {
        for (s, e) in sum.iter_mut().zip(&p.epsilons) {
            *s += e;
        }
    }
    Rdp::new(orders, sum, relation)
}

/// Parallel composition over disjoint parts of the data: mechanisms that each read only their
/// own part compose to (max εₖ, max δₖ), also adaptively (McSherry 2009, Thm 4; the adaptive
/// form is Lemma A.1 of Zhang et al. 2022). Used by phased algorithms.
///
/// Conditions (the caller's responsibility, stated in the ledger): the partition is fixed
/// before seeing the data (by position, with n public), so that under replace-one the changed
/// record stays in one part, and under add/remove exactly one part gains or loses a record. A
/// partition that depends on record values can move a replaced record between two parts and
/// costs up to twice as much.
pub fn parallel(parts: &[ApproxDp]) -> Result<ApproxDp> {
    let relation = common_relation(parts.iter().map(|p| p.relation))?;
    ApproxDp::new(
        parts.iter().map(|p| p.epsilon).fold(0.0, f64::max),
        parts.iter().map(|p| p.delta).fold(0.0, f64::max),
        relation,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: Relation = Relation::ReplaceOne;

    fn g(e: f64, d: f64) -> ApproxDp {
        ApproxDp::new(e, d, R).unwrap()
    }

    #[test]
    fn basic_and_parallel() {
        let b = basic(&[g(0.5, 1e-6), g(0.25, 2e-6)]).unwrap();
        assert_eq!((b.epsilon, b.delta), (0.75, 3e-6));
        let p = parallel(&[g(0.5, 1e-6), g(0.25, 2e-6)]).unwrap();
        assert_eq!((p.epsilon, p.delta), (0.5, 2e-6));
        assert!(basic(&[g(0.1, 0.6), g(0.1, 0.6)]).is_err());
        assert!(basic(&[]).is_err());
    }

    #[test]
    fn advanced_beats_basic_for_many_small_steps_and_never_loses() {
        // Dwork & Roth Cor. 3.21 regime: k = 10⁴ steps of ε = 0.01: advanced gives
        // √(2·10⁴·ln 10⁵)·0.01 + 10⁴·0.01·(e^0.01 − 1) = 4.799 + 1.005 ≈ 5.80 < 100 = kε.
        let a = advanced(g(0.01, 0.0), 10_000, 1e-5).unwrap();
        let expected = libm::sqrt(2e4 * libm::log(1e5)) * 0.01 + 100.0 * libm::expm1(0.01);
        assert!((a.epsilon - expected).abs() < 1e-12);
        assert!((a.delta - 1e-5).abs() < 1e-20);
        let few = advanced(g(1.0, 0.0), 2, 1e-5).unwrap();
        assert_eq!(few.epsilon, 2.0);
        assert!(advanced(g(1.0, 0.0), 0, 1e-5).is_err());
    }

    #[test]
    fn zcdp_and_rdp_add_and_relations_must_match() {
        let z = zcdp(&[Zcdp::new(0.1, R).unwrap(), Zcdp::new(0.2, R).unwrap()]).unwrap();
        assert!((z.rho - 0.3).abs() < 1e-15);
        let c = Rdp::new(vec![2.0, 4.0], vec![0.1, 0.3], R).unwrap();
        let s = rdp(&[c.clone(), c.clone()]).unwrap();
        assert_eq!(s.epsilons, vec![0.2, 0.6]);
        let other = Rdp::new(vec![2.0, 5.0], vec![0.1, 0.3], R).unwrap();
        assert!(rdp(&[c, other]).is_err());
        let mixed = [
            g(1.0, 0.0),
            ApproxDp::new(1.0, 0.0, Relation::AddRemove).unwrap(),
        ];
        assert_eq!(basic(&mixed).unwrap_err().field(), Some("relation"));
        assert_eq!(parallel(&mixed).unwrap_err().field(), Some("relation"));
    }
}
