//! Datasets: samples stored contiguously, one column of a d × n column-major matrix per sample
//! (docs/ARCHITECTURE.md, Performance), so a full pass over the data is one linear sweep through memory.
//!
//! - [`generate`] / [`Generator`]: seeded synthetic classification and regression with Gaussian,
//!   Student-t, Pareto-radial, log-normal and contaminated features and noise; the generator
//!   yields chunks (a worker can yield between them) with the same bits as one-shot generation.
//! - [`lipschitz_moment`], [`clip_fraction`], [`Tail::norm_moment`]: the tail moments G_k and clip
//!   fractions the heavy-tailed theory needs, closed form or labelled Monte Carlo on fresh draws.
//! - [`load_csv`]: numeric CSV with line/column errors; [`CsvFile`] keeps a file read once and
//!   checks its labels against each loss (the page parses a file once, not once per run).
//! - [`gate`]: the record gate, one total clip every record passes (NaN, ±∞, overflowing norms
//!   to a finite record within the declared bound, by a rule fixed in advance), and
//!   [`gate::Records`], the gated dataset the session's problem holds: it can only be made by
//!   the gate, and carries the bounds it was gated to.
//! - [`clip_features`], [`clip_labels`], [`clip_rows`]: data-independent clipping to declared
//!   bounds, by the gate's rule (per-sample gradient clipping:
//!   `objective::Objective::clipped_gradient`).

mod clip;
mod csv_load;
pub mod gate;
mod generate;
mod huge_pages;
mod moments;
mod sparse;
mod synthetic;

pub use clip::{clip_features, clip_labels, clip_rows, fraction_above};
pub use csv_load::{
    CsvFile, CsvOptions, LabelColumn, LabelRange, MAX_COLUMNS, MAX_CSV_BYTES, MAX_LINE_BYTES,
    check_csv_size, load_csv,
};
pub use generate::{Generator, GeneratorSpec, Link, MAX_VALUES, Tail, Task, generate};
pub use moments::{Method, Moment, clip_fraction, lipschitz_moment, squared_loss_moment};
pub use sparse::{SparseSpec, generate_sparse};
pub use synthetic::{ClassificationSpec, generate_classification, planted_direction};

use nalgebra::DMatrix;

use crate::error::{Error, Result};

/// n labelled samples in R^d.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    /// d × n, column i is sample i.
    x: DMatrix<f64>,
    /// One label (±1 for classification) or target per sample.
    y: Vec<f64>,
}

impl Dataset {
    /// Builds a dataset from a d × n feature matrix and n labels.
    pub fn new(x: DMatrix<f64>, y: Vec<f64>) -> Result<Self> {
        if x.ncols() != y.len() {
            return Err(Error::DimensionMismatch {
                what: "labels",
                expected: x.ncols(),
                got: y.len(),
            });
        }
        if x.iter().chain(&y).any(|v| !v.is_finite()) {
            return Err(Error::NonFinite { what: "dataset" });
        }
        Ok(Self { x, y })
    }

    /// Number of samples.
    pub fn n(&self) -> usize {
        self.y.len()
    }

    /// Dimension of a sample.
    pub fn d(&self) -> usize {
        self.x.nrows()
    }

    /// Features of sample `i`.
    #[inline]
    pub fn features(&self, i: usize) -> &[f64] {
        let d = self.d();
        &self.x.as_slice()[i * d..(i + 1) * d]
    }

    /// Label of sample `i`.
    #[inline]
    pub fn label(&self, i: usize) -> f64 {
        self.y[i]
    }

    /// Iterates over (features, label) pairs in memory order.
    pub fn samples(&self) -> impl Iterator<Item = (&[f64], f64)> {
        let d = self.d().max(1);
        self.x
            .as_slice()
            .chunks_exact(d)
            .zip(self.y.iter().copied())
    }

    /// All features, sample after sample (the d × n matrix in column-major order).
    #[inline]
    pub fn matrix_slice(&self) -> &[f64] {
        self.x.as_slice()
    }

    /// The d × n feature matrix.
    pub fn matrix(&self) -> &DMatrix<f64> {
        &self.x
    }

    /// All labels or targets.
    #[inline]
    pub fn labels(&self) -> &[f64] {
        &self.y
    }

    /// Builds a dataset of dimension `d` from features stored sample after sample.
    pub fn from_samples(d: usize, features: Vec<f64>, y: Vec<f64>) -> Result<Self> {
        if d == 0 || features.len() != d * y.len() {
            return Err(Error::DimensionMismatch {
                what: "features",
                expected: d * y.len(),
                got: features.len(),
            });
        }
        let n = y.len();
        Self::new(DMatrix::from_vec(d, n, features), y)
    }

    pub(crate) fn labels_mut(&mut self) -> &mut [f64] {
        &mut self.y
    }

    pub(crate) fn features_mut(&mut self) -> impl Iterator<Item = &mut [f64]> {
        let d = self.d().max(1);
        self.x.as_mut_slice().chunks_exact_mut(d)
    }
}
