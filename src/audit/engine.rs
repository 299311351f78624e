//! The audit's statistics: region choice on one half of the runs, Clopper–Pearson bound on the
//! other. Kept apart from the targets so the argument of the module docs is made once, for all.

use super::sampler::PairDraws;
use super::{AuditReport, Auditable, RejectionTail, Side};
use crate::error::{Error, Result};
use crate::privacy::ApproxDp;
use crate::rng::DpRng;
use crate::stats::{clopper_pearson, normal_quantile, wilson};

/// The bound ln((p̲ − δ)/p̄) from hit counts out of `n` runs per side, at level α (α/2 each).
fn epsilon_bound(k_num: u64, k_den: u64, n: u64, delta: f64, alpha: f64) -> Result<f64> {
    let (p_lo, _) = clopper_pearson(k_num, n, alpha / 2.0)?;
    let (_, p_hi) = clopper_pearson(k_den, n, alpha / 2.0)?;
    if p_lo <= delta {
        return Ok(0.0);
    }
    Ok(libm::log((p_lo - delta) / p_hi).max(0.0))
}

/// The selection-phase proxy of [`epsilon_bound`], with Wilson intervals at quantile z.
fn epsilon_proxy(k_num: u64, k_den: u64, n: u64, delta: f64, z: f64) -> f64 {
    let (p_lo, _) = wilson(k_num, n, z);
    let (_, p_hi) = wilson(k_den, n, z);
    if p_lo <= delta || p_hi <= 0.0 {
        return 0.0;
    }
    libm::log((p_lo - delta) / p_hi).max(0.0)
}

/// Hits of the region (tail, t) in a sorted sample.
fn hits(sorted: &[f64], tail: RejectionTail, t: f64) -> u64 {
    (match tail {
        RejectionTail::Upper => sorted.len() - sorted.partition_point(|&x| x < t),
        RejectionTail::Lower => sorted.partition_point(|&x| x <= t),
    }) as u64
}

/// Audits two samples of a statistic, `on_d` from runs on D and `on_d_prime` from runs on D′
/// (equal lengths ≥ 20), against `claim`, at confidence 1 − `alpha`. See the module docs.
pub fn audit_samples(
    on_d: &[f64],
    on_d_prime: &[f64],
    claim: ApproxDp,
    alpha: f64,
) -> Result<AuditReport> {
    if on_d.len() != on_d_prime.len() {
        return Err(Error::DimensionMismatch {
            what: "runs on D′",
            expected: on_d.len(),
            got: on_d_prime.len(),
        });
    }
    if on_d.len() < 20 {
        return Err(Error::invalid(
            "runs",
            "at least 20 runs per side",
            on_d.len(),
        ));
    }
    if !(alpha > 0.0 && alpha < 0.5) {
        return Err(Error::invalid("alpha", "a number in (0, 0.5)", alpha));
    }
    if on_d.iter().chain(on_d_prime).any(|x| x.is_nan()) {
        return Err(Error::NonFinite {
            what: "audit statistic",
        });
    }
    let half = on_d.len() / 2;
    let sorted = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v
    };
    let (a1, b1) = (sorted(&on_d[..half]), sorted(&on_d_prime[..half]));
    let (a2, b2) = (
        sorted(&on_d[half..2 * half]),
        sorted(&on_d_prime[half..2 * half]),
    );
    let mut pooled: Vec<f64> = a1.iter().chain(&b1).copied().collect();
    pooled.sort_by(f64::total_cmp);

    // Geometric ranks 1, 2, …, ×1.1 … up to the median, from each end.
    let mut ranks = Vec::new();
    let mut r = 1.0f64;
    while (r as usize) < pooled.len() / 2 {
        let i = r as usize;
        if ranks.last() != Some(&i) {
            ranks.push(i);
        }
        r *= 1.1;
        r = r.max(i as f64 + 1.0);
    }
    let n1 = half as u64;
    let z = normal_quantile(1.0 - alpha / 2.0);
    let mut best: Option<(f64, RejectionTail, f64, Side)> = None;
    for &i in &ranks {
        for (tail, t) in [
            (RejectionTail::Upper, pooled[pooled.len() - i]),
            (RejectionTail::Lower, pooled[i - 1]),
        ] {
            let (ka, kb) = (hits(&a1, tail, t), hits(&b1, tail, t));
            for (num, k_num, k_den) in [(Side::D, ka, kb), (Side::DPrime, kb, ka)] {
                let e = epsilon_proxy(k_num, k_den, n1, claim.delta, z);
                if best.is_none_or(|b| e > b.0) {
                    best = Some((e, tail, t, num));
                }
            }
        }
    }
    // `ranks` is non-empty because half ≥ 10, so `best` is set; fall back to a no-op region.
    let (_, tail, threshold, numerator) =
        best.unwrap_or((0.0, RejectionTail::Upper, f64::INFINITY, Side::D));
    let (ka, kb) = (hits(&a2, tail, threshold), hits(&b2, tail, threshold));
    let (k_num, k_den) = match numerator {
        Side::D => (ka, kb),
        Side::DPrime => (kb, ka),
    };
    let epsilon_lower = epsilon_bound(k_num, k_den, n1, claim.delta, alpha)?;
    Ok(AuditReport {
        claimed: claim,
        epsilon_lower,
        violation: epsilon_lower > claim.epsilon,
        alpha,
        runs_per_side: on_d.len(),
        threshold,
        tail,
        numerator,
        hits_numerator: k_num,
        hits_denominator: k_den,
    })
}

/// Runs `target` `runs_per_side` times on each side with `rng` and audits the statistics.
pub fn audit(
    target: &mut dyn Auditable,
    runs_per_side: usize,
    alpha: f64,
    rng: &mut DpRng,
) -> Result<AuditReport> {
    let mut draws = PairDraws::with_capacity(runs_per_side);
    draws.draw(target, rng, runs_per_side)?;
    audit_samples(&draws.on_d, &draws.on_d_prime, target.claim(), alpha)
}
