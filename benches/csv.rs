//! `cargo bench --bench csv`: loading a numeric CSV file ([`load_csv`]) against a plain pass of the
//! `csv` crate over the same bytes (every record read into a `StringRecord`, nothing parsed), and
//! against that pass when it also parses every cell with `str::parse::<f64>` (what a loader built
//! on the crate's records does), at two sizes ten times apart: 10⁴ and 10⁵ rows of 21 columns
//! (about 4 and 40 MB with full-precision floats; 1.6 and 16 MB with 4 decimals). The goal is
//! loading within 2× of the plain pass at both sizes, and linear: the last lines print
//! each pass's time at the larger size over its time at the smaller (10 for a linear pass).

use std::hint::black_box;
use std::time::Instant;

use dp_playground::data::{CsvOptions, LabelColumn, LabelRange, load_csv};

/// `rows` rows of `cols` comma-separated floats with a header, printed at full precision
/// (`decimals` = None, as a program writes them) or with a few decimals (as a person rounds them).
fn file(rows: usize, cols: usize, decimals: Option<usize>) -> Vec<u8> {
    let mut text = (1..=cols)
        .map(|j| format!("c{j}"))
        .collect::<Vec<_>>()
        .join(",");
    text.push('\n');
    for i in 0..rows {
        for j in 0..cols {
            let v = ((i * cols + j) as f64 * 0.618_033_988_749_895).sin() * 3.7;
            text += &match decimals {
                Some(k) => format!("{v:.k$}"),
                None => v.to_string(),
            };
            text.push(if j + 1 == cols { '\n' } else { ',' });
        }
    }
    text.into_bytes()
}

/// The plain pass: the csv crate's default reader, every record read, no number parsed.
fn plain_pass(bytes: &[u8]) -> usize {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(bytes);
    let mut record = csv::StringRecord::new();
    let mut fields = 0;
    while reader.read_record(&mut record).unwrap() {
        fields += record.len();
    }
    fields
}

/// The plain pass, also parsing every cell as a float.
fn parsing_pass(bytes: &[u8]) -> f64 {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(bytes);
    let mut record = csv::StringRecord::new();
    let mut sum = 0.0;
    while reader.read_record(&mut record).unwrap() {
        sum += record
            .iter()
            .map(|c| c.parse::<f64>().unwrap_or(0.0))
            .sum::<f64>();
    }
    sum
}

fn main() {
    let opts = CsvOptions {
        label: LabelColumn::Last,
        delimiter: None,
        header: None,
        labels: LabelRange::Real,
    };
    let cols = 21;
    println!(
        "load_csv against a plain csv pass, then against the pass that parses every cell: min/min, (median of per-turn ratios); goal ≤ 2 against the plain pass"
    );
    // (format, plain and load medians) per size, for the growth lines.
    let mut growth: Vec<(String, f64, f64)> = Vec::new();
    for (decimals, rows, turns) in [
        (None, 10_000, 20),
        (None, 100_000, 5),
        (Some(4), 10_000, 20),
        (Some(4), 100_000, 5),
    ] {
        let bytes = file(rows, cols, decimals);
        let mb = bytes.len() as f64 / 1e6;
        // The three passes take turns, so each ratio compares passes run under the same load (the
        // machine is shared).
        let mut times = [const { Vec::new() }; 3];
        for _ in 0..turns {
            let s = Instant::now();
            black_box(plain_pass(black_box(&bytes)));
            times[0].push(s.elapsed().as_secs_f64());
            let s = Instant::now();
            black_box(parsing_pass(black_box(&bytes)));
            times[1].push(s.elapsed().as_secs_f64());
            let s = Instant::now();
            let data = load_csv(black_box(&bytes), &opts).unwrap();
            times[2].push(s.elapsed().as_secs_f64());
            assert_eq!((data.n(), data.d()), (rows, cols - 1));
        }
        let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
        let median = |v: &[f64]| {
            let mut v = v.to_vec();
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let format = decimals.map_or("full precision".to_string(), |k| format!("{k} decimals"));
        growth.push((format.clone(), median(&times[0]), median(&times[2])));
        let ratio = |k: usize| {
            let mut per_turn: Vec<f64> =
                times[2].iter().zip(&times[k]).map(|(l, p)| l / p).collect();
            per_turn.sort_by(f64::total_cmp);
            format!(
                "{:.2} ({:.2})",
                min(&times[2]) / min(&times[k]),
                per_turn[per_turn.len() / 2]
            )
        };
        println!(
            "  {rows:>7} rows × {cols} columns, {:>14} ({mb:4.1} MB): plain {:6.1} ms, parsing {:6.1} ms, load {:6.1} ms ({:4.0} MB/s); load/plain {}, load/parsing {}",
            format,
            min(&times[0]) * 1e3,
            min(&times[1]) * 1e3,
            min(&times[2]) * 1e3,
            mb / min(&times[2]),
            ratio(0),
            ratio(1),
        );
    }
    println!("time at 10⁵ rows over time at 10⁴ rows (medians; 10 is linear):");
    for pair in growth.chunks(2) {
        let [(format, plain0, load0), (_, plain1, load1)] = pair else {
            continue;
        };
        println!(
            "  {format:>14}: plain {:.1}, load {:.1}",
            plain1 / plain0,
            load1 / load0
        );
    }
}
