//! The layering check: which top-level modules of the workspace's library crates name which, and
//! the import cycles between them. The modules of every crate form one graph: the root package's
//! `src/` and each member `crates/<name>/src/` (the core crate's modules are re-exported by the
//! playground under the same names, so one module is one node wherever it lives). One file, two uses: `scripts/layers` compiles it alone with `rustc` and prints
//! the report; `tests/playground/cli.rs` includes it (`#[path]`) and fails on a cycle that its allow-list
//! does not name. Standard library only.
//!
//! What counts as a reference from top-level module `a` to top-level module `b`:
//! - a path in code that starts at the crate root and enters `b`: `crate::b::…`, `$crate::b::…`,
//!   each branch of a group `crate::{b::x, c}`, and `super::…::b` when the `super`s climb to the
//!   root (inline `mod` blocks are followed, so `super` in `mod tests { … }` climbs one less);
//!   `crate::Error` and the other names `src/lib.rs` re-exports count for their module;
//! - in the binary (`src/bin/`, top-level module `bin`), `dp_playground::b::…`;
//! - anywhere, a path through another member crate: `dp_core::b::…` (its library name);
//! - in a doc comment (`///`, `//!`, `/** */`, `/*! */`), `crate::b` or `dp_core::b` (an intra-doc link, or a
//!   path in backticks that reads as one): a doc link upward is a dependency rustdoc must resolve,
//!   and it would break if the layers became crates. Plain comments and strings never count.
//!
//! Test code does not count in the layering of the library, but is listed on its own: a file
//! declared under `#[cfg(test)]` (`#[cfg(test)] mod tests;`), a file with `#![cfg(test)]`, and any
//! item under an attribute `#[cfg(…)]` whose predicate names `test` outside `not(…)`
//! (`#[cfg(test)] mod tests { … }`, `#[cfg(test)] use …;`, `#[cfg(test)] fn …`).

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// One reference from a top-level module to another.
#[derive(Clone, Debug)]
pub struct Ref {
    pub from: String,
    pub to: String,
    /// `src/…` path, relative to the crate root.
    pub file: String,
    pub line: usize,
    /// In test code (see the module doc).
    pub test: bool,
    /// In a doc comment.
    pub doc: bool,
}

/// The library crates of the workspace at `root`: the root package (`root/src`) and each
/// `root/crates/<name>` with a `src/lib.rs`, in that order, each with its library name (the
/// `name` of its `[lib]` section, else its package name with `-` as `_`).
pub fn member_crates(root: &Path) -> Result<Vec<(PathBuf, String)>, String> {
    let mut dirs = vec![root.to_path_buf()];
    let crates = root.join("crates");
    if crates.is_dir() {
        let mut more: Vec<PathBuf> = fs::read_dir(&crates)
            .map_err(|e| format!("{}: {e}", crates.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join("src").join("lib.rs").is_file())
            .collect();
        more.sort();
        dirs.extend(more);
    }
    let mut out = Vec::new();
    for dir in dirs {
        let manifest = dir.join("Cargo.toml");
        let name = if manifest.is_file() {
            lib_name(&read(&manifest)?)
        } else {
            None
        };
        let name = name.unwrap_or_else(|| {
            dir.file_name()
                .map_or(String::new(), |n| n.to_string_lossy().replace('-', "_"))
        });
        out.push((dir, name));
    }
    Ok(out)
}

/// The library name a manifest gives its crate: `[lib] name`, else `[package] name` with `-` as
/// `_`.
fn lib_name(manifest: &str) -> Option<String> {
    let mut section = "";
    let (mut lib, mut package) = (None, None);
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line;
            continue;
        }
        let Some(rest) = line.strip_prefix("name") else {
            continue;
        };
        let Some(value) = rest.trim_start().strip_prefix('=') else {
            continue;
        };
        let value = value.trim().trim_matches('"').to_string();
        match section {
            "[lib]" => lib = Some(value),
            "[package]" => package = Some(value.replace('-', "_")),
            _ => {}
        }
    }
    lib.or(package)
}

/// Every cross-module reference in the workspace at `root` (its library crates' `src/`, see
/// [`member_crates`]), plus the top-level module names of all of them.
pub fn scan(root: &Path) -> Result<(BTreeSet<String>, Vec<Ref>), String> {
    let crates = member_crates(root)?;
    let names: Vec<String> = crates.iter().map(|(_, n)| n.clone()).collect();
    let mut tops = BTreeSet::new();
    let mut refs = Vec::new();
    let mut seen = BTreeSet::new();
    let mut reexported = BTreeMap::new();
    for (k, (dir, _)) in crates.iter().enumerate() {
        // Inside a crate its own modules are `crate::…`; another member's are `<its name>::…`.
        let others: Vec<String> = names
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != k)
            .map(|(_, n)| n.clone())
            .collect();
        let src = dir.join("src");
        let lib = src.join("lib.rs");
        let lib_text = read(&lib)?;
        let lexed = Lexed::new(&lib_text);
        // The crate root's own `mod` declarations are the top-level modules; each is walked.
        for m in module_decls(&lexed, &lib_text) {
            if m.inline.is_some() {
                continue;
            }
            tops.insert(m.name.clone());
            let file = child_file(&src, &m, &lexed, &lib_text)?;
            walk(
                root,
                &file,
                vec![m.name.clone()],
                false,
                &mut seen,
                &mut refs,
                Crate::Lib,
                &others,
            )?;
        }
        for (name, module) in reexports(&lexed, &names) {
            reexported.entry(name).or_insert(module);
        }
        // The binaries: one crate each, all in top-level module `bin`.
        let bin = src.join("bin");
        if bin.is_dir() {
            tops.insert("bin".to_string());
            let mut files: Vec<PathBuf> = fs::read_dir(&bin)
                .map_err(|e| format!("{}: {e}", bin.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "rs"))
                .collect();
            files.sort();
            for file in files {
                walk(
                    root,
                    &file,
                    vec!["bin".to_string()],
                    false,
                    &mut seen,
                    &mut refs,
                    Crate::Bin,
                    &names,
                )?;
            }
        }
    }
    // Names re-exported at a crate root count for their module; other root names are dropped.
    let mut out = Vec::new();
    for mut r in refs {
        if !tops.contains(&r.to) {
            match reexported.get(&r.to) {
                Some(m) => r.to = m.clone(),
                None => continue,
            }
        }
        if r.to != r.from {
            out.push(r);
        }
    }
    Ok((tops, out))
}

#[derive(Clone, Copy, PartialEq)]
enum Crate {
    Lib,
    Bin,
}

fn read(path: &Path) -> Result<String, String> {
    fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Walks one file and the files it declares with `mod x;`. `crates`: the library names whose
/// paths count from here (the other members' for a library, every member's for a binary).
#[allow(clippy::too_many_arguments)]
fn walk(
    root: &Path,
    file: &Path,
    modpath: Vec<String>,
    test: bool,
    seen: &mut BTreeSet<PathBuf>,
    refs: &mut Vec<Ref>,
    krate: Crate,
    crates: &[String],
) -> Result<(), String> {
    if !seen.insert(file.to_path_buf()) {
        return Ok(());
    }
    let text = read(file)?;
    let lexed = Lexed::new(&text);
    let rel = file
        .strip_prefix(root)
        .unwrap_or(file)
        .display()
        .to_string();
    let test_spans = test_spans(&lexed.code);
    let file_test = test || test_spans.iter().any(|&(s, e)| s == 0 && e == usize::MAX);
    let decls = module_decls(&lexed, &text);
    let inline: Vec<(usize, usize, String)> = decls
        .iter()
        .filter_map(|m| m.inline.map(|(s, e)| (s, e, m.name.clone())))
        .collect();
    let in_test = |pos: usize| file_test || test_spans.iter().any(|&(s, e)| s <= pos && pos < e);
    let top = modpath[0].clone();
    let line_of = |pos: usize| 1 + lexed.code[..pos].iter().filter(|&&b| b == b'\n').count();
    // Code paths.
    let own: &[&str] = match krate {
        Crate::Lib => &["crate", "super"],
        Crate::Bin => &[],
    };
    let counts = |word: &str| own.contains(&word) || crates.iter().any(|c| c == word);
    for (pos, word) in words(&lexed.code) {
        if !counts(word) {
            continue;
        }
        // The module this position sits in: the file's path plus enclosing inline modules.
        let mut here = modpath.clone();
        for (s, e, name) in &inline {
            if *s <= pos && pos < *e {
                here.push(name.clone());
            }
        }
        let mut at = pos + word.len();
        let base: Vec<String> = if word == "super" {
            let mut up = 1;
            while let Some(next) = after_colons(&lexed.code, at)
                && ident_at(&lexed.code, next) == Some("super")
            {
                up += 1;
                at = next + 5;
            }
            if up > here.len() {
                return Err(format!(
                    "{rel}:{}: `super` climbs above the crate root",
                    line_of(pos)
                ));
            }
            here[..here.len() - up].to_vec()
        } else {
            Vec::new()
        };
        if krate == Crate::Lib && !base.is_empty() {
            continue; // stays inside its own top-level module
        }
        for target in first_segments(&lexed.code, at) {
            refs.push(Ref {
                from: top.clone(),
                to: target,
                file: rel.clone(),
                line: line_of(pos),
                test: in_test(pos),
                doc: false,
            });
        }
    }
    // Doc comments.
    let doc_counts =
        |word: &str| (krate == Crate::Lib && word == "crate") || crates.iter().any(|c| c == word);
    for (pos, word) in words(&lexed.doc) {
        if !doc_counts(word) {
            continue;
        }
        if let Some(next) = after_colons(&lexed.doc, pos + word.len())
            && let Some(target) = ident_at(&lexed.doc, next)
        {
            refs.push(Ref {
                from: top.clone(),
                to: target.to_string(),
                file: rel.clone(),
                line: line_of(pos),
                test: in_test(pos),
                doc: true,
            });
        }
    }
    // Child files.
    let dir = module_dir(file);
    for m in &decls {
        if m.inline.is_some() {
            continue;
        }
        let mut inner_dir = dir.clone();
        let mut child_path = modpath.clone();
        for (s, e, name) in &inline {
            if *s <= m.pos && m.pos < *e {
                inner_dir.push(name);
                child_path.push(name.clone());
            }
        }
        let child = match &m.path_attr {
            Some(p) => file.parent().unwrap().join(p),
            None => {
                let flat = inner_dir.join(format!("{}.rs", m.name));
                if flat.is_file() {
                    flat
                } else {
                    inner_dir.join(&m.name).join("mod.rs")
                }
            }
        };
        child_path.push(m.name.clone());
        walk(
            root,
            &child,
            child_path,
            in_test(m.pos),
            seen,
            refs,
            krate,
            crates,
        )?;
    }
    Ok(())
}

/// The directory a file's `mod x;` declarations look in: its own for `mod.rs`, `lib.rs` and
/// `main.rs`, else the directory named after it.
fn module_dir(file: &Path) -> PathBuf {
    let parent = file.parent().unwrap().to_path_buf();
    let stem = file.file_stem().unwrap().to_string_lossy().to_string();
    if ["mod", "lib", "main"].contains(&stem.as_str())
        || file.parent().is_some_and(|p| p.ends_with("bin"))
    {
        parent
    } else {
        parent.join(stem)
    }
}

fn child_file(src: &Path, m: &ModDecl, _lexed: &Lexed, _text: &str) -> Result<PathBuf, String> {
    if let Some(p) = &m.path_attr {
        return Ok(src.join(p));
    }
    let flat = src.join(format!("{}.rs", m.name));
    let nested = src.join(&m.name).join("mod.rs");
    if flat.is_file() {
        Ok(flat)
    } else if nested.is_file() {
        Ok(nested)
    } else {
        Err(format!(
            "module `{}`: neither {} nor {}",
            m.name,
            flat.display(),
            nested.display()
        ))
    }
}

/// The source with comments and literals blanked (`code`), and the text of doc comments alone
/// (`doc`); both keep every byte offset and newline of the source.
struct Lexed {
    code: Vec<u8>,
    doc: Vec<u8>,
}

impl Lexed {
    fn new(text: &str) -> Lexed {
        let s = text.as_bytes();
        let n = s.len();
        let blank = |b: u8| if b == b'\n' { b'\n' } else { b' ' };
        let mut code: Vec<u8> = s.to_vec();
        let mut doc: Vec<u8> = s.iter().map(|&b| blank(b)).collect();
        let mut i = 0;
        let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        while i < n {
            let b = s[i];
            if b == b'/' && i + 1 < n && s[i + 1] == b'/' {
                let is_doc = (s.get(i + 2) == Some(&b'/') && s.get(i + 3) != Some(&b'/'))
                    || s.get(i + 2) == Some(&b'!');
                let mut j = i;
                while j < n && s[j] != b'\n' {
                    if is_doc {
                        doc[j] = s[j];
                    }
                    code[j] = b' ';
                    j += 1;
                }
                i = j;
            } else if b == b'/' && i + 1 < n && s[i + 1] == b'*' {
                let is_doc = (s.get(i + 2) == Some(&b'*')
                    && !matches!(s.get(i + 3), Some(b'*') | Some(b'/')))
                    || s.get(i + 2) == Some(&b'!');
                let mut depth = 0;
                let mut j = i;
                while j < n {
                    if s[j] == b'/' && s.get(j + 1) == Some(&b'*') {
                        depth += 1;
                        code[j] = b' ';
                        code[j + 1] = b' ';
                        j += 2;
                        continue;
                    }
                    if s[j] == b'*' && s.get(j + 1) == Some(&b'/') {
                        depth -= 1;
                        code[j] = b' ';
                        code[j + 1] = b' ';
                        j += 2;
                        if depth == 0 {
                            break;
                        }
                        continue;
                    }
                    if is_doc {
                        doc[j] = s[j];
                    }
                    code[j] = blank(s[j]);
                    j += 1;
                }
                i = j;
            } else if (b == b'r' || (b == b'b' && s.get(i + 1) == Some(&b'r')))
                && (i == 0 || !ident(s[i - 1]))
                && {
                    let k = if b == b'r' { i + 1 } else { i + 2 };
                    let mut h = k;
                    while h < n && s[h] == b'#' {
                        h += 1;
                    }
                    h < n && s[h] == b'"'
                }
            {
                // Raw string: r"…", r#"…"#, br"…".
                let k = if b == b'r' { i + 1 } else { i + 2 };
                let mut h = k;
                while s[h] == b'#' {
                    h += 1;
                }
                let hashes = h - k;
                let mut j = h + 1;
                while j < n {
                    if s[j] == b'"'
                        && s[j + 1..]
                            .iter()
                            .take(hashes)
                            .filter(|&&c| c == b'#')
                            .count()
                            == hashes
                    {
                        j += 1 + hashes;
                        break;
                    }
                    j += 1;
                }
                for c in &mut code[i..j.min(n)] {
                    *c = blank(*c);
                }
                i = j;
            } else if b == b'"' {
                let mut j = i + 1;
                while j < n && s[j] != b'"' {
                    if s[j] == b'\\' {
                        j += 1;
                    }
                    j += 1;
                }
                let end = (j + 1).min(n);
                for c in &mut code[i..end] {
                    *c = blank(*c);
                }
                i = end;
            } else if b == b'\'' {
                // A char literal ('x', '\n', '\u{..}', 'é') or a lifetime ('a).
                let end = if s.get(i + 1) == Some(&b'\\') {
                    let mut j = i + 2;
                    while j < n && s[j] != b'\'' {
                        j += 1;
                    }
                    Some(j + 1)
                } else if i + 1 < n {
                    let len = utf8_len(s[i + 1]);
                    (s.get(i + 1 + len) == Some(&b'\'')).then_some(i + 2 + len)
                } else {
                    None
                };
                match end {
                    Some(e) => {
                        for c in &mut code[i..e.min(n)] {
                            *c = blank(*c);
                        }
                        i = e;
                    }
                    None => i += 1,
                }
            } else {
                i += 1;
            }
        }
        Lexed { code, doc }
    }
}

fn utf8_len(b: u8) -> usize {
    match b {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Each identifier (or keyword) with its offset.
fn words(s: &[u8]) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        if is_ident(s[i]) && (i == 0 || !is_ident(s[i - 1])) {
            let mut j = i;
            while j < s.len() && is_ident(s[j]) {
                j += 1;
            }
            if !s[i].is_ascii_digit() {
                out.push((i, std::str::from_utf8(&s[i..j]).unwrap()));
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

fn skip_ws(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && s[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// The offset after `::` (and whitespace) at `i`, if `::` is there.
fn after_colons(s: &[u8], i: usize) -> Option<usize> {
    let i = skip_ws(s, i);
    (s.get(i) == Some(&b':') && s.get(i + 1) == Some(&b':')).then(|| skip_ws(s, i + 2))
}

fn ident_at(s: &[u8], i: usize) -> Option<&str> {
    let mut j = i;
    while j < s.len() && is_ident(s[j]) {
        j += 1;
    }
    (j > i).then(|| std::str::from_utf8(&s[i..j]).unwrap())
}

/// The first segment of each path after `prefix::` at `i`: `x` for `::x::…`, and `a`, `b` for
/// `::{a, b::c}`; `self` and `*` name the root itself and are skipped.
fn first_segments(s: &[u8], i: usize) -> Vec<String> {
    let Some(i) = after_colons(s, i) else {
        return Vec::new();
    };
    if s.get(i) == Some(&b'{') {
        let mut out = Vec::new();
        let mut depth = 0;
        let mut expect = true;
        let mut j = i;
        while j < s.len() {
            match s[j] {
                b'{' => {
                    depth += 1;
                    if depth == 1 {
                        expect = true;
                    }
                }
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                b',' if depth == 1 => expect = true,
                c if depth == 1 && expect && is_ident(c) => {
                    let name = ident_at(s, j).unwrap();
                    if name != "self" {
                        out.push(name.to_string());
                    }
                    expect = false;
                    j += name.len();
                    continue;
                }
                c if !c.is_ascii_whitespace() && depth == 1 => expect = false,
                _ => {}
            }
            j += 1;
        }
        out
    } else {
        ident_at(s, i)
            .filter(|n| *n != "self")
            .map(|n| vec![n.to_string()])
            .unwrap_or_default()
    }
}

/// The spans of items under a `#[cfg(…)]` that names `test` (outside `not(…)`); a `#![cfg(test)]`
/// gives the span `(0, usize::MAX)`.
fn test_spans(code: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < code.len() {
        if code[i] != b'#' {
            i += 1;
            continue;
        }
        let start = i;
        let mut j = i + 1;
        let inner = code.get(j) == Some(&b'!');
        if inner {
            j += 1;
        }
        j = skip_ws(code, j);
        if code.get(j) != Some(&b'[') {
            i += 1;
            continue;
        }
        let k = skip_ws(code, j + 1);
        if ident_at(code, k) != Some("cfg") {
            i += 1;
            continue;
        }
        // The attribute's end: the matching `]`.
        let mut depth = 0;
        let mut e = j;
        while e < code.len() {
            match code[e] {
                b'[' | b'(' | b'{' => depth += 1,
                b']' | b')' | b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            e += 1;
        }
        let pred = std::str::from_utf8(&code[k + 3..e]).unwrap_or("");
        if !names_test(pred) {
            i = e + 1;
            continue;
        }
        if inner {
            out.push((0, usize::MAX));
            i = e + 1;
            continue;
        }
        // The item: to the first `;` outside brackets, or to the `}` that closes its body.
        let mut depth = 0i32;
        let mut f = e + 1;
        while f < code.len() {
            match code[f] {
                b'[' | b'(' | b'{' => depth += 1,
                b']' | b')' => depth -= 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                b';' if depth == 0 => break,
                _ => {}
            }
            f += 1;
        }
        out.push((start, f + 1));
        i = e + 1;
    }
    out
}

/// Whether a cfg predicate names `test` outside any `not(…)`.
fn names_test(pred: &str) -> bool {
    let mut p = pred.to_string();
    while let Some(at) = p.find("not(") {
        let mut depth = 0;
        let mut end = p.len();
        for (k, c) in p[at + 3..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = at + 3 + k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        p.replace_range(at..end, "");
    }
    words(p.as_bytes()).iter().any(|(_, w)| *w == "test")
}

struct ModDecl {
    name: String,
    pos: usize,
    /// For `mod x { … }`: the span of its body.
    inline: Option<(usize, usize)>,
    /// `#[path = "…"]` on `mod x;`.
    path_attr: Option<String>,
}

fn module_decls(lexed: &Lexed, text: &str) -> Vec<ModDecl> {
    let code = &lexed.code;
    let mut out = Vec::new();
    for (pos, word) in words(code) {
        if word != "mod" {
            continue;
        }
        let k = skip_ws(code, pos + 3);
        if k == pos + 3 {
            continue;
        }
        let Some(name) = ident_at(code, k) else {
            continue;
        };
        let after = skip_ws(code, k + name.len());
        match code.get(after) {
            Some(b';') => {
                // Attributes before it: back to the previous `;`, `{` or `}`.
                let mut b = pos;
                while b > 0 && !matches!(code[b - 1], b';' | b'{' | b'}') {
                    b -= 1;
                }
                let attrs = &text[b..pos];
                let path_attr = attrs.find("#[path").and_then(|at| {
                    let q = attrs[at..].find('"')? + at + 1;
                    let r = attrs[q..].find('"')? + q;
                    Some(attrs[q..r].to_string())
                });
                out.push(ModDecl {
                    name: name.to_string(),
                    pos,
                    inline: None,
                    path_attr,
                });
            }
            Some(b'{') => {
                let mut depth = 0;
                let mut e = after;
                while e < code.len() {
                    match code[e] {
                        b'{' => depth += 1,
                        b'}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    e += 1;
                }
                out.push(ModDecl {
                    name: name.to_string(),
                    pos,
                    inline: Some((after, e)),
                    path_attr: None,
                });
            }
            _ => {}
        }
    }
    out
}

/// `pub use m::{A, B};` and `pub use m::A;` in the crate root: each name → `m`. Through another
/// member crate (`pub use dp_core::m::A;`, one of `crates`), the module is the path's next segment;
/// `pub use dp_core::{m, n};` re-exports modules, which count as themselves.
fn reexports(lexed: &Lexed, crates: &[String]) -> BTreeMap<String, String> {
    let code = &lexed.code;
    let mut out = BTreeMap::new();
    let ws = words(code);
    for w in ws.windows(3) {
        if w[0].1 == "pub" && w[1].1 == "use" {
            let (mut pos, mut module) = w[2];
            if crates.iter().any(|c| c == module) {
                match after_colons(code, pos + module.len())
                    .and_then(|at| Some((at, ident_at(code, at)?)))
                {
                    Some((at, next)) => (pos, module) = (at, next),
                    None => continue,
                }
            }
            let end = code[pos..]
                .iter()
                .position(|&b| b == b';')
                .map_or(code.len(), |e| pos + e);
            for (_, name) in words(&code[pos + module.len()..end]) {
                if name != "self" && name != "as" {
                    out.insert(name.to_string(), module.to_string());
                }
            }
        }
    }
    out
}

/// The strongly connected components with more than one module (Tarjan), each sorted, in the
/// graph of the given references.
pub fn cycles<'a>(refs: impl IntoIterator<Item = &'a Ref>) -> Vec<Vec<String>> {
    let mut graph: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for r in refs {
        graph.entry(&r.from).or_default().insert(&r.to);
        graph.entry(&r.to).or_default();
    }
    struct T<'g> {
        graph: &'g BTreeMap<&'g str, BTreeSet<&'g str>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on: BTreeSet<&'g str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'g>(t: &mut T<'g>, v: &'g str) {
        let i = t.index.len();
        t.index.insert(v, i);
        t.low.insert(v, i);
        t.stack.push(v);
        t.on.insert(v);
        for &w in &t.graph[v] {
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = t.stack.pop().unwrap();
                t.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t = T {
        graph: &graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for &v in graph.keys() {
        if !t.index.contains_key(v) {
            visit(&mut t, v);
        }
    }
    t.out.sort();
    t.out
}

/// The edges inside one component, each with its references.
fn describe(comp: &[String], refs: &[&Ref], out: &mut String) {
    let mut edges: BTreeMap<(&str, &str), Vec<&Ref>> = BTreeMap::new();
    for r in refs {
        if comp.contains(&r.from) && comp.contains(&r.to) {
            edges.entry((&r.from, &r.to)).or_default().push(r);
        }
    }
    for ((a, b), rs) in edges {
        out.push_str(&format!("  {a} -> {b} ({} references)\n", rs.len()));
        for r in rs {
            let kind = match (r.doc, r.test) {
                (true, true) => "  [doc, test]",
                (true, false) => "  [doc]",
                (false, true) => "  [test]",
                (false, false) => "",
            };
            out.push_str(&format!("    {}:{}{kind}\n", r.file, r.line));
        }
    }
}

/// The report: the cycles of the library (test code left out), then those that only test code
/// adds. Returns the report and the library's cycles.
pub fn report(refs: &[Ref]) -> (String, Vec<Vec<String>>) {
    let lib: Vec<&Ref> = refs.iter().filter(|r| !r.test).collect();
    let all: Vec<&Ref> = refs.iter().collect();
    let lib_cycles = cycles(lib.iter().copied());
    let all_cycles = cycles(all.iter().copied());
    let mut out = String::new();
    let edges: BTreeSet<(&str, &str)> = lib
        .iter()
        .map(|r| (r.from.as_str(), r.to.as_str()))
        .collect();
    out.push_str(&format!(
        "{} references between top-level modules ({} in library code and its doc comments, {} in test code); {} module-to-module edges in the library.\n",
        refs.len(),
        lib.len(),
        refs.len() - lib.len(),
        edges.len()
    ));
    if lib_cycles.is_empty() {
        out.push_str("No import cycle between top-level modules of the library.\n");
    }
    for (k, comp) in lib_cycles.iter().enumerate() {
        out.push_str(&format!(
            "\nCycle {} in the library: {}\n",
            k + 1,
            comp.join(", ")
        ));
        describe(comp, &lib, &mut out);
    }
    let test_only: Vec<&Vec<String>> = all_cycles
        .iter()
        .filter(|c| !lib_cycles.contains(c))
        .collect();
    if !test_only.is_empty() {
        out.push_str("\nWith test code counted too (not a failure; test code may reach up):\n");
        for comp in test_only {
            out.push_str(&format!("\nComponent: {}\n", comp.join(", ")));
            describe(comp, &all, &mut out);
        }
    }
    (out, lib_cycles)
}

/// Each module and the modules it names in library code.
pub fn graph(refs: &[Ref]) -> String {
    let mut g: BTreeMap<&str, BTreeMap<&str, usize>> = BTreeMap::new();
    for r in refs.iter().filter(|r| !r.test) {
        *g.entry(&r.from).or_default().entry(&r.to).or_default() += 1;
    }
    let mut out = String::new();
    for (a, bs) in g {
        let list: Vec<String> = bs.iter().map(|(b, n)| format!("{b} ({n})")).collect();
        out.push_str(&format!("{a} -> {}\n", list.join(", ")));
    }
    out
}

const HELP: &str = "usage: scripts/layers [--graph] [ROOT]

Maps each reference to a top-level module of ROOT/src (default: the current directory) to the
module it names, builds the graph between top-level modules and prints each strongly connected
component (an import cycle) with the references (file:line) that form it. Exits 1 if the
library has a cycle, 2 on an unreadable tree.

Counted: paths from the crate root in code (crate::x, $crate::x, crate::{x, y::z}, super::x
when the supers reach the root, dp_playground::x in src/bin), and crate::x in doc comments
(intra-doc links must resolve too). Not counted: plain comments and strings.
Test code (#[cfg(test)] items and files declared under #[cfg(test)]) does not count in the
layering of the library; the cycles it would add are printed separately and do not fail.

--graph      also print each module's dependencies (library code) with reference counts.
--code-only  leave doc comments out (to see which cycles only doc links make).";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{HELP}");
        return;
    }
    let show_graph = args.iter().any(|a| a == "--graph");
    let code_only = args.iter().any(|a| a == "--code-only");
    let root = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .map_or(PathBuf::from("."), PathBuf::from);
    let (_, mut refs) = match scan(&root) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("layers: {e}");
            std::process::exit(2);
        }
    };
    if code_only {
        refs.retain(|r| !r.doc);
    }
    if show_graph {
        println!("{}", graph(&refs));
    }
    let (text, lib_cycles) = report(&refs);
    print!("{text}");
    if !lib_cycles.is_empty() {
        std::process::exit(1);
    }
}
