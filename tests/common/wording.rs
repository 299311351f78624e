//! What makes an error one a person can act on: it names a control by the
//! label the page shows, says what to do, in one or two sentences of at most 300 characters, and
//! none of the code's own names for things (`epochs`, `mu`, `alpha`, `DpSgd`, …) leak into it.

use dp_playground::Error;
use dp_playground::algo::registry;
use dp_playground::config::Control;

/// The longest message the page's error line shows whole on a phone without scrolling.
pub const MAX_CHARS: usize = 300;

/// Words of the code that are no page's: the algorithms' own names for settings (whose control
/// has another label), and Rust's. Matched as whole words; any word with an underscore (a
/// snake_case key, or math typed as code: `w_loc`) or in CamelCase (a Rust type, `DpSgd`) is
/// refused too. English words that are also internal keys (`kind`, `variant`, `sensitivity`,
/// `reference`) are not listed: an error *at* such a field is what the placement test refuses,
/// while the words explain a refusal well.
pub const DENYLIST: [&str; 17] = [
    "plan",
    "alpha",
    "mu",
    "resolution",
    "epochs",
    "epoch",
    "lambda",
    "tolerance",
    "lipschitz",
    "regularizer",
    "wrap",
    "Some",
    "None",
    "f64",
    "usize",
    "u64",
    "Glm",
];

/// A message says what to do when it holds one of these verbs, each a thing done to a control:
/// a message without any only describes what went wrong.
pub const INSTRUCTIONS: [&str; 26] = [
    "choose", "set", "raise", "lower", "pick", "load", "use", "turn", "give", "enter", "untick",
    "tick", "add", "remove", "switch", "increase", "reduce", "shorten", "select", "copy", "try",
    "leave", "keep", "make", "save", "drop",
];

/// Abbreviations whose full stop ends no sentence.
const ABBREVIATIONS: [&str; 6] = ["e.g", "i.e", "al", "vs", "cf", "approx"];

/// The page's text (index.html, and www/app.js, which labels a loss's and a tail's parameter),
/// where every label an error uses must appear.
pub fn page() -> String {
    ["index.html", "www/app.js"]
        .map(|file| {
            std::fs::read_to_string(format!("{}/{file}", env!("CARGO_MANIFEST_DIR")))
                .expect("the page's files")
        })
        .concat()
}

/// The words of `text`: runs of letters, digits and underscores.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

/// Whether `word` reads as a name from the code: snake_case, or CamelCase, capitalised runs of
/// lower-case letters (`DpSgd`, `OutputPerturbation`; not `DP`, `AccMD`, `ZWB`).
fn is_code_name(word: &str) -> bool {
    if word.contains('_') || DENYLIST.contains(&word) {
        return true;
    }
    let mut humps = 0;
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        if !c.is_ascii_uppercase() {
            return false;
        }
        let mut lower = 0;
        while chars.peek().is_some_and(|c| c.is_ascii_lowercase()) {
            chars.next();
            lower += 1;
        }
        if lower == 0 {
            return false;
        }
        humps += 1;
    }
    humps >= 2
}

/// The number of sentences of `text`: full stops (or ! and ?) followed by a space or the end,
/// except after an abbreviation.
pub fn sentences(text: &str) -> usize {
    let chars: Vec<char> = text.chars().collect();
    let mut count = 0;
    for (i, &c) in chars.iter().enumerate() {
        let ends =
            matches!(c, '.' | '!' | '?') && chars.get(i + 1).is_none_or(|n| n.is_whitespace());
        if !ends {
            continue;
        }
        let before: String = chars[..i].iter().collect();
        let last = before
            .rsplit(|c: char| c.is_whitespace() || c == '(')
            .next()
            .unwrap_or("");
        if !ABBREVIATIONS.contains(&last) {
            count += 1;
        }
    }
    count.max(1)
}

/// Everything wrong with `error` as a message a person acts on; empty when it is one. Only a
/// field error is held to all of it: a parse error (a CSV file's or a link's, with line and
/// column) names its place in the text, and is held to the length alone. `extra_fields` are
/// fields allowed beside the page's controls (the link, whose errors show in the run's line).
pub fn wording_faults(error: &Error, page: &str, extra_fields: &[&str]) -> Vec<String> {
    let message = error.to_string();
    let mut faults = Vec::new();
    let length = message.chars().count();
    if length > MAX_CHARS {
        faults.push(format!("{length} characters (at most {MAX_CHARS})"));
    }
    let Error::InvalidParameter { .. } = error else {
        return faults;
    };
    let field = error.field().unwrap_or("");
    match Control::label_of(field) {
        Some(label) => {
            let control = Control::of(field).expect("a label is a control's");
            if control.on_page() && !page.contains(label) {
                faults.push(format!("the label \"{label}\" is not on the page"));
            }
            if !message.to_lowercase().contains(&label.to_lowercase()) {
                faults.push(format!("does not name its control \"{label}\""));
            }
        }
        None if extra_fields.contains(&field) => {}
        None => faults.push(format!("at \"{field}\", no control of the page")),
    }
    // The menu's algorithm names are the page's words (one is "output perturbation on f_C").
    // The value echoed at the end ("(now …)") is the user's own, not the code's words.
    let mut prose = match message.rfind(" (now ") {
        Some(i) => message[..i].to_string(),
        None => message.clone(),
    };
    let mut names: Vec<&str> = registry::FAMILIES.iter().map(|f| f.card.name).collect();
    // Longest first: "output perturbation" is a part of "output perturbation on f_C".
    names.sort_by_key(|name| std::cmp::Reverse(name.len()));
    for name in names {
        prose = prose.replace(name, "");
    }
    let leaked: Vec<&str> = words(&prose).filter(|w| is_code_name(w)).collect();
    if !leaked.is_empty() {
        faults.push(format!("names of the code: {leaked:?}"));
    }
    let n = sentences(&message);
    if n > 2 {
        faults.push(format!("{n} sentences (at most 2)"));
    }
    if !words(&message).any(|w| INSTRUCTIONS.contains(&w.to_lowercase().as_str())) {
        faults.push("says what is wrong but not what to do".to_string());
    }
    faults
}
