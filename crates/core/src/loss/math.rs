//! `exp` and `ln(1 + e)` for the logistic loss, written in plain IEEE arithmetic.
//!
//! Why not libm: the logistic pass was bound by libm's `exp` + `log1p` (≈ 45 ns per sample at
//! n = 10⁵, d = 100, 2.4–2.9× the time to read the data). These versions are branch-free on the
//! hot path (the only branches guard overflow, underflow and NaN, which a pass almost never
//! meets), so the compiler inlines them and several samples overlap in flight.
//!
//! Why bit-identical on every target: they use only `+ − × ÷`, comparisons and bit moves, each
//! correctly rounded by IEEE 754, in an order written down here. Rust never contracts `a·b + c`
//! into a fused multiply-add on its own, so native x86-64 and wasm32 give the same bits
//! (`crates/wasm/tests/web/web_problem.rs` checks this in Chromium and Firefox through the golden file).
//!
//! Accuracy (tested against libm below): [`exp`] within 1 ulp over the whole f64 range (exact
//! overflow to ∞ and underflow to 0 at libm's thresholds), [`ln_1p_unit`] within 2 ulps on [0, 1].

/// ln 2 split in two (fdlibm's ln2HI, ln2LO): the high part has 32 significant bits, so k·LN2_HI
/// is exact for |k| < 2²⁰.
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
const INV_LN2: f64 = core::f64::consts::LOG2_E;
/// 1.5·2⁵²: adding and subtracting it rounds a number of magnitude < 2⁵¹ to the nearest integer
/// (ties to even) with plain additions, the same on every target.
const ROUND: f64 = 6_755_399_441_055_744.0;
/// Above this exp overflows (fdlibm's o_threshold, ≈ 709.78 = ln(f64::MAX)).
const OVERFLOW: f64 = f64::from_bits(0x4086_2e42_fefa_39ef);
/// Below this exp underflows to 0 (fdlibm's u_threshold, ≈ −745.13).
const UNDERFLOW: f64 = f64::from_bits(0xc087_4910_d52d_3051);

/// eˣ for every f64: ∞ above ln(f64::MAX), 0 below ≈ −745.13, NaN for NaN, within 1 ulp of libm.
///
/// Method: x = k·ln 2 + r with |r| ≤ ln 2 / 2 (Cody–Waite reduction), eʳ by its Taylor series to
/// degree 13 (the remainder |r|¹⁴/14! < 5e-18 is under 0.05 ulp), then eˣ = 2ᵏ·eʳ by building 2ᵏ
/// from its bits; when 2ᵏ is not a normal number the scaling is done in two exact-then-rounded
/// steps, so a subnormal result is rounded once.
#[inline]
pub fn exp(x: f64) -> f64 {
    exp_lanes([x])[0]
}

/// [`exp`] of each lane, with exactly the bits of [`exp`] lane by lane.
///
/// Why lanes: one exp is a chain of ~20 dependent operations. Computed for several independent
/// lanes at once, the chains overlap instead of adding up, and the compiler packs the lanes into
/// SIMD registers. The body is written as scalar code in a loop over the lanes (not as
/// array-at-a-time steps): LLVM then vectorises it at the full register width, with no spills —
/// 2× faster on baseline x86-64 and 3× under AVX2 than the array-at-a-time form, same bits.
#[inline(always)]
pub fn exp_lanes<const N: usize>(x: [f64; N]) -> [f64; N] {
    // Rare path (overflow, subnormal or zero results, NaN): lane by lane with branches.
    // `contains` is false for NaN, which therefore takes the rare path too.
    if x.iter().any(|v| !(NORMAL_LO..=NORMAL_HI).contains(v)) {
        return x.map(exp_rare);
    }
    let mut out = [0.0; N];
    for (o, &v) in out.iter_mut().zip(&x) {
        let (p, rounded) = exp_reduced(v);
        *o = p * pow2_of_rounded(rounded);
    }
    out
}

/// Inside [NORMAL_LO, NORMAL_HI] the scale 2ᵏ is a normal number (−1022 ≤ k ≤ 1023).
const NORMAL_LO: f64 = -708.0;
const NORMAL_HI: f64 = 709.0;

/// (eʳ, ROUND + k) with x = k·ln 2 + r. k is returned as `ROUND + k` (see [`pow2_of_rounded`]):
/// turning it into an integer with `as` would cost a saturating float-to-int conversion, which
/// does not vectorise.
#[inline(always)]
fn exp_reduced(x: f64) -> (f64, f64) {
    let rounded = x * INV_LN2 + ROUND;
    let kf = rounded - ROUND;
    let r = (x - kf * LN2_HI) - kf * LN2_LO;
    // (eʳ − 1 − r)/r² = 1/2! + r/3! + … + r¹¹/13!.
    let tail = estrin12(r, &EXP_TAIL);
    (1.0 + (r + (r * r) * tail), rounded)
}

/// One lane of [`exp`] with the range checks; the same reduction and polynomial.
fn exp_rare(x: f64) -> f64 {
    if x > OVERFLOW {
        return f64::INFINITY;
    }
    if x < UNDERFLOW {
        return 0.0;
    }
    if x.is_nan() {
        return x;
    }
    let (p, rounded) = exp_reduced(x);
    // |x| ≤ 745.2, so |k| ≤ 1076 and the conversion is exact.
    let k = (rounded - ROUND) as i32;
    if (-1022..=1023).contains(&k) {
        p * pow2(k)
    } else if k > 1023 {
        p * pow2(k - 1) * 2.0
    } else {
        // p·2^(k+1000) is exact (a normal number); the second product rounds once.
        p * pow2(k + 1000) * pow2(-1000)
    }
}

const EXP_TAIL: [f64; 12] = [
    1.0 / 2.0,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5_040.0,
    1.0 / 40_320.0,
    1.0 / 362_880.0,
    1.0 / 3_628_800.0,
    1.0 / 39_916_800.0,
    1.0 / 479_001_600.0,
    1.0 / 6_227_020_800.0,
];

/// Σ_{j<12} c_j x^j by Estrin's scheme: pairs c₂ᵢ + c₂ᵢ₊₁x, then pairs of those with x², x⁴
/// (the odd third pair is carried up) and x⁸ — depth 4 instead of Horner's 12, in a fixed order,
/// so the bits are the same on every target. Written out rather than as a loop over levels: the
/// loop does not unroll, and an un-unrolled polynomial stops the lanes from vectorising (4–8×
/// slower).
#[inline(always)]
fn estrin12(x: f64, c: &[f64; 12]) -> f64 {
    let (x2, t): (f64, [f64; 6]) = (x * x, pairs(x, c));
    let x4 = x2 * x2;
    let u = [t[0] + t[1] * x2, t[2] + t[3] * x2, t[4] + t[5] * x2];
    let x8 = x4 * x4;
    (u[0] + u[1] * x4) + u[2] * x8
}

/// Σ_{j<16} c_j x^j by Estrin's scheme, as [`estrin12`] with four full levels.
#[inline(always)]
fn estrin16(x: f64, c: &[f64; 16]) -> f64 {
    let (x2, t): (f64, [f64; 8]) = (x * x, pairs(x, c));
    let x4 = x2 * x2;
    let u = [
        t[0] + t[1] * x2,
        t[2] + t[3] * x2,
        t[4] + t[5] * x2,
        t[6] + t[7] * x2,
    ];
    let x8 = x4 * x4;
    (u[0] + u[1] * x4) + (u[2] + u[3] * x4) * x8
}

/// The first Estrin level: c₂ᵢ + c₂ᵢ₊₁x.
#[inline(always)]
fn pairs<const M: usize, const H: usize>(x: f64, c: &[f64; M]) -> [f64; H] {
    core::array::from_fn(|i| c[2 * i] + c[2 * i + 1] * x)
}

/// 2ᵏ for −1022 ≤ k ≤ 1023 from `rounded` = ROUND + k (exact: |k| < 2⁵¹), whose low bits hold k
/// in two's complement (ROUND = 1.5·2⁵² has zeros below bit 51). Adding the bias 1023 and
/// shifting by 52 keeps the low 12 bits, k + 1023 ∈ [1, 2046]: the biased exponent of 2ᵏ. Only
/// integer adds and shifts, so it vectorises on every target.
#[inline]
fn pow2_of_rounded(rounded: f64) -> f64 {
    debug_assert!((-1022.0..=1023.0).contains(&(rounded - ROUND)));
    f64::from_bits(rounded.to_bits().wrapping_add(1023) << 52)
}

/// 2ᵏ for −1022 ≤ k ≤ 1023, from its bits.
#[inline]
fn pow2(k: i32) -> f64 {
    debug_assert!((-1022..=1023).contains(&k));
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// ln(1 + e) for 0 ≤ e ≤ 1 (the range the logistic loss needs: e = exp(−|m|)), within 2 ulps.
///
/// Method: ln(1 + e) = 2·atanh(s) with s = e/(2 + e) ∈ [0, 1/3], and
/// 2·atanh(s) = 2s + 2s·(s²/3 + s⁴/5 + … + s³²/33); the first omitted term is below
/// 9⁻¹⁷/35·(9/8) < 2e-18 relative, under 0.02 ulp. Forming s costs one rounding of 2 + e and one
/// of the division, hence the 2-ulp bound. Outside [0, 1] the series converges more slowly and
/// the result is not promised (a debug assertion guards it); NaN propagates.
#[inline]
pub fn ln_1p_unit(e: f64) -> f64 {
    ln_1p_unit_lanes([e])[0]
}

/// [`ln_1p_unit`] of each lane, with its bits lane by lane (see [`exp_lanes`] for why).
#[inline(always)]
pub fn ln_1p_unit_lanes<const N: usize>(e: [f64; N]) -> [f64; N] {
    debug_assert!(
        e.iter().all(|v| v.is_nan() || (0.0..=1.0).contains(v)),
        "ln_1p_unit({e:?})"
    );
    let mut out = [0.0; N];
    for (o, &v) in out.iter_mut().zip(&e) {
        // 2s is formed directly (e + e is exact) so that a subnormal e does not lose its last bit.
        let two_s = (v + v) / (2.0 + v);
        let z = (0.5 * two_s) * (0.5 * two_s);
        // Σ_{j=1}^{16} z^j/(2j+1) = z·(1/3 + z/5 + …).
        *o = two_s + two_s * (z * estrin16(z, &ATANH_SERIES));
    }
    out
}

/// 1/(2j + 1) for j = 1 … 16.
const ATANH_SERIES: [f64; 16] = [
    1.0 / 3.0,
    1.0 / 5.0,
    1.0 / 7.0,
    1.0 / 9.0,
    1.0 / 11.0,
    1.0 / 13.0,
    1.0 / 15.0,
    1.0 / 17.0,
    1.0 / 19.0,
    1.0 / 21.0,
    1.0 / 23.0,
    1.0 / 25.0,
    1.0 / 27.0,
    1.0 / 29.0,
    1.0 / 31.0,
    1.0 / 33.0,
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance in units in the last place, counted along the ordered bit patterns.
    fn ulps(a: f64, b: f64) -> u64 {
        let key = |v: f64| {
            let bits = v.to_bits() as i64;
            if bits < 0 { i64::MIN - bits } else { bits }
        };
        key(a).abs_diff(key(b))
    }

    /// A fixed, seed-free walk over [lo, hi] with an irrational step, so the points hit no pattern.
    fn points(lo: f64, hi: f64, count: usize) -> impl Iterator<Item = f64> {
        let golden = 0.618_033_988_749_894_9;
        (0..count).map(move |i| lo + (hi - lo) * ((i as f64 * golden) % 1.0))
    }

    #[test]
    fn exp_is_within_one_ulp_of_libm_over_the_whole_range() {
        let mut worst = 0;
        for x in points(-745.2, 709.8, 400_000)
            .chain(points(-1.0, 1.0, 200_000))
            .chain(points(-1e-6, 1e-6, 10_000))
            // The subnormal results, where the scaling takes its two-step path.
            .chain(points(-745.1, -708.0, 50_000))
        {
            let u = ulps(exp(x), libm::exp(x));
            worst = worst.max(u);
            assert!(u <= 1, "exp({x:e}) = {:e}, libm {:e}", exp(x), libm::exp(x));
        }
        // Not vacuous: the series is not libm, so some point must differ.
        assert_eq!(worst, 1);
    }

    #[test]
    fn lanes_give_the_bits_of_one_lane() {
        // A fast-path block, and blocks where one lane forces the rare path for all four.
        for x in [
            [-0.5, 3.0, -700.0, 708.5],
            [-0.5, 3.0, -744.0, 0.1],
            [f64::NAN, 1.0, 709.5, -1e-3],
        ] {
            let four = exp_lanes(x);
            for (v, xi) in four.iter().zip(x) {
                assert_eq!(v.to_bits(), exp_lanes([xi])[0].to_bits(), "exp({xi})");
            }
        }
        let e = [0.0, 1e-300, 0.37, 1.0];
        for (v, ei) in ln_1p_unit_lanes(e).iter().zip(e) {
            assert_eq!(v.to_bits(), ln_1p_unit(ei).to_bits());
        }
    }

    #[test]
    fn exp_edge_cases() {
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(-0.0), 1.0);
        assert!(ulps(exp(1.0), core::f64::consts::E) <= 1);
        assert!(exp(f64::NAN).is_nan());
        assert_eq!(exp(f64::INFINITY), f64::INFINITY);
        assert_eq!(exp(f64::NEG_INFINITY), 0.0);
        assert_eq!(exp(OVERFLOW), libm::exp(OVERFLOW));
        assert!(exp(OVERFLOW).is_finite());
        assert_eq!(exp(709.79), f64::INFINITY);
        assert_eq!(exp(1e308), f64::INFINITY);
        assert_eq!(exp(-746.0), 0.0);
        assert_eq!(exp(-1e308), 0.0);
        // The smallest subnormal and its neighbourhood.
        assert_eq!(exp(-745.1), libm::exp(-745.1));
        assert_eq!(exp(-745.1), f64::from_bits(1));
        assert_eq!(exp(-744.44), libm::exp(-744.44));
        // Tiny arguments: e^x = 1 + x to within rounding.
        assert_eq!(exp(1e-300), 1.0);
        assert_eq!(exp(f64::MIN_POSITIVE), 1.0);
        assert_eq!(exp(-1e-17), 1.0 - 1e-17);
    }

    #[test]
    fn ln_1p_unit_is_within_two_ulps_of_libm_on_its_range() {
        let mut worst = 0;
        for e in points(0.0, 1.0, 300_000)
            .chain(points(0.0, 1e-6, 20_000))
            .chain((0..1075).map(|k| libm::exp2(-f64::from(k))))
        {
            let u = ulps(ln_1p_unit(e), libm::log1p(e));
            worst = worst.max(u);
            assert!(
                u <= 2,
                "ln_1p_unit({e:e}) = {:e}, libm {:e}",
                ln_1p_unit(e),
                libm::log1p(e)
            );
        }
        assert!(worst >= 1);
        assert_eq!(ln_1p_unit(0.0).to_bits(), 0.0f64.to_bits());
        assert_eq!(ln_1p_unit(f64::from_bits(1)), f64::from_bits(1));
        assert_eq!(ln_1p_unit(1.0), core::f64::consts::LN_2);
        assert!(ln_1p_unit(f64::NAN).is_nan());
    }
}
