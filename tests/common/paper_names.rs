//! Issue 16 item 5: a paper is named by its authors, title and year, never by the project's own
//! file numbers ("seed 002", "digest 000"). The check the page's e2e test makes with
//! `/seed 0\d\d/i` and `/digest/i`, for the Rust strings the page shows.

/// Whether `text` names a paper by an internal number: "seed 0NN" (any case, any run of spaces)
/// or the word "digest".
pub fn names_an_internal_number(text: &str) -> bool {
    let lower = text.to_lowercase();
    if lower.contains("digest") {
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
