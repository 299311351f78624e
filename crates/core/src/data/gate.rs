//! The record gate: one total clip that every record passes on its way in —
//! generated datasets, CSV files, every game's record stream, the audits' pairs — mapping any
//! value to a finite record within the declared bound by a rule fixed before any data are seen.
//!
//! ## The rule
//! 1. **Entries.** NaN → 0; +∞ → `f64::MAX`, −∞ → −`f64::MAX` ([`finite_entry`]); finite entries,
//!    subnormals included, are kept.
//! 2. **ℓ2 ball of radius c** ([`clip_ball`], features): a vector with ‖x‖₂ ≤ c is kept bit for
//!    bit; one with a finite norm above c is scaled by c/‖x‖₂ (the clip as it always was, same
//!    bits); one whose norm exceeds `f64::MAX` (an infinite entry, or fifty entries of 1e308) is
//!    first divided by m = maxᵢ|xᵢ|, then scaled by c/‖x/m‖₂, so it keeps its direction instead
//!    of collapsing to 0·∞ = NaN or to the zero vector.
//! 3. **Interval [−c, c]** ([`clip_value`], labels and a matrix game's payoff entries): rule 1,
//!    then the clamp.
//!
//! A bound of +∞ declares no bound (the NOT PRIVATE no-clipping demonstrations): rule 1 alone
//! applies, so even those records are finite.
//!
//! The result is finite and, for a finite c, within c up to the rounding of one scaling (a
//! relative 10⁻¹⁵, as the clip always was). The gate runs once per record as it is generated or
//! loaded, never per iteration; on a finite record it costs one norm, as the clip did.
//!
//! **Privacy**: the rule depends on the declared bound alone, so a replaced record moves any
//! function of the gated records by at most what the bound allows, whatever the record held.
//! How many records it changed is computed from the data: a **non-private** diagnostic.

use std::ops::Deref;
use std::sync::Arc;

use super::Dataset;
use crate::error::{Error, Result};
use crate::linalg::{norm2, scale};

/// The declared bounds a gate applies: fixed before any data are seen, never measured. +∞ for a
/// bound not declared (rule 1 alone: the values are made finite).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GateBounds {
    /// c of rule 2: every feature vector ends with ‖x‖₂ ≤ c (> 0).
    pub feature: f64,
    /// c of rule 3: every label or target ends in [−c, c] (≥ 0).
    pub label: f64,
}

impl GateBounds {
    /// Checks the bounds are numbers the rules take: feature > 0, label ≥ 0 (+∞ allowed).
    /// Errors name the page's control (feature bound, label bound).
    fn check(&self) -> Result<()> {
        if self.feature.is_nan() || self.feature <= 0.0 {
            return Err(Error::invalid(
                "feature_bound",
                "a declared feature bound > 0",
                self.feature,
            ));
        }
        if self.label.is_nan() || self.label < 0.0 {
            return Err(Error::invalid(
                "label_bound",
                "a declared label bound ≥ 0",
                self.label,
            ));
        }
        Ok(())
    }
}

/// A dataset every record of which has passed the gate: features in the ℓ2 ball and labels in
/// the interval of its [`GateBounds`], every value finite. Its fields are private and its only
/// constructors are [`Records::gate`] (which applies the rules) and [`Records::every`] (a subset
/// of records already gated), so holding a `Records` is proof that the gate ran with the bounds
/// it carries. It reads as the [`Dataset`] it wraps (`Deref`); low-level code (the objective,
/// the solvers) takes that dataset, the session's problem and the audits' pairs hold this.
///
/// ```compile_fail
/// use dp_core::data::gate::{GateBounds, Records};
/// // No struct literal: the fields are private, so no ungated dataset can be wrapped.
/// let records = Records { data: todo!(), bounds: GateBounds { feature: 1.0, label: 1.0 }, clipped: 0 };
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Records {
    data: Arc<Dataset>,
    bounds: GateBounds,
    clipped: usize,
}

impl Records {
    /// Passes every record of `data` through the gate with `bounds`: rules 1–2 on each feature
    /// vector, rules 1 and 3 on each label (a [`Dataset`] made by its constructors is finite
    /// already; the rules make sure of it). Errors name a bound the rules cannot take.
    pub fn gate(mut data: Dataset, bounds: GateBounds) -> Result<Self> {
        bounds.check()?;
        let clipped = data
            .features_mut()
            .map(|x| clip_ball(x, bounds.feature))
            .filter(|&c| c)
            .count();
        for y in data.labels_mut() {
            *y = clip_value(*y, bounds.label);
        }
        Ok(Self {
            data: Arc::new(data),
            bounds,
            clipped,
        })
    }

    /// Every `stride`-th record (from the first): a subset of gated records, gated to the same
    /// bounds. `stride` 0 is read as 1.
    pub fn every(&self, stride: usize) -> Self {
        let stride = stride.max(1);
        let d = self.data.d();
        let picked = (0..self.data.n()).step_by(stride);
        let x: Vec<f64> = picked
            .clone()
            .flat_map(|i| self.data.features(i))
            .copied()
            .collect();
        let y: Vec<f64> = picked.map(|i| self.data.label(i)).collect();
        let m = y.len();
        // A subset of gated records: finite and within the bounds already.
        let data = Dataset {
            x: nalgebra::DMatrix::from_vec(d, m, x),
            y,
        };
        Self {
            data: Arc::new(data),
            bounds: self.bounds,
            clipped: 0,
        }
    }

    /// The bounds the records were gated to.
    pub fn bounds(&self) -> GateBounds {
        self.bounds
    }

    /// The gated dataset, shared: what the objective and the solvers read.
    pub fn dataset(&self) -> &Arc<Dataset> {
        &self.data
    }

    /// How many feature vectors the gate shortened: computed from the data, a **non-private**
    /// diagnostic.
    pub fn clipped(&self) -> usize {
        self.clipped
    }
}

impl Deref for Records {
    type Target = Dataset;

    fn deref(&self) -> &Dataset {
        &self.data
    }
}

/// One part of a streamed record and the rule it passes: rule 2 (an ℓ2 ball) or rule 3 (each
/// entry in an interval), with its declared bound (+∞: finite only).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Segment {
    /// `len` entries gated together as a vector into the ball of radius `bound` (features).
    Ball {
        /// Entries in the segment.
        len: usize,
        /// The declared radius (> 0, +∞ for none).
        bound: f64,
    },
    /// `len` entries each clamped into [−`bound`, `bound`] (labels, payoff entries, a group
    /// index with `bound` +∞).
    Interval {
        /// Entries in the segment.
        len: usize,
        /// The declared bound (≥ 0, +∞ for none).
        bound: f64,
    },
}

/// The gate of a record stream (a game's records, regenerated from the seed each time they are
/// read): the record's layout as consecutive [`Segment`]s, each with its declared bound, fixed
/// when the game is posed. [`RecordGate::pass`] is the only way to make a [`Gated`] record, the
/// type the games' gradients and values read.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordGate {
    segments: Vec<Segment>,
}

impl RecordGate {
    /// The gate of records laid out as `segments`, in order.
    pub fn new(segments: Vec<Segment>) -> Self {
        Self { segments }
    }

    /// The entries of a record.
    pub fn len(&self) -> usize {
        self.segments
            .iter()
            .map(|s| match *s {
                Segment::Ball { len, .. } | Segment::Interval { len, .. } => len,
            })
            .sum()
    }

    /// Whether a record has no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Passes the record in `buf` (of [`RecordGate::len`] entries; a longer buffer's tail is not
    /// part of the record) through the gate: a segment already within its bound up to the
    /// rounding of one scaling (a relative 4·2⁻⁵², what a record the generator clipped can
    /// carry) is kept bit for bit, any other is clipped by its rule. The result is finite and
    /// within every bound up to that rounding, whatever `buf` held.
    pub fn pass<'a>(&self, buf: &'a mut [f64]) -> Gated<'a> {
        let record = &mut buf[..self.len()];
        let mut at = 0;
        for segment in &self.segments {
            match *segment {
                Segment::Ball { len, bound } => {
                    let x = &mut record[at..at + len];
                    let norm = norm2(x);
                    if !(norm.is_finite() && norm <= bound * (1.0 + 4.0 * f64::EPSILON)) {
                        clip_ball(x, bound);
                    }
                    at += len;
                }
                Segment::Interval { len, bound } => {
                    for v in &mut record[at..at + len] {
                        *v = clip_value(*v, bound);
                    }
                    at += len;
                }
            }
        }
        Gated { values: record }
    }
}

/// One streamed record after its stream's [`RecordGate`]: read-only, and made only by
/// [`RecordGate::pass`] (its field is private), so code that takes a `Gated` reads a record the
/// gate has seen.
///
/// ```compile_fail
/// use dp_core::data::gate::Gated;
/// let raw = [f64::INFINITY, 1.0];
/// let record = Gated { values: &raw };
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gated<'a> {
    values: &'a [f64],
}

impl Deref for Gated<'_> {
    type Target = [f64];

    fn deref(&self) -> &[f64] {
        self.values
    }
}

/// Rule 1: NaN → 0, ±∞ → ±`f64::MAX`, anything finite unchanged.
#[inline]
pub fn finite_entry(v: f64) -> f64 {
    if v.is_finite() {
        v
    } else if v.is_nan() {
        0.0
    } else {
        f64::MAX.copysign(v)
    }
}

/// Rule 1 on every entry of `x`; returns how many entries it changed (**non-private**).
pub fn finite_entries(x: &mut [f64]) -> usize {
    let mut changed = 0;
    for v in x.iter_mut().filter(|v| !v.is_finite()) {
        *v = finite_entry(*v);
        changed += 1;
    }
    changed
}

/// Rules 1 and 3: `v` made finite, then clamped to [−bound, bound] (`bound` ≥ 0, +∞ for none).
#[inline]
pub fn clip_value(v: f64, bound: f64) -> f64 {
    debug_assert!(bound >= 0.0, "a declared bound is ≥ 0");
    finite_entry(v).clamp(-bound, bound)
}

/// Rules 1 and 2: `x` made finite and scaled into the ℓ2 ball of radius `bound` (> 0, +∞ for
/// none), keeping its direction. Returns whether `x` changed (**non-private**).
pub fn clip_ball(x: &mut [f64], bound: f64) -> bool {
    debug_assert!(bound > 0.0, "a declared bound is > 0");
    let norm = norm2(x);
    if norm.is_finite() {
        // Every entry finite and the norm representable: the clip as it always was, same bits.
        if norm > bound {
            scale(bound / norm, x);
            return true;
        }
        return false;
    }
    // A NaN or infinite entry, or a norm beyond f64::MAX: rule 1, then prescale by the largest
    // magnitude m so that ‖x/m‖, in [1, √d], is computed without overflow.
    let repaired = finite_entries(x) > 0;
    let m = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if m == 0.0 {
        return repaired; // only NaN entries (and zeros): now the zero vector
    }
    let unit_norm = x.iter().map(|v| (v / m) * (v / m)).sum::<f64>().sqrt();
    // ‖x‖ = m·‖x/m‖ (∞ when beyond f64::MAX): within a bound of +∞ only.
    if m * unit_norm <= bound {
        return repaired;
    }
    let k = bound / unit_norm;
    x.iter_mut().for_each(|v| *v = (*v / m) * k);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Within the bound up to the rounding of one scaling.
    fn within(x: &[f64], bound: f64) -> bool {
        x.iter().all(|v| v.is_finite()) && norm2(x) <= bound * (1.0 + 4.0 * f64::EPSILON)
    }

    /// cos∠(a, b), computed on a/maxᵢ|aᵢ| and b/maxᵢ|bᵢ| so that no norm overflows.
    fn cosine(a: &[f64], b: &[f64]) -> f64 {
        let unit = |v: &[f64]| {
            let m = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            let w: Vec<f64> = v.iter().map(|x| x / m).collect();
            let n = norm2(&w);
            w.into_iter().map(|x| x / n).collect::<Vec<_>>()
        };
        unit(a).iter().zip(unit(b)).map(|(x, y)| x * y).sum()
    }

    #[test]
    fn nan_entries_become_zero_and_the_rest_is_clipped() {
        let mut x = [f64::NAN, 3.0, 4.0];
        assert!(clip_ball(&mut x, 1.0));
        assert_eq!(x[0], 0.0);
        assert!(within(&x, 1.0));
        assert!((x[1] - 0.6).abs() < 1e-15 && (x[2] - 0.8).abs() < 1e-15);
        let mut all_nan = [f64::NAN; 4];
        assert!(clip_ball(&mut all_nan, 1.0));
        assert_eq!(all_nan, [0.0; 4]);
        assert_eq!(clip_value(f64::NAN, 2.0), 0.0);
    }

    #[test]
    fn infinite_entries_keep_their_sign_and_the_record_its_direction() {
        // Today's clip: ‖x‖ = ∞, c/‖x‖ = 0 and ∞·0 = NaN.
        let mut x = [f64::INFINITY, 1.0, f64::NEG_INFINITY];
        assert!(clip_ball(&mut x, 2.0));
        assert!(within(&x, 2.0), "{x:?}");
        let r = 2.0 / 2f64.sqrt();
        assert!(
            (x[0] - r).abs() < 1e-15 && (x[2] + r).abs() < 1e-15,
            "{x:?}"
        );
        assert!(x[1] >= 0.0 && x[1] < 1e-300);
        assert_eq!(clip_value(f64::INFINITY, 3.0), 3.0);
        assert_eq!(clip_value(f64::NEG_INFINITY, 3.0), -3.0);
        assert_eq!(finite_entry(f64::NEG_INFINITY), -f64::MAX);
    }

    #[test]
    fn a_row_whose_norm_overflows_keeps_its_direction() {
        // Fifty entries of 1e308: ‖x‖ ≈ 7·10³⁰⁸ > f64::MAX (clipped to the zero vector).
        let raw = [1e308; 50];
        let mut x = raw;
        assert!(clip_ball(&mut x, 1.0));
        assert!(within(&x, 1.0));
        assert!((norm2(&x) - 1.0).abs() < 1e-14, "{}", norm2(&x));
        assert!((cosine(&x, &raw) - 1.0).abs() < 1e-14);
        // Every entry overflowing, with mixed signs and sizes.
        let raw: Vec<f64> = (0..7)
            .map(|j| if j % 2 == 0 { 1.7e308 } else { -0.9e308 })
            .collect();
        let mut x = raw.clone();
        assert!(clip_ball(&mut x, 3.5));
        assert!(within(&x, 3.5) && (norm2(&x) - 3.5).abs() < 1e-14);
        assert!((cosine(&x, &raw) - 1.0).abs() < 1e-14);
    }

    #[test]
    fn subnormal_records_are_kept_bit_for_bit() {
        let tiny = f64::MIN_POSITIVE / 8.0;
        let mut x = [tiny, -tiny, 0.0];
        assert!(!clip_ball(&mut x, 1.0));
        assert_eq!(x, [tiny, -tiny, 0.0]);
        // Within a subnormal bound too: ‖x‖ is computed without underflow.
        let mut x = [tiny, tiny];
        assert!(clip_ball(&mut x, tiny));
        assert!(norm2(&x) <= tiny * (1.0 + 1e-15) && x[0] > 0.0);
        assert_eq!(clip_value(tiny, 1.0), tiny);
    }

    #[test]
    fn in_bound_records_are_kept_and_finite_ones_clipped_as_before() {
        let mut x = [0.3, -0.4];
        assert!(!clip_ball(&mut x, 0.5));
        assert_eq!(x, [0.3, -0.4]);
        // A finite record above the bound: exactly the old c/‖x‖ scaling.
        let raw = [3.0, -4.0, 12.0];
        let mut x = raw;
        assert!(clip_ball(&mut x, 2.0));
        let k = 2.0 / norm2(&raw);
        assert_eq!(x, raw.map(|v| v * k));
    }

    #[test]
    fn the_gate_is_idempotent_on_what_it_lets_through() {
        for raw in [
            vec![f64::INFINITY, f64::NAN, -2.0],
            vec![1e308; 50],
            vec![0.1, 0.2],
            vec![f64::NEG_INFINITY],
        ] {
            let mut once = raw.clone();
            clip_ball(&mut once, 1.0);
            let mut twice = once.clone();
            if norm2(&once) <= 1.0 {
                assert!(!clip_ball(&mut twice, 1.0));
                assert_eq!(once, twice);
            }
            assert!(within(&once, 1.0), "{raw:?} → {once:?}");
        }
    }

    /// A dataset holding what its constructor refuses (±∞, NaN), as a record stream or a
    /// careless caller could: the gate must still end within the bounds.
    fn raw(d: usize, x: Vec<f64>, y: Vec<f64>) -> Dataset {
        let n = y.len();
        Dataset {
            x: nalgebra::DMatrix::from_vec(d, n, x),
            y,
        }
    }

    #[test]
    fn gated_records_are_finite_and_within_their_bounds_whatever_they_held() {
        let tiny = f64::MIN_POSITIVE / 8.0;
        let rows: [[f64; 3]; 7] = [
            [f64::INFINITY, 1.0, f64::NEG_INFINITY],
            [f64::NAN, f64::NAN, f64::NAN],
            [1e308, 1e308, -1e308],
            [f64::MAX, -f64::MAX, f64::MAX],
            [tiny, -tiny, 0.0],
            [0.1, -0.2, 0.05],
            [3.0, 4.0, 12.0],
        ];
        let labels = [
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1e308,
            tiny,
            -0.5,
            -7.0,
        ];
        let x: Vec<f64> = rows.iter().flatten().copied().collect();
        for (feature, label) in [(1.0, 2.0), (1e-6, 0.0), (1e6, 1e6), (tiny, tiny)] {
            let bounds = GateBounds { feature, label };
            let records = Records::gate(raw(3, x.clone(), labels.to_vec()), bounds).unwrap();
            assert_eq!(records.bounds(), bounds);
            assert_eq!(records.n(), rows.len());
            for (i, (xi, yi)) in records.samples().enumerate() {
                assert!(within(xi, feature), "bound {feature}, row {i}: {xi:?}");
                assert!(
                    yi.is_finite() && yi.abs() <= label,
                    "bound {label}, row {i}: {yi}"
                );
            }
            // A subset keeps its bounds and its values.
            let half = records.every(2);
            assert_eq!(half.bounds(), bounds);
            assert_eq!(half.n(), 4);
            assert_eq!(half.features(1), records.features(2));
            assert_eq!(half.label(3), records.label(6));
        }
        // In-bound records pass bit for bit; the others are counted (non-private diagnostic).
        let records = Records::gate(
            raw(3, x, labels.to_vec()),
            GateBounds {
                feature: 1.0,
                label: 2.0,
            },
        )
        .unwrap();
        assert_eq!(records.features(4), &[tiny, -tiny, 0.0]);
        assert_eq!(records.features(5), &[0.1, -0.2, 0.05]);
        assert_eq!(records.label(5), -0.5);
        assert_eq!(records.clipped(), 5);
        // No bound declared (+∞): finite only.
        let open = Records::gate(
            raw(1, vec![f64::NEG_INFINITY, 2.0], vec![f64::NAN, 1e308]),
            GateBounds {
                feature: f64::INFINITY,
                label: f64::INFINITY,
            },
        )
        .unwrap();
        assert_eq!(open.matrix_slice(), &[-f64::MAX, 2.0]);
        assert_eq!(open.labels(), &[0.0, 1e308]);
    }

    #[test]
    fn a_bound_the_rules_cannot_take_is_an_error_naming_it() {
        for (feature, label, field) in [
            (0.0, 1.0, "feature_bound"),
            (f64::NAN, 1.0, "feature_bound"),
            (1.0, -1.0, "label_bound"),
            (1.0, f64::NAN, "label_bound"),
        ] {
            let e = Records::gate(raw(1, vec![0.5], vec![0.5]), GateBounds { feature, label })
                .unwrap_err();
            assert_eq!(e.field(), Some(field), "{e}");
        }
    }

    #[test]
    fn a_streamed_record_is_gated_segment_by_segment_and_kept_when_within() {
        let gate = RecordGate::new(vec![
            Segment::Ball { len: 3, bound: 2.0 },
            Segment::Interval { len: 1, bound: 1.0 },
            Segment::Interval {
                len: 1,
                bound: f64::INFINITY,
            },
        ]);
        assert_eq!(gate.len(), 5);
        let tiny = f64::MIN_POSITIVE / 8.0;
        for raw in [
            [f64::INFINITY, f64::NAN, -1e308, f64::NEG_INFINITY, f64::NAN],
            [1e308, 1e308, 1e308, 1e308, f64::INFINITY],
            [tiny, -tiny, 0.0, tiny, 2.0],
            [3.0, 4.0, 0.0, -0.5, 1e308],
        ] {
            let mut buf = raw.to_vec();
            buf.push(f64::NAN); // beyond the record: not read, not touched
            let record = gate.pass(&mut buf);
            assert_eq!(record.len(), 5);
            assert!(within(&record[..3], 2.0), "{raw:?} → {record:?}");
            assert!(
                record[3].is_finite() && record[3].abs() <= 1.0,
                "{record:?}"
            );
            assert!(record[4].is_finite(), "{record:?}");
            assert!(buf[5].is_nan());
        }
        // Within the bounds (up to one scaling's rounding): kept bit for bit.
        let mut x = [1.2, -1.6, 0.0];
        clip_ball(&mut x, 2.0);
        let kept = [x[0], x[1], x[2], -0.5, 7.0];
        let mut buf = kept;
        assert_eq!(&*gate.pass(&mut buf), &kept);
        let mut buf = [3.0, 4.0, 0.0, -3.0, 7.0];
        let record = gate.pass(&mut buf);
        assert!((record[0] - 1.2).abs() < 1e-15 && (record[1] - 1.6).abs() < 1e-15);
        assert_eq!(record[3], -1.0);
    }

    #[test]
    fn an_infinite_bound_only_makes_entries_finite() {
        let mut x = [f64::INFINITY, f64::NAN, 5.0];
        assert!(clip_ball(&mut x, f64::INFINITY));
        assert_eq!(x, [f64::MAX, 0.0, 5.0]);
        let mut x = [1e308; 3];
        assert!(!clip_ball(&mut x, f64::INFINITY));
        assert_eq!(x, [1e308; 3]);
        assert_eq!(clip_value(f64::NEG_INFINITY, f64::INFINITY), -f64::MAX);
    }
}
