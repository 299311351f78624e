//! What a run exports, in the one format the page's Export buttons and the terminal binary both
//! write: the run JSON (a `private` part and a NOT private `diagnostics` part, kept apart) and
//! the per-step diagnostics CSV (NOT private).
//!
//! A [`Record`] keeps every slice a [`Lab`] hands out (the page's worker and `dp-playground run`
//! feed it the same slices); [`run_json`] and [`run_csv`] turn it into the files. The private part
//! itself is defined once, in [`publish::private_part`].

use std::collections::BTreeMap;

use serde::Serialize;

use crate::config::AlgorithmKind;
use crate::error::Result;
use crate::reference::{Estimate, Reference};

use super::lab::{Lab, LaneBatch};
use super::problem::Posed;
use super::publish::{self, PrivatePart, Released};
use super::run::Release;

/// The diagnostics CSV's file name: it says NOT PRIVATE, so a file that travels alone says it.
pub const DIAGNOSTICS_CSV: &str = "dp-playground-diagnostics-NOT-PRIVATE.csv";
/// The run JSON's file name.
pub const RUN_JSON: &str = "dp-playground-run.json";

const DIAGNOSTICS_NOTE: &str = "NOT PRIVATE. Diagnostics computed from the raw data and the noise: \
losses, excess risks, the reference optimum, plane coordinates (the plane goes through w*), named \
diagnostics (a certificate …), clip counts and, in the diagnostics CSV, every iterate and every \
noise norm. With the path, the noise norms tell neighbouring datasets apart. No guarantee covers \
any of this; only the `private` part is covered by its guarantee.";

const CSV_HEADER: &str =
    "algorithm,repeat,step,grad_evals,loss,excess,a,b,noise_norm,eps_spent,release_row";

/// One lane's columns, appended slice by slice (the page's history of that lane).
#[derive(Debug, Clone, Default)]
struct LaneRecord {
    grad_evals: Vec<f64>,
    loss: Vec<f64>,
    excess: Vec<f64>,
    path: Vec<f64>,
    noise_norm: Vec<f64>,
    eps_spent: Vec<f64>,
    release: Option<Release>,
    /// The named diagnostics where the lane last reported any (a certificate …).
    diagnostics: BTreeMap<&'static str, f64>,
}

/// Everything the lanes of a [`Lab`] have reported, lane by lane (algorithm-major, as the Lab
/// orders them). NOT private: it holds every iterate and noise norm.
#[derive(Debug, Clone)]
pub struct Record {
    repeats: usize,
    lanes: Vec<LaneRecord>,
}

impl Record {
    /// An empty record for `lab`'s lanes.
    pub fn new(lab: &Lab) -> Self {
        let repeats = lab.config().repeats;
        Self {
            repeats,
            lanes: vec![LaneRecord::default(); lab.previews().len() * repeats],
        }
    }

    /// Appends one slice (what [`Lab::advance`] returned).
    pub fn absorb(&mut self, slice: &[LaneBatch]) {
        for lb in slice {
            let Some(lane) = self.lanes.get_mut(lb.algorithm * self.repeats + lb.repeat) else {
                continue;
            };
            let b = &lb.batch;
            lane.grad_evals.extend(&b.grad_evals);
            lane.loss.extend(&b.loss);
            lane.excess.extend(&b.excess);
            lane.path.extend(&b.path);
            lane.noise_norm.extend(&b.noise_norm);
            lane.eps_spent.extend(&b.epsilon_spent);
            if let Some(r) = &b.release {
                lane.release = Some(r.clone());
            }
            if !b.diagnostics.is_empty() {
                lane.diagnostics = b.diagnostics.iter().map(|d| (d.name, d.value)).collect();
            }
        }
    }

    /// Every lane with its (algorithm, repeat) indices, in the Lab's order.
    fn lanes(&self) -> impl Iterator<Item = (usize, usize, &LaneRecord)> {
        self.lanes
            .iter()
            .enumerate()
            .map(|(i, l)| (i / self.repeats, i % self.repeats, l))
    }

    /// Every release made so far: (algorithm index, repeat, release), in the Lab's order.
    pub fn releases(&self) -> impl Iterator<Item = (usize, usize, &Release)> {
        self.lanes()
            .filter_map(|(a, r, l)| l.release.as_ref().map(|rel| (a, r, rel)))
    }
}

/// Runs every lane of `lab` to its release, recording every slice.
pub fn run_to_end(lab: &mut Lab) -> Record {
    let mut record = Record::new(lab);
    while !lab.is_done() {
        record.absorb(&lab.advance(usize::MAX, || true));
    }
    record
}

#[derive(Serialize)]
struct RunExport<'a> {
    private: PrivatePart,
    diagnostics: Diagnostics<'a>,
}

#[derive(Serialize)]
struct Diagnostics<'a> {
    note: &'static str,
    reference: Option<&'a Reference>,
    clipped: usize,
    releases: Vec<DiagnosticRelease<'a>>,
    per_step: String,
}

#[derive(Serialize)]
struct DiagnosticRelease<'a> {
    algorithm: AlgorithmKind,
    repeat: usize,
    plane: [f64; 2],
    loss: f64,
    excess: Option<f64>,
    population: Option<Estimate>,
    /// A game's own readout (AUC maximisation's AUC of the release and the reference).
    #[serde(skip_serializing_if = "Option::is_none")]
    readout: Option<crate::minimax::Readout>,
    /// The run's named diagnostics (a certificate's bound, threshold, met …).
    diagnostics: &'a BTreeMap<&'static str, f64>,
    /// What happened on these data (a fallback, an abort); the private ledger leaves it out.
    events: &'a [String],
}

/// The run as one JSON document (pretty, two-space indent) in two parts that cannot be mistaken
/// for each other: `private` ([`publish::private_part`]: the released points, their ledgers, the
/// settings and the guarantee of all releases together) and `diagnostics` (everything else, NOT
/// private). Only lanes that have released appear.
pub fn run_json(lab: &Lab, record: &Record) -> Result<String> {
    let released = record
        .releases()
        .map(|(a, r, rel)| Released {
            algorithm: a,
            repeat: r,
            published: rel.published.clone(),
            ledger: rel.ledger.clone(),
        })
        .collect();
    let private = publish::private_part(lab.config(), released)?;
    let kind = |a: usize| lab.previews()[a].kind;
    let releases = record
        .lanes()
        .filter_map(|(a, r, l)| {
            let rel = l.release.as_ref()?;
            Some(DiagnosticRelease {
                algorithm: kind(a),
                repeat: r,
                plane: rel.plane,
                loss: rel.loss,
                excess: rel.excess,
                population: rel.population,
                readout: rel.readout,
                diagnostics: &l.diagnostics,
                events: &rel.ledger.events,
            })
        })
        .collect();
    let (reference, clipped) = match lab.posed() {
        Posed::Min(problem) => (problem.reference.as_ref().ok(), problem.clipped),
        Posed::Saddle(_) => (None, 0),
    };
    let export = RunExport {
        private,
        diagnostics: Diagnostics {
            note: DIAGNOSTICS_NOTE,
            reference,
            clipped,
            releases,
            per_step: format!(
                "every iterate and noise norm: the diagnostics CSV ({DIAGNOSTICS_CSV})"
            ),
        },
    };
    // Plain data with string keys (NaN becomes null): serialisation cannot fail.
    Ok(serde_json::to_string_pretty(&export).unwrap_or_default())
}

/// A CSV cell: the shortest decimal that reads back to the same f64 (as the JSON writes it),
/// empty for NaN and ±∞.
pub fn cell(v: f64) -> String {
    serde_json::Number::from_f64(v).map_or(String::new(), |n| n.to_string())
}

/// The diagnostics as CSV, one row per iterate of every lane (algorithm × repeat). NOT PRIVATE:
/// every column is computed from the raw data and the noise (noise_norm with the path a, b names
/// the dataset). `release_row` flags each lane's release row (1); the released point itself, with
/// its guarantee, is in the run JSON's private part.
pub fn run_csv(lab: &Lab, record: &Record) -> String {
    let mut out = String::from(CSV_HEADER);
    out.push('\n');
    for (a, r, lane) in record.lanes() {
        let kind = lab.previews()[a].kind.key();
        let n = lane.grad_evals.len();
        for i in 0..n {
            let release_row = lane.release.is_some() && i + 1 == n;
            let at = |c: &[f64], j: usize| c.get(j).copied().unwrap_or(f64::NAN);
            let cells = [
                at(&lane.grad_evals, i),
                at(&lane.loss, i),
                at(&lane.excess, i),
                at(&lane.path, 2 * i),
                at(&lane.path, 2 * i + 1),
                at(&lane.noise_norm, i),
                at(&lane.eps_spent, i),
            ]
            .map(cell)
            .join(",");
            out.push_str(&format!(
                "{kind},{r},{i},{cells},{}\n",
                u8::from(release_row)
            ));
        }
    }
    out
}
