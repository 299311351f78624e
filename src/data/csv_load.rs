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

/// Largest file [`load_csv`] reads (1 GiB), checked before any parsing. The file is copied into
/// the wasm memory, which stops at 4 GiB in all, beside the numbers read from it (at most
/// [`MAX_VALUES`] = 2²⁵ of them, 256 MiB) and the run; 1 GiB holds the largest data set the page
/// accepts written with up to 32 characters per number (a full-precision float takes at most 24).
pub const MAX_CSV_BYTES: usize = 1 << 30;

/// Refuses a file of `bytes` bytes over [`MAX_CSV_BYTES`], at the page's CSV control, saying why.
/// The page asks before reading the file into memory.
pub fn check_csv_size(bytes: usize) -> Result<()> {
    if bytes <= MAX_CSV_BYTES {
        return Ok(());
    }
    Err(Error::invalid(
        "csv",
        format!(
            "a file of at most {} MiB: the browser tab holds the file and its numbers in a memory of at most 4 GiB; keep fewer rows or columns, or round the numbers",
            MAX_CSV_BYTES >> 20
        ),
        format!("{} MiB", bytes >> 20),
    ))
}

/// Most characters of a cell a message echoes: a cell of a million characters is shown by its
/// start.
const SHOWN_CHARS: usize = 40;

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

impl LabelColumn {
    /// The page's label-column field as a person types it: empty or "last", "first", a 1-based
    /// column number, or else a header name.
    pub fn from_page(text: &str) -> LabelColumn {
        match text.trim() {
            "" | "last" => LabelColumn::Last,
            "first" => LabelColumn::First,
            t => t
                .parse::<usize>()
                .map(|number| LabelColumn::Number { number })
                .unwrap_or_else(|_| LabelColumn::Name {
                    name: t.to_string(),
                }),
        }
    }
}

impl CsvOptions {
    /// The options the page loads a file with: the label column as typed (see
    /// [`LabelColumn::from_page`]), delimiter and header detected, and ±1 labels for a margin
    /// loss (`margin`), any finite label otherwise.
    pub fn for_page(label: &str, margin: bool) -> CsvOptions {
        CsvOptions {
            label: LabelColumn::from_page(label),
            delimiter: None,
            header: None,
            labels: if margin {
                LabelRange::PlusMinusOne
            } else {
                LabelRange::Real
            },
        }
    }
}

fn parse_err(line: u64, col: usize, message: impl Into<String>) -> Error {
    Error::Parse {
        line: line as usize,
        col,
        message: message.into(),
    }
}

/// Line numbers of the csv crate's record positions, counted from the bytes (one line per '\n',
/// and per '\r' that no '\n' follows: the crate ends records at either, so old Mac files end their
/// lines with '\r' alone),
/// incrementally: positions only move forward, so each byte is scanned once and loading stays
/// linear in the file's size (counting from byte 0 for every record made a 42 MB file take
/// minutes). The crate's position of a record can point at the line ends before it (the '\n' of
/// a CRLF, the blank lines it skipped), so the line ends at a position are skipped.
struct Lines<'a> {
    bytes: &'a [u8],
    /// Bytes before this index are counted…
    scanned: usize,
    /// …and hold this many line ends.
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
        // The record starts after any line ends at its position.
        while matches!(self.bytes.get(end), Some(b'\n' | b'\r')) {
            end += 1;
        }
        if end < self.scanned {
            // Not reached (positions never move back), but stay right if they do.
            self.scanned = 0;
            self.newlines = 0;
        }
        let fresh = &self.bytes[self.scanned..end];
        // Counted in chunks of 255 with byte-wide tallies, which vectorise (a `usize` count per
        // byte was an eighth of the loading time): the '\n', and the '\r' that no '\n' follows,
        // which only a chunk holding a '\r' looks for (one the next byte of the file may follow).
        let tally = |c: &[u8], x: u8| c.iter().fold(0u8, |k, &b| k + u8::from(b == x));
        let mut at = self.scanned;
        for c in fresh.chunks(255) {
            at += c.len();
            self.newlines += u64::from(tally(c, b'\n'));
            if tally(c, b'\r') > 0 {
                let next = self.bytes[at - c.len() + 1..(at + 1).min(self.bytes.len())].iter();
                let lone = |(&b, &n): (&u8, &u8)| u8::from(b == b'\r' && n != b'\n');
                self.newlines += u64::from(c.iter().zip(next).map(lone).sum::<u8>());
                if at == self.bytes.len() && c[c.len() - 1] == b'\r' {
                    // The file's last byte.
                    self.newlines += 1;
                }
            }
        }
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

/// Characters no one sees in a cell, by name: a cell "\u{feff}3" shows as "3".
const INVISIBLE: [(char, &str); 6] = [
    ('\u{feff}', "byte-order mark"),
    ('\u{200b}', "zero-width space"),
    ('\u{200c}', "zero-width non-joiner"),
    ('\u{200d}', "zero-width joiner"),
    ('\u{2060}', "word joiner"),
    ('\u{00ad}', "soft hyphen"),
];

/// A cell as a message shows it: its first [`SHOWN_CHARS`] characters (then "…"), with invisible
/// and control characters escaped (`\u{feff}`) so that the reader sees them.
fn shown(cell: &str) -> String {
    let mut out = String::new();
    for (i, c) in cell.chars().enumerate() {
        if i == SHOWN_CHARS {
            out.push('…');
            break;
        }
        if c.is_control() || INVISIBLE.iter().any(|&(x, _)| x == c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// Why a cell holding an invisible character is not a number, naming the character and what to
/// do; `None` when it holds none.
fn invisible(cell: &str) -> Option<String> {
    let (at, c, name) = cell.chars().enumerate().find_map(|(i, c)| {
        INVISIBLE
            .iter()
            .find(|(x, _)| *x == c)
            .map(|(x, n)| (i, *x, *n))
    })?;
    let code = format!("U+{:04X}", u32::from(c));
    Some(match (at, c) {
        (0, '\u{feff}') => format!(
            "it starts with an invisible {name} ({code}); save the file as UTF-8 without BOM"
        ),
        (0, _) => format!("it starts with an invisible {name} ({code}); delete it"),
        _ => format!("it holds an invisible {name} ({code}) after {at} characters; delete it"),
    })
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
            format!("'{}' is not a finite number", shown(cell)),
        )),
        Err(_) => Err(parse_err(
            line,
            col,
            match invisible(cell) {
                Some(why) => format!("'{}' is not a number: {why}", shown(cell)),
                None => format!("'{}' is not a number", shown(cell)),
            },
        )),
    }
}

/// Reads a numeric CSV into a [`Dataset`] (features = every column but the label).
///
/// A file over [`MAX_CSV_BYTES`] is refused before it is read; a UTF-8 byte-order mark at its
/// start is skipped (spreadsheets write one), while one inside a cell is named in the error.
pub fn load_csv(bytes: &[u8], opts: &CsvOptions) -> Result<Dataset> {
    check_csv_size(bytes.len())?;
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
                            format!(
                                "no header row to find the label column '{}' in",
                                shown(name)
                            ),
                        ));
                    }
                    match record.iter().position(|c| c.trim() == name) {
                        Some(i) => i,
                        None => {
                            return Err(parse_err(
                                line,
                                1,
                                format!("no column named '{}' in the header", shown(name)),
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
                        format!(
                            "label {} is outside the loss's range: expected -1 or +1",
                            shown(cell)
                        ),
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
        // ended by '\n', "\r\n" or a lone '\r' (chunk edges fall between a '\r' and its '\n'),
        // and runs of blank lines (chunks full of line ends).
        let mut text = Vec::new();
        for i in 0..400 {
            text.extend(std::iter::repeat_n(b'1', (i * 37) % 601));
            let end: &[u8] = [&b"\n"[..], b"\r\n", b"\r"][i % 3];
            for _ in 0..1 + (i % 7) * (i % 3) * 20 {
                text.extend(end);
            }
        }
        let naive = |end: usize| {
            let ends = (0..end).filter(|&i| {
                text[i] == b'\n' || (text[i] == b'\r' && text.get(i + 1) != Some(&b'\n'))
            });
            1 + ends.count() as u64
        };
        let mut lines = Lines::new(&text);
        for offset in (0..text.len() as u64).step_by(613) {
            let mut end = offset as usize;
            while matches!(text.get(end), Some(b'\n' | b'\r')) {
                end += 1;
            }
            assert_eq!(lines.line_of(offset), naive(end), "offset {offset}");
        }
    }
}
