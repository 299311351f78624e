//! CSV loading: header optional, comma/semicolon/tab, CRLF and a UTF-8 BOM tolerated; the user
//! picks the label column. Parsing itself is the `csv` crate's; every malformed input becomes an
//! [`Error::Parse`] naming the (1-based) line and column.

use std::borrow::Cow;

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

/// Longest line [`load_csv`] reads (1 MiB): [`MAX_COLUMNS`] cells of up to 1 KiB each (a
/// full-precision number takes at most 24 characters, a header name rarely 100). A longer line
/// is no table this page reads (a one-line 300 MB file was refused only after 14 s
/// of parsing); it is refused when the scan for line ends reaches it.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Refuses the first line of `bytes` longer than [`MAX_LINE_BYTES`], naming it, before any
/// parsing: one vectorised scan for line ends ('\n' or '\r'), stopped at the first long line.
fn check_line_lengths(bytes: &[u8]) -> Result<()> {
    let mut start = 0;
    let mut line = 1;
    let ends = memchr::memchr2_iter(b'\n', b'\r', bytes).chain(std::iter::once(bytes.len()));
    for end in ends {
        if end - start > MAX_LINE_BYTES {
            return Err(parse_err(
                line,
                1,
                format!(
                    "a line longer than {} MiB: load a CSV file with one record per line \
                     (at most {MAX_COLUMNS} columns of numbers)",
                    MAX_LINE_BYTES >> 20
                ),
            ));
        }
        // A "\r\n" counts one line, as the csv reader counts it.
        if !(end > 0 && bytes[end - 1] == b'\r' && bytes.get(end) == Some(&b'\n') && end == start) {
            line += 1;
        }
        start = end + 1;
    }
    Ok(())
}

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
    /// −1 or +1 (margin losses); a label 0 is read as −1 (`margin_label`), so a column of
    /// 0/1 labels reads as −1/+1.
    PlusMinusOne,
}

/// Whether a margin loss takes the label `v`: −1, +1, or 0 (read as −1).
#[inline]
fn is_margin_label(v: f64) -> bool {
    v == 1.0 || v == -1.0 || v == 0.0
}

/// The label a margin loss reads for a file's label `v` (one of −1, 0, +1): 0 is read as −1, so
/// that a column of 0/1 classes is the −1/+1 the losses need. A rule fixed in advance and applied
/// record by record: no other record, and nothing measured from the file, decides it.
#[inline]
pub fn margin_label(v: f64) -> f64 {
    if v == 0.0 { -1.0 } else { v }
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
            labels: LabelRange::for_loss(margin),
        }
    }
}

impl LabelRange {
    /// The labels a loss accepts: ±1 for a margin loss (`margin`), any finite label otherwise.
    pub fn for_loss(margin: bool) -> LabelRange {
        if margin {
            LabelRange::PlusMinusOne
        } else {
            LabelRange::Real
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

/// A cell's number when it is plainly one: after ASCII whitespace is trimmed, a decimal that
/// parses to a finite value. `None` sends the cell to [`parse_cell`], which accepts the same
/// numbers (to the bit: both round correctly) and words the errors. The words `fast_float2`
/// also reads ("inf", "nan") give non-finite values, so they take the careful path too.
#[inline]
fn plain_number(cell: &[u8]) -> Option<f64> {
    fast_float2::parse::<f64, _>(cell.trim_ascii())
        .ok()
        .filter(|v| v.is_finite())
}

/// Appends a data row whose cells are all [`plain_number`]s, returning whether it did (when not,
/// nothing is appended). A label a margin loss refuses (not −1, 0 or +1) is left to the careful
/// path while `check_label` (the first such label is recorded there).
#[inline]
fn fast_row(
    record: &csv::ByteRecord,
    label_idx: usize,
    check_label: bool,
    x: &mut Vec<f64>,
    y: &mut Vec<f64>,
) -> bool {
    let mark = x.len();
    let mut label = 0.0;
    for (j, cell) in record.iter().enumerate() {
        let Some(v) = plain_number(cell) else {
            x.truncate(mark);
            return false;
        };
        if j == label_idx {
            label = v;
        } else {
            x.push(v);
        }
    }
    if check_label && !is_margin_label(label) {
        x.truncate(mark);
        return false;
    }
    y.push(label);
    true
}

/// Reads a numeric CSV into a [`Dataset`] (features = every column but the label).
///
/// A file over [`MAX_CSV_BYTES`] is refused before it is read; a UTF-8 byte-order mark at its
/// start is skipped (spreadsheets write one), while one inside a cell is named in the error.
pub fn load_csv(bytes: &[u8], opts: &CsvOptions) -> Result<Dataset> {
    CsvFile::read(bytes, opts)?.into_dataset(opts.labels)
}

/// A CSV file read once, whose labels can then be checked against any loss without reading it
/// again: the page's worker keeps one, so that a run (a new ε, a new loss) does not parse the
/// file anew.
#[derive(Debug, Clone, PartialEq)]
pub struct CsvFile {
    data: Dataset,
    /// What reading the file with [`LabelRange::PlusMinusOne`] reports: the first label that is
    /// not −1, 0 or +1 (the only error such a reading adds to a successful one).
    not_plus_minus_one: Option<Error>,
    /// How many labels are 0: a margin loss reads them as −1 ([`margin_label`]).
    zeros: usize,
}

impl CsvFile {
    /// Reads a file as [`load_csv`] does, with the same errors (labels checked against
    /// `opts.labels`), keeping what a check against [`LabelRange::PlusMinusOne`] would say.
    pub fn read(bytes: &[u8], opts: &CsvOptions) -> Result<Self> {
        check_csv_size(bytes.len())?;
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        check_line_lengths(bytes)?;
        read(bytes, opts, &mut Lines::new(bytes), true)
    }

    /// The data, for a loss whose labels lie in `labels`: the error [`load_csv`] would give with
    /// that range (line and column of the first label out of range), or the data, with the
    /// labels 0 read as −1 under [`LabelRange::PlusMinusOne`] (a copy then; the file's own
    /// labels stay for a regression loss).
    pub fn dataset(&self, labels: LabelRange) -> Result<Cow<'_, Dataset>> {
        match (labels, &self.not_plus_minus_one) {
            (LabelRange::PlusMinusOne, Some(e)) => Err(e.clone()),
            (LabelRange::PlusMinusOne, None) if self.zeros > 0 => Ok(Cow::Owned(Dataset {
                x: self.data.x.clone(),
                y: self.data.y.iter().copied().map(margin_label).collect(),
            })),
            _ => Ok(Cow::Borrowed(&self.data)),
        }
    }

    /// How many labels a loss of `labels` reads as another value: the 0s a margin loss reads as
    /// −1 (0 for any other loss, and for a file it refuses). The page says so beside the file.
    pub fn labels_mapped(&self, labels: LabelRange) -> usize {
        match (labels, &self.not_plus_minus_one) {
            (LabelRange::PlusMinusOne, None) => self.zeros,
            _ => 0,
        }
    }

    /// [`CsvFile::dataset`], taking the file's data.
    fn into_dataset(self, labels: LabelRange) -> Result<Dataset> {
        match self.dataset(labels)? {
            Cow::Owned(data) => Ok(data),
            Cow::Borrowed(_) => Ok(self.data),
        }
    }
}

/// Records the csv reader reads before [`fused_rows`] is tried again after it took no row.
const FUSED_RETRY: usize = 64;

/// Takes the plain data rows at the start of `rest`, tokenizing and parsing in one pass with no
/// record built (the csv crate's reader and a parse after it cost twice as much): each of the
/// `width` cells a [`plain_number`] between ASCII spaces (and tabs, unless they delimit), the
/// row ended by '\n', '\r' (a "\r\n" leaves its '\n' as a blank line, which the next row skips)
/// or the end of the file. Stops before the first row it does not take (the csv reader then
/// reads it: quotes, other whitespace, another width, a bad cell, a label to check while
/// `check_label`), or after `room` rows. Returns the bytes taken: whole rows, so the rest starts
/// at a record boundary.
#[allow(clippy::too_many_arguments)]
fn fused_rows(
    rest: &[u8],
    delimiter: u8,
    width: usize,
    label_idx: usize,
    check_label: bool,
    room: usize,
    x: &mut Vec<f64>,
    y: &mut Vec<f64>,
) -> usize {
    let blank = |b: &u8| *b == b' ' || (*b == b'\t' && delimiter != b'\t');
    let skip = |mut at: usize, what: &dyn Fn(&u8) -> bool| {
        while rest.get(at).is_some_and(what) {
            at += 1;
        }
        at
    };
    let mut taken = 0;
    // Where the last row taken started, and the features before it.
    let mut last = None;
    'rows: for _ in 0..room {
        // Blank lines are skipped, as the csv reader skips them.
        let mut at = skip(taken, &|b| matches!(b, b'\n' | b'\r'));
        if at == rest.len() {
            return at;
        }
        let mark = x.len();
        let mut label = 0.0;
        for j in 0..width {
            at = skip(at, &blank);
            let cell = fast_float2::parse_partial::<f64, _>(&rest[at..]);
            let Some((v, n)) = cell.ok().filter(|&(v, n)| n > 0 && v.is_finite()) else {
                x.truncate(mark);
                break 'rows;
            };
            at = skip(at + n, &blank);
            let end = rest.get(at);
            let ends_cell = if j + 1 < width {
                end == Some(&delimiter)
            } else {
                matches!(end, None | Some(b'\n' | b'\r'))
            };
            if !ends_cell {
                x.truncate(mark);
                break 'rows;
            }
            at += usize::from(end.is_some());
            if j == label_idx {
                label = v;
            } else {
                x.push(v);
            }
        }
        if check_label && !is_margin_label(label) {
            x.truncate(mark);
            break;
        }
        y.push(label);
        last = Some((taken, mark));
        taken = at;
    }
    // A csv reader starting at a byte-order mark skips it, where the reader of the whole file
    // reads it into the cell (and says so): the reader restarts a row earlier.
    if let Some((start, mark)) = last
        && rest[taken..].starts_with(b"\xEF\xBB\xBF")
    {
        x.truncate(mark);
        y.pop();
        taken = start;
    }
    taken
}

/// [`CsvFile::read`] after the BOM, numbering lines with `lines` (over the same bytes); `fused`
/// lets [`fused_rows`] take the plain rows (off, every row goes through the csv reader: the tests
/// compare the two).
fn read(bytes: &[u8], opts: &CsvOptions, lines: &mut Lines, fused: bool) -> Result<CsvFile> {
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(parse_err(1, 1, "the file is empty"));
    }
    let delimiter = match opts.delimiter {
        Some(c) if matches!(c, ',' | ';' | '\t') => c as u8,
        Some(c) => {
            // No control sets a delimiter (the page detects it): the error is the data source's
            // (its field key, `data`; this layer names no control type).
            return Err(Error::invalid(
                "data",
                "save the CSV file with ',', ';' or a tab between its values",
                format!("delimiter {c:?}"),
            ));
        }
        None => detect_delimiter(bytes),
    };
    let mut builder = csv::ReaderBuilder::new();
    builder
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true);
    // Cells are trimmed here as they are read: the crate's `Trim::All` rebuilds every record
    // twice (ASCII, then Unicode whitespace), which more than doubled the loading time.
    let mut reader = builder.from_reader(bytes);
    // Where `reader` starts in `bytes`: after a run of rows read by [`fused_rows`], a reader starts
    // afresh where the run stopped (at a record boundary, so it reads as the first one would).
    let mut from = 0u64;
    // Records the reader reads before the fused scan is tried again (after it took no row).
    let mut cooldown = 0usize;
    let mut bytes_record = csv::ByteRecord::new();
    let mut first = true;
    let mut width = 0usize;
    let mut label_idx = 0usize;
    let mut x = Vec::new();
    let mut y = Vec::new();
    let mut first_line = 1u64;
    let mut first_data_line = 0u64;
    let mut not_plus_minus_one = None;
    loop {
        if fused && !y.is_empty() && cooldown == 0 {
            let at = from + reader.position().byte();
            let rest = &bytes[usize::try_from(at).unwrap_or(bytes.len())..];
            let room = (MAX_VALUES / (width - 1)).saturating_sub(y.len());
            let taken = fused_rows(
                rest,
                delimiter,
                width,
                label_idx,
                not_plus_minus_one.is_none(),
                room,
                &mut x,
                &mut y,
            );
            if taken > 0 {
                from = at + taken as u64;
                reader = builder.from_reader(&rest[taken..]);
                cooldown = 1;
            } else {
                cooldown = FUSED_RETRY;
            }
        }
        cooldown = cooldown.saturating_sub(1);
        let more = reader.read_byte_record(&mut bytes_record).map_err(|e| {
            let line = e
                .position()
                .map(|p| lines.line_of(from + p.byte()))
                .unwrap_or(0);
            parse_err(line, 1, e.to_string())
        })?;
        if !more {
            break;
        }
        // A row of the first row's width with every cell a plain number, which the fused scan
        // did not take (say its cells are quoted), is read here without the careful path; the
        // first rows, and any row neither takes, take the careful one below, which numbers lines
        // and words every error.
        if !y.is_empty()
            && bytes_record.len() == width
            && (y.len() + 1) * (width - 1) <= MAX_VALUES
            && fast_row(
                &bytes_record,
                label_idx,
                not_plus_minus_one.is_none(),
                &mut x,
                &mut y,
            )
        {
            continue;
        }
        let line = bytes_record
            .position()
            .map(|p| lines.line_of(from + p.byte()))
            .unwrap_or(0);
        // The csv crate's own check (what `read_record` does): the first field that is not
        // UTF-8 is named.
        let record = csv::StringRecord::from_byte_record(bytes_record.clone()).map_err(|e| {
            parse_err(
                line,
                e.utf8_error().field() + 1,
                "the file is not valid UTF-8 text",
            )
        })?;
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
            // Room for as many rows as the rest of the file holds if they are like this one
            // (within the values the page accepts), so the vectors do not regrow and copy.
            let start = from + bytes_record.position().map_or(0, |p| p.byte());
            let rest = (bytes.len() as u64).saturating_sub(start);
            let row = bytes_record.as_slice().len() + width;
            let rows = usize::try_from(rest).unwrap_or(usize::MAX) / row + 1;
            let rows = rows.min(MAX_VALUES / (width - 1));
            x.reserve(rows * (width - 1));
            y.reserve(rows);
        }
        for (j, cell) in record.iter().map(str::trim).enumerate() {
            let v = parse_cell(cell, line, j + 1)?;
            if j == label_idx {
                if !is_margin_label(v) && not_plus_minus_one.is_none() {
                    let e = parse_err(
                        line,
                        j + 1,
                        format!(
                            "label {} is outside the loss's range: expected -1 or +1 (a 0 is read as -1); \
                             write the classes as -1 and +1 (or 0 and 1), or choose a regression loss",
                            shown(cell)
                        ),
                    );
                    if opts.labels == LabelRange::PlusMinusOne {
                        return Err(e);
                    }
                    not_plus_minus_one = Some(e);
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
        _ => Ok(CsvFile {
            zeros: y.iter().filter(|v| **v == 0.0).count(),
            data: Dataset::from_samples(width - 1, x, y)?,
            not_plus_minus_one,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Numbering the lines of a file reads each of its bytes once, whatever
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
        let file = read(bytes, &opts, &mut lines, true).unwrap();
        assert_eq!(file.data.n(), rows);
        assert!(lines.work <= bytes.len(), "{} bytes read", lines.work);

        text += "1;six;2\r\n";
        let bytes = text.as_bytes();
        let mut lines = Lines::new(bytes);
        match read(bytes, &opts, &mut lines, true) {
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

    /// The fast path takes only what the careful one accepts, with the same bits: random cells
    /// of digits, signs, dots, exponents, the letters of "infinity" and "nan" and a few others,
    /// in every order, and numbers as programs and people write them. A fixed-seed xorshift, so a failure repeats.
    #[test]
    fn plain_numbers_are_the_careful_parse_to_the_bit() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let alphabet = "0123456789+-.eE 1infatyINFATYx_\u{a0}\u{200b}"
            .chars()
            .collect::<Vec<_>>();
        let mut taken = 0;
        for k in 0..300_000 {
            let cell = if k % 3 == 0 {
                let v = f64::from_bits(next());
                let v = if v.is_finite() {
                    v
                } else {
                    (next() % 1000) as f64 / 7.0
                };
                match k % 4 {
                    0 => v.to_string(),
                    1 => format!("{v:e}"),
                    2 => format!("{:.4}", v / 1e300),
                    _ => format!(" {:E} ", v),
                }
            } else {
                let len = (next() % 10) as usize;
                (0..len)
                    .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                    .collect()
            };
            if let Some(v) = plain_number(cell.as_bytes()) {
                taken += 1;
                let careful = parse_cell(cell.trim(), 1, 1);
                assert_eq!(careful.map(f64::to_bits), Ok(v.to_bits()), "{cell:?}");
            }
        }
        assert!(taken > 100_000, "the fast path took only {taken} cells");
    }

    /// Rows the fast path leaves (a cell trimmed of Unicode whitespace, a ragged or bad row
    /// after many good ones) read as before: the value, or the error at its line and column.
    #[test]
    fn rows_the_fast_path_leaves_read_as_before() {
        let opts = CsvOptions {
            label: LabelColumn::Last,
            delimiter: None,
            header: None,
            labels: LabelRange::PlusMinusOne,
        };
        let mut text = String::from("a,b,y\n");
        for i in 0..50 {
            text += &format!("{i}.5,-{i}e-3,{}\n", if i % 2 == 0 { 1 } else { -1 });
        }
        let good = format!("{text}\u{3000}7\u{a0},8,1\n");
        let data = load_csv(good.as_bytes(), &opts).unwrap();
        assert_eq!(data.features(50), &[7.0, 8.0]);
        assert_eq!(data.features(3), &[3.5, -3e-3]);
        let rows: [(&[u8], usize, &str); 5] = [
            (b"1,2\n", 3, "2 fields, expected 3"),
            (b"1,2,0.5\n", 3, "label 0.5 is outside"),
            (b"1,inf,1\n", 2, "'inf' is not a finite number"),
            ("1,\u{200b}2,1\n".as_bytes(), 2, "zero-width space"),
            (b"1,2,\xff\n", 3, "not valid UTF-8"),
        ];
        for (row, want, says) in rows {
            let mut bad = text.clone().into_bytes();
            bad.extend(row);
            match load_csv(&bad, &opts) {
                Err(Error::Parse { line, col, message }) => {
                    assert_eq!((line, col), (52, want), "{row:?}: {message}");
                    assert!(message.contains(says), "{row:?}: {message}");
                }
                other => panic!("{row:?}: expected a parse error, got {other:?}"),
            }
        }
    }

    /// Options for a file whose label is its last column, read as `labels`.
    fn last_column(labels: LabelRange) -> CsvOptions {
        CsvOptions {
            label: LabelColumn::Last,
            delimiter: None,
            header: None,
            labels,
        }
    }

    /// A file read once answers for either label range as reading it again would.
    #[test]
    fn a_file_read_once_checks_labels_like_a_second_reading() {
        let (real, margin) = (
            last_column(LabelRange::Real),
            last_column(LabelRange::PlusMinusOne),
        );
        let mut text = String::from("x,y\n");
        for i in 0..40 {
            text += &format!("{i},{}\n", if i == 30 { "0.25" } else { "-1" });
        }
        let file = CsvFile::read(text.as_bytes(), &real).unwrap();
        assert_eq!(file.dataset(LabelRange::Real).unwrap().n(), 40);
        assert_eq!(file.labels_mapped(LabelRange::PlusMinusOne), 0);
        let again = load_csv(text.as_bytes(), &margin).unwrap_err();
        assert_eq!(file.dataset(LabelRange::PlusMinusOne).unwrap_err(), again);
        assert!(
            matches!(
                again,
                Error::Parse {
                    line: 32,
                    col: 2,
                    ..
                }
            ),
            "{again:?}"
        );

        let plus_minus = text.replace("0.25", "1");
        let file = CsvFile::read(plus_minus.as_bytes(), &real).unwrap();
        assert_eq!(
            *file.dataset(LabelRange::PlusMinusOne).unwrap(),
            load_csv(plus_minus.as_bytes(), &margin).unwrap()
        );
    }

    /// A column of 0/1 labels is read as −1/+1 by a margin loss (the page says
    /// so), and kept as 0/1 by a regression loss; a label that is neither −1, 0 nor +1 is still
    /// refused at its line, saying what to write instead.
    #[test]
    fn zero_one_labels_read_as_plus_minus_one_under_a_margin_loss() {
        let margin = last_column(LabelRange::PlusMinusOne);
        // Enough rows for the fused scan and the fast row to take most of them.
        let mut text = String::from("x1,x2,y\n");
        for i in 0..300 {
            text += &format!("{i}.5,{},{}\n", i % 7, i % 2);
        }
        let file = CsvFile::read(text.as_bytes(), &margin).unwrap();
        assert_eq!(file.labels_mapped(LabelRange::PlusMinusOne), 150);
        assert_eq!(file.labels_mapped(LabelRange::Real), 0);
        let read = file.dataset(LabelRange::PlusMinusOne).unwrap();
        let labels: Vec<f64> = read.samples().map(|(_, y)| y).collect();
        let expected: Vec<f64> = (0..300)
            .map(|i| if i % 2 == 0 { -1.0 } else { 1.0 })
            .collect();
        assert_eq!(labels, expected);
        assert_eq!(*read, load_csv(text.as_bytes(), &margin).unwrap());
        let kept: Vec<f64> = file
            .dataset(LabelRange::Real)
            .unwrap()
            .samples()
            .map(|(_, y)| y)
            .collect();
        assert_eq!(kept, (0..300).map(|i| f64::from(i % 2)).collect::<Vec<_>>());
        // The fused scan and the csv reader alone agree.
        let bytes = text.as_bytes();
        let slow = super::read(bytes, &margin, &mut Lines::new(bytes), false).unwrap();
        assert_eq!(slow.dataset(LabelRange::PlusMinusOne).unwrap(), read);
        assert_eq!(slow.labels_mapped(LabelRange::PlusMinusOne), 150);

        let bad = text.replace("\n299.5,5,1\n", "\n299.5,5,2\n");
        match load_csv(bad.as_bytes(), &margin) {
            Err(Error::Parse { line, col, message }) => {
                assert_eq!((line, col), (301, 3));
                assert!(
                    message.contains("label 2 is outside") && message.contains("0 and 1"),
                    "{message}"
                );
            }
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    /// The fused scan changes nothing but the speed: files of plain rows with, at random rows,
    /// what it must leave to the csv reader (quotes, Unicode and ASCII whitespace, blank lines,
    /// every line end, wrong widths, bad or non-finite cells, labels other than ±1, a BOM, no
    /// final line end) read to the same data or the same error (line, column, words) with it and
    /// without it, for both label ranges. A fixed-seed xorshift, so a failure repeats.
    #[test]
    fn the_fused_scan_reads_every_file_as_the_csv_reader_does() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move |k: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % k
        };
        let odd = [
            "\"1.5\"",
            " 2 ",
            "\t3",
            "\u{a0}4",
            "",
            "inf",
            "1e",
            "x",
            "+5",
            "-.5e-3",
            "\u{feff}6",
            "1 2",
            "7;8",
            "-0",
        ];
        let mut compared = 0;
        for file in 0..400 {
            let delimiter = [b',', b';', b'\t'][next(3) as usize] as char;
            let end = ["\n", "\r\n", "\r"][next(3) as usize];
            let width = 2 + next(4) as usize;
            let mut text = String::new();
            if file % 2 == 0 {
                let names: Vec<String> = (0..width).map(|j| format!("c{j}")).collect();
                text += &names.join(&delimiter.to_string());
                text += end;
            }
            let rows = 1 + next(300);
            for r in 0..rows {
                let cells: Vec<String> = (0..width)
                    .map(|j| {
                        if next(400) == 0 {
                            return odd[next(odd.len() as u64) as usize].to_string();
                        }
                        if j + 1 == width && file % 3 != 0 {
                            return ["1", "-1", "1.0", " -1"][next(4) as usize].to_string();
                        }
                        let v = (next(1 << 20) as f64 - 5e5) / 997.0;
                        match next(3) {
                            0 => v.to_string(),
                            1 => format!("{v:e}"),
                            _ => format!("{v:.3}"),
                        }
                    })
                    .collect();
                let mut row = cells.join(&delimiter.to_string());
                match next(300) {
                    0 => row += &delimiter.to_string(),
                    1 => row = row[..row.rfind(delimiter).unwrap_or(0)].to_string(),
                    2 => row = String::new(),
                    3 => row = "   ".to_string(),
                    _ => {}
                }
                text += &row;
                if r + 1 < rows || next(2) == 0 {
                    text += end;
                }
            }
            for labels in [LabelRange::Real, LabelRange::PlusMinusOne] {
                let opts = CsvOptions {
                    label: [LabelColumn::Last, LabelColumn::First][next(2) as usize].clone(),
                    delimiter: None,
                    header: None,
                    labels,
                };
                let bytes = text.as_bytes();
                let fused = read(bytes, &opts, &mut Lines::new(bytes), true);
                let plain = read(bytes, &opts, &mut Lines::new(bytes), false);
                assert_eq!(fused, plain, "file {file}: {text:?}");
                compared += usize::from(fused.is_ok());
            }
        }
        assert!(compared > 100, "only {compared} files loaded");
    }
}
