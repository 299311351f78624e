//! `cargo bench --bench csv`: loading a numeric CSV file ([`load_csv`]) against a plain pass of the
//! `csv` crate over the same bytes (every record read into a `StringRecord`, nothing parsed), at
//! two sizes ten times apart: 10⁴ and 10⁵ rows of 21 columns (about 4 and 42 MB, each cell a
//! full-precision float). Issue 18 item 1's goal: the ratio is at most 2 at both sizes (so loading
//! is linear in the file's size, like the plain pass).

use std::hint::black_box;
use std::time::Instant;

use dp_playground::data::{CsvOptions, LabelColumn, LabelRange, load_csv};

/// `rows` rows of `cols` comma-separated floats printed at full precision, with a header.
fn file(rows: usize, cols: usize) -> Vec<u8> {
    let mut text = (1..=cols)
        .map(|j| format!("c{j}"))
        .collect::<Vec<_>>()
        .join(",");
    text.push('\n');
    for i in 0..rows {
        for j in 0..cols {
            let v = ((i * cols + j) as f64 * 0.618_033_988_749_895).sin() * 3.7;
            text += &v.to_string();
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

fn main() {
    let opts = CsvOptions {
        label: LabelColumn::Last,
        delimiter: None,
        header: None,
        labels: LabelRange::Real,
    };
    let cols = 21;
    println!("load_csv / plain csv pass (min/min, and the median of per-turn ratios; goal ≤ 2):");
    for (rows, turns) in [(10_000, 20), (100_000, 5)] {
        let bytes = file(rows, cols);
        let mb = bytes.len() as f64 / 1e6;
        // The two passes take turns, so each ratio compares passes run under the same load (the
        // machine is shared).
        let (mut plain, mut load) = (Vec::new(), Vec::new());
        for _ in 0..turns {
            let s = Instant::now();
            black_box(plain_pass(black_box(&bytes)));
            plain.push(s.elapsed().as_secs_f64());
            let s = Instant::now();
            let data = load_csv(black_box(&bytes), &opts).unwrap();
            load.push(s.elapsed().as_secs_f64());
            assert_eq!((data.n(), data.d()), (rows, cols - 1));
        }
        let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
        let mut per_turn: Vec<f64> = load.iter().zip(&plain).map(|(l, p)| l / p).collect();
        per_turn.sort_by(f64::total_cmp);
        println!(
            "  {rows:>7} rows × {cols} columns ({mb:5.1} MB): plain {:7.1} ms ({:5.0} MB/s), load {:7.1} ms ({:5.0} MB/s), ratio {:.2} ({:.2})",
            min(&plain) * 1e3,
            mb / min(&plain),
            min(&load) * 1e3,
            mb / min(&load),
            min(&load) / min(&plain),
            per_turn[per_turn.len() / 2],
        );
    }
}
