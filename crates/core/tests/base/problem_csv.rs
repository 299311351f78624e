//! The bad-CSV corpus (tests/bad_csv/): every file yields its specific error, naming line and
//! column; none panics. Plus the tolerated variants of good files.

use dp_core::Error;
use dp_core::data::{CsvOptions, load_csv};
use dp_core::data::{LabelColumn, LabelRange};

fn opts(label: LabelColumn) -> CsvOptions {
    CsvOptions {
        label,
        delimiter: None,
        header: None,
        labels: LabelRange::PlusMinusOne,
    }
}

/// (file, options, expected line, expected column, a fragment of the message).
fn corpus() -> Vec<(&'static str, CsvOptions, usize, usize, &'static str)> {
    let last = || opts(LabelColumn::Last);
    vec![
        ("01_empty.csv", last(), 1, 1, "empty"),
        ("02_whitespace_only.csv", last(), 1, 1, "empty"),
        ("03_header_only.csv", last(), 1, 1, "no data rows"),
        ("04_single_row.csv", last(), 1, 1, "single data row"),
        ("05_header_single_row.csv", last(), 2, 1, "single data row"),
        ("06_ragged_short.csv", last(), 2, 3, "2 fields, expected 3"),
        ("07_ragged_long.csv", last(), 2, 4, "4 fields, expected 3"),
        ("08_non_numeric.csv", last(), 2, 2, "'abc' is not a number"),
        ("09_nan.csv", last(), 2, 2, "'NaN' is not a finite number"),
        ("10_inf.csv", last(), 1, 2, "'inf' is not a finite number"),
        (
            "11_neg_inf.csv",
            last(),
            2,
            2,
            "'-inf' is not a finite number",
        ),
        ("12_empty_cell.csv", last(), 2, 2, "empty cell"),
        (
            "13_label_minus_two.csv",
            last(),
            2,
            3,
            "label -2 is outside",
        ),
        ("14_label_two.csv", last(), 2, 3, "label 2 is outside"),
        ("15_too_many_columns.csv", last(), 1, 1001, "1001 columns"),
        ("16_single_column.csv", last(), 1, 1, "one column only"),
        (
            "17_semicolon_crlf_bad_cell.csv",
            last(),
            4,
            2,
            "'six' is not a number",
        ),
        (
            "18_bom_tab_bad_label.csv",
            last(),
            3,
            3,
            "label 0.5 is outside",
        ),
        ("19_invalid_utf8.csv", last(), 3, 2, "not valid UTF-8"),
        (
            "20_unterminated_quote.csv",
            last(),
            3,
            2,
            "1 fields, expected 3",
        ),
        (
            "21_overflow.csv",
            last(),
            3,
            2,
            "'1e999' is not a finite number",
        ),
        (
            "22_missing_label_name.csv",
            opts(LabelColumn::Name {
                name: "label".into(),
            }),
            1,
            1,
            "no column named 'label'",
        ),
        (
            "23_label_column_out_of_range.csv",
            opts(LabelColumn::Number { number: 5 }),
            1,
            1,
            "label column 5 does not exist",
        ),
        (
            "24_ragged_after_blank_line.csv",
            last(),
            4,
            3,
            "2 fields, expected 3",
        ),
        ("25_hex_number.csv", last(), 3, 2, "'0x10' is not a number"),
        (
            "26_cr_only_bad_cell.csv",
            last(),
            5,
            2,
            "'x' is not a number",
        ),
        (
            "27_bom_in_cell.csv",
            last(),
            3,
            1,
            "'\\u{feff}3' is not a number: it starts with an invisible byte-order mark (U+FEFF); save the file as UTF-8 without BOM",
        ),
        (
            "28_zero_width_space.csv",
            last(),
            2,
            1,
            "'3\\u{200b}' is not a number: it holds an invisible zero-width space (U+200B)",
        ),
        (
            "29_blank_lines_crlf.csv",
            last(),
            5,
            2,
            "'x' is not a number",
        ),
        (
            "30_blank_lines_ragged.csv",
            last(),
            5,
            3,
            "2 fields, expected 3",
        ),
    ]
}

/// The corpus case of `file`: its error must be the one the index expects.
fn assert_corpus_case(file: &str) {
    let (_, o, line, col, fragment) = corpus().into_iter().find(|c| c.0 == file).unwrap();
    let bytes = std::fs::read(format!(
        "{}/../../tests/bad_csv/{file}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    match load_csv(&bytes, &o) {
        Err(Error::Parse {
            line: l,
            col: c,
            message,
        }) => assert!(
            (l, c) == (line, col) && message.contains(fragment),
            "{file}: got line {l}, column {c}: {message}"
        ),
        other => panic!("{file}: expected a parse error, got {other:?}"),
    }
}

/// A file whose lines end with a lone '\r' (old Mac) has its errors at their
/// line, not all at line 1.
#[test]
fn cr_only_line_ends_number_the_lines() {
    assert_corpus_case("26_cr_only_bad_cell.csv");
}

/// Blank lines before a record (two or more, LF or CRLF) are counted in its line number.
#[test]
fn blank_lines_before_a_record_count_in_its_line_number() {
    assert_corpus_case("29_blank_lines_crlf.csv");
    assert_corpus_case("30_blank_lines_ragged.csv");
}

/// An invisible character in a cell is named (which one, its code point, what
/// to do), not echoed as a cell that looks like a number.
#[test]
fn an_invisible_character_in_a_cell_is_named() {
    assert_corpus_case("27_bom_in_cell.csv");
    assert_corpus_case("28_zero_width_space.csv");
}

/// A cell of a million characters is echoed by its first 40, then "…".
#[test]
fn a_huge_cell_is_echoed_by_its_start() {
    let text = format!("1,2,1\n{},4,-1\n", "7a".repeat(500_000));
    match load_csv(text.as_bytes(), &opts(LabelColumn::Last)) {
        Err(Error::Parse { line, col, message }) => {
            assert_eq!((line, col), (2, 1));
            assert_eq!(message, format!("'{}…' is not a number", "7a".repeat(20)));
        }
        other => panic!("expected a parse error, got {other:?}"),
    }
}

/// A file over the size cap is refused before it is parsed, at the page's CSV
/// control, saying why. (The zeroed buffer is never touched, so it costs no memory.)
#[test]
fn a_file_over_the_size_cap_is_refused_before_parsing() {
    use dp_core::data::{MAX_CSV_BYTES, check_csv_size};
    assert!(check_csv_size(MAX_CSV_BYTES).is_ok());
    let big = vec![0u8; MAX_CSV_BYTES + 1];
    let err = load_csv(&big, &opts(LabelColumn::Last)).unwrap_err();
    assert_eq!(err.field(), Some("csv"));
    let message = err.to_string();
    assert!(
        message.contains("at most 1024 MiB") && message.contains("memory"),
        "{message}"
    );
}

#[test]
fn every_bad_file_yields_its_specific_error() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/bad_csv");
    let cases = corpus();
    assert!(cases.len() >= 20);
    // Every file in the directory is covered by a case.
    let files = std::fs::read_dir(dir).unwrap().count();
    assert_eq!(files, cases.len());
    for (file, o, line, col, fragment) in cases {
        let bytes = std::fs::read(format!("{dir}/{file}")).unwrap();
        let result = std::panic::catch_unwind(|| load_csv(&bytes, &o));
        let err = result.unwrap_or_else(|_| panic!("{file}: panicked")).err();
        match err {
            Some(Error::Parse {
                line: l,
                col: c,
                message,
            }) => {
                assert!(
                    l == line && c == col && message.contains(fragment),
                    "{file}: got line {l}, column {c}: {message}"
                );
                // The Display form names line and column, for the page.
                let shown = Error::Parse {
                    line: l,
                    col: c,
                    message,
                }
                .to_string();
                assert!(shown.starts_with(&format!("line {line}, column {col}: ")));
            }
            other => panic!("{file}: expected a parse error, got {other:?}"),
        }
    }
}

#[test]
fn good_files_in_every_tolerated_form_load_the_same() {
    let plain = b"1.5,2,1\n3,4e-1,-1\n-5,6,1\n";
    let base = load_csv(plain, &opts(LabelColumn::Last)).unwrap();
    assert_eq!((base.n(), base.d()), (3, 2));
    assert_eq!(base.features(1), &[3.0, 0.4]);
    assert_eq!(base.labels(), &[1.0, -1.0, 1.0]);
    let variants: Vec<(&[u8], LabelColumn)> = vec![
        (
            b"x1,x2,y\n1.5,2,1\n3,4e-1,-1\n-5,6,1\n",
            LabelColumn::Name { name: "y".into() },
        ),
        (
            b"\xef\xbb\xbfx1;x2;y\r\n1.5;2;1\r\n3;4e-1;-1\r\n-5;6;1\r\n",
            LabelColumn::Last,
        ),
        (
            b"y\tx1\tx2\n1\t1.5\t2\n-1\t3\t4e-1\n1\t-5\t6\n",
            LabelColumn::First,
        ),
        (
            b" 1.5 , 2 , 1 \n\n3,4e-1,-1\n-5,6,1",
            LabelColumn::Number { number: 3 },
        ),
        (b"\"1.5\",2,1\n3,4e-1,-1\n-5,6,\"1\"\n", LabelColumn::Last),
    ];
    for (bytes, label) in variants {
        let ds = load_csv(bytes, &opts(label.clone())).unwrap_or_else(|e| panic!("{label:?}: {e}"));
        assert_eq!(ds, base, "{label:?}");
    }
    // Regression targets may be any finite number.
    let reg = CsvOptions {
        labels: LabelRange::Real,
        ..opts(LabelColumn::Last)
    };
    assert_eq!(
        load_csv(b"1,0.25\n2,-7\n", &reg).unwrap().labels(),
        &[0.25, -7.0]
    );
    // An explicit header flag overrides detection; a bad delimiter choice is a parameter error.
    let no_header = CsvOptions {
        header: Some(true),
        ..opts(LabelColumn::Last)
    };
    assert_eq!(load_csv(plain, &no_header).unwrap().n(), 2);
    let bad = CsvOptions {
        delimiter: Some('|'),
        ..opts(LabelColumn::Last)
    };
    assert_eq!(load_csv(plain, &bad).unwrap_err().field(), Some("data"));
}
