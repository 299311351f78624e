//! Which series get a legend entry: each text once, the first time it appears.
//!
//! Two layers of one algorithm (its path and its release) named alike would read as the same
//! thing twice in a legend; a legend names each thing once.

/// For each label in order, whether it gets a legend entry: not when empty, and not when an
/// earlier label reads the same.
pub fn first_of_each(labels: &[&str]) -> Vec<bool> {
    labels
        .iter()
        .enumerate()
        .map(|(i, label)| !label.is_empty() && !labels[..i].contains(label))
        .collect()
}

/// The legend text of an algorithm's released points: its name and what they are, so it never
/// repeats the name of its path.
pub fn release_label(algorithm: &str) -> String {
    format!("{algorithm} release (private)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_text_is_named_once() {
        assert_eq!(
            first_of_each(&["DP-GD", "DP-SGD", "DP-GD", "", "w*"]),
            [true, true, false, false, true]
        );
    }

    #[test]
    fn a_path_and_its_release_read_apart() {
        let release = release_label("DP-GD");
        assert_eq!(first_of_each(&["DP-GD", &release]), [true, true]);
        assert_ne!(release, "DP-GD");
    }
}
