//! CSV loading: header optional, comma/semicolon/tab, CRLF and a UTF-8 BOM tolerated; the user
//! picks the label column. Parsing itself is the `csv` crate's; every malformed input becomes an
//! [`Error::Parse`] naming the (1-based) line and column.

use serde::{Deserialize, Serialize};

use super::Dataset;
use super::generate::MAX_VALUES;
use crate::error::{Error, Result};

/// Most columns a file may have (label included): beyond this the browser's memory and the
/// plots are no longer sensible for an in-tab laboratory.
pub const MAX_COLUMNS: usize = 1000;

/// Which column holds the label or target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LabelColumn {
    First,
    Last,
    /// 1-based column number, as a person counts.
    Number {
        number: usize,
    },
    /// Header name (requires a header).
    Name {
        name: String,
    },
}

/// The labels a loss accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LabelRange {
    /// Any finite number (regression).
    Real,
    /// Exactly −1 or +1 (margin losses).
    PlusMinusOne,
}

/// Options of [`load_csv`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CsvOptions {
    pub label: LabelColumn,
    /// `None`: detected from the first line (the most frequent of `,` `;` tab).
    #[serde(default)]
    pub delimiter: Option<char>,
    /// `None`: a header is assumed iff some cell of the first row is not a number.
    #[serde(default)]
    pub header: Option<bool>,
    pub labels: LabelRange,
}

fn parse_err(line: u64, col: usize, message: impl Into<String>) -> Error {
    Error::Parse {
        line: line as usize,
        col,
        message: message.into(),
    }
}

/// Line numbers of the csv crate's record positions, counted from the bytes (one line per '\n'),
/// incrementally: positions only move forward, so each byte is scanned once and loading stays
/// linear in the file's size (counting from byte 0 for every record made a 42 MB file take
/// minutes). On CRLF files the crate's positions (line and byte) point at the '\n' that ends the
/// previous record, so a '\n' at the position is skipped.
struct Lines<'a> {
    bytes: &'a [u8],
    /// Bytes before this index are counted…
    scanned: usize,
    /// …and hold this many '\n'.
    newlines: u64,
    /// Bytes read in all, for the test that guards linearity.
    work: usize,
}

impl<'a> Lines<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Lines {
            bytes,
            scanned: 0,
            newlines: 0,
            work: 0,
        }
    }

    /// The 1-based line of the record starting at byte `offset`.
    fn line_of(&mut self, offset: u64) -> u64 {
        let mut end = usize::try_from(offset).map_or(self.bytes.len(), |o| o.min(self.bytes.len()));
        if self.bytes.get(end) == Some(&b'\n') {
            end += 1;
        }
        if end < self.scanned {
            // Not reached (positions never move back), but stay right if they do.
            self.scanned = 0;
            self.newlines = 0;
        }
        let fresh = &self.bytes[self.scanned..end];
        // Counted in chunks of 255 with a byte-wide tally, which vectorises (a `usize` count per
        // byte was an eighth of the loading time).
        self.newlines += fresh
            .chunks(255)
            .map(|c| u64::from(c.iter().fold(0u8, |n, &b| n + u8::from(b == b'\n'))))
            .sum::<u64>();
        self.work += fresh.len();
        self.scanned = end;
        1 + self.newlines
    }
}

fn detect_delimiter(text: &[u8]) -> u8 {
    let first = text.split(|&b| b == b'\n').next().unwrap_or(&[]);
    let count = |c: u8| first.iter().filter(|&&b| b == c).count();
    let mut best = (b',', count(b','));
    for c in [b';', b'\t'] {
        if count(c) > best.1 {
            best = (c, count(c));
        }
    }
    best.0
}

fn parse_cell(cell: &str, line: u64, col: usize) -> Result<f64> {
    if cell.is_empty() {
        return Err(parse_err(line, col, "empty cell, expected a number"));
    }
    match cell.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => Err(parse_err(
            line,
            col,
            format!("'{cell}' is not a finite number"),
        )),
        Err(_) => Err(parse_err(line, col, format!("'{cell}' is not a number"))),
    }
}

/// Reads a numeric CSV into a [`Dataset`] (features = every column but the label).
pub fn load_csv(bytes: &[u8], opts: &CsvOptions) -> Result<Dataset> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    read(bytes, opts, &mut Lines::new(bytes))
}

/// [`load_csv`] after the BOM, numbering lines with `lines` (over the same bytes).
fn read(bytes: &[u8], opts: &CsvOptions, lines: &mut Lines) -> Result<Dataset> {
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(parse_err(1, 1, "the file is empty"));
    }
    let delimiter = match opts.delimiter {
        Some(c) if matches!(c, ',' | ';' | '\t') => c as u8,
        Some(c) => {
            return Err(Error::invalid(
                "csv.delimiter",
                "',', ';' or a tab",
                format!("{c:?}"),
            ));
        }
        None => detect_delimiter(bytes),
    };
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        // Cells are trimmed here as they are read: the crate's `Trim::All` rebuilds every record
        // twice (ASCII, then Unicode whitespace), which more than doubled the loading time.
        .from_reader(bytes);
    let mut record = csv::StringRecord::new();
    let mut first = true;
    let mut width = 0usize;
    let mut label_idx = 0usize;
    let mut x = Vec::new();
    let mut y = Vec::new();
    let mut first_line = 1u64;
    let mut first_data_line = 0u64;
    loop {
        let more = reader.read_record(&mut record).map_err(|e| {
            let line = e.position().map(|p| lines.line_of(p.byte())).unwrap_or(0);
            let message = match e.kind() {
                csv::ErrorKind::Utf8 { .. } => "the file is not valid UTF-8 text".to_string(),
                _ => e.to_string(),
            };
            let col = match e.kind() {
                csv::ErrorKind::Utf8 { err, .. } => err.field() + 1,
                _ => 1,
            };
            parse_err(line, col, message)
        })?;
        if !more {
            break;
        }
        let line = record
            .position()
            .map(|p| lines.line_of(p.byte()))
            .unwrap_or(0);
        // A line holding only whitespace is skipped like an empty one.
        if record.len() == 1 && record[0].trim().is_empty() {
            continue;
        }
        if first {
            first = false;
            first_line = line;
            width = record.len();
            if width > MAX_COLUMNS {
                return Err(parse_err(
                    line,
                    MAX_COLUMNS + 1,
                    format!("{width} columns: at most {MAX_COLUMNS} are supported in the browser"),
                ));
            }
            if width < 2 {
                return Err(parse_err(
                    line,
                    1,
                    "one column only: need at least one feature column and a label column",
                ));
            }
            let header = match opts.header {
                Some(h) => h,
                None => record.iter().any(|c| c.trim().parse::<f64>().is_err()),
            };
            label_idx = match &opts.label {
                LabelColumn::First => 0,
                LabelColumn::Last => width - 1,
                LabelColumn::Number { number } => {
                    if *number == 0 || *number > width {
                        return Err(parse_err(
                            line,
                            1,
                            format!(
                                "label column {number} does not exist: the file has {width} columns"
                            ),
                        ));
                    }
                    number - 1
                }
                LabelColumn::Name { name } => {
                    if !header {
                        return Err(parse_err(
                            line,
                            1,
                            format!("no header row to find the label column '{name}' in"),
                        ));
                    }
                    match record.iter().position(|c| c.trim() == name) {
                        Some(i) => i,
                        None => {
                            return Err(parse_err(
                                line,
                                1,
                                format!("no column named '{name}' in the header"),
                            ));
                        }
                    }
                }
            };
            if header {
                continue;
            }
        }
        if record.len() != width {
            return Err(parse_err(
                line,
                record.len().min(width) + 1,
                format!(
                    "{} fields, expected {width} like line {first_line}",
                    record.len()
                ),
            ));
        }
        if (y.len() + 1) * (width - 1) > MAX_VALUES {
            return Err(parse_err(
                line,
                1,
                format!("too many values: at most {MAX_VALUES} fit in the browser"),
            ));
        }
        if first_data_line == 0 {
            first_data_line = line;
        }
        for (j, cell) in record.iter().map(str::trim).enumerate() {
            let v = parse_cell(cell, line, j + 1)?;
            if j == label_idx {
                if opts.labels == LabelRange::PlusMinusOne && v != 1.0 && v != -1.0 {
                    return Err(parse_err(
                        line,
                        j + 1,
                        format!("label {cell} is outside the loss's range: expected -1 or +1"),
                    ));
                }
                y.push(v);
            } else {
                x.push(v);
            }
        }
    }
    match y.len() {
        0 => Err(parse_err(first_line, 1, "a header but no data rows")),
        1 => Err(parse_err(
            first_data_line,
            1,
            "a single data row: need at least 2 samples",
        )),
        _ => Dataset::from_samples(width - 1, x, y),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 18 item 1: numbering the lines of a file reads each of its bytes once, whatever
    /// the number of records, on success and on an error at the last line (the line counter
    /// used to re-read the file from byte 0 for every record: quadratic work).
    #[test]
    fn line_numbers_read_each_byte_once() {
        let opts = CsvOptions {
            label: LabelColumn::Last,
            delimiter: None,
            header: None,
            labels: LabelRange::Real,
        };
        let rows = 20_000;
        let mut text = String::from("x1;x2;y\r\n");
        for i in 0..rows {
            text += &format!("{i};0.5;-{i}\r\n");
        }
        let bytes = text.as_bytes();
        let mut lines = Lines::new(bytes);
        let data = read(bytes, &opts, &mut lines).unwrap();
        assert_eq!(data.n(), rows);
        assert!(lines.work <= bytes.len(), "{} bytes read", lines.work);

        text += "1;six;2\r\n";
        let bytes = text.as_bytes();
        let mut lines = Lines::new(bytes);
        match read(bytes, &opts, &mut lines) {
            Err(Error::Parse { line, col, .. }) => assert_eq!((line, col), (rows + 2, 2)),
            other => panic!("expected a parse error, got {other:?}"),
        }
        assert!(lines.work <= bytes.len(), "{} bytes read", lines.work);
    }

    #[test]
    fn line_numbers_match_a_count_from_the_start() {
        // Lines of 0 to 600 bytes, so that the gap between two positions spans counting chunks,
        // and runs of blank lines (chunks full of '\n').
        let mut text = Vec::new();
        for i in 0..400 {
            text.extend(std::iter::repeat_n(b'1', (i * 37) % 601));
            text.extend(std::iter::repeat_n(b'\n', 1 + (i % 7) * (i % 3) * 20));
        }
        let naive = |end: usize| 1 + text[..end].iter().filter(|&&b| b == b'\n').count() as u64;
        let mut lines = Lines::new(&text);
        for offset in (0..text.len() as u64).step_by(613) {
            let mut end = offset as usize;
            if text[end] == b'\n' {
                end += 1;
            }
            assert_eq!(lines.line_of(offset), naive(end), "offset {offset}");
        }
    }
}
