//! Structure-aware mutation: JSON trees (configs, links, plot specs) are mutated as trees, so
//! most inputs stay JSON objects with known keys and reach the checks behind the parser; text
//! and CSV files are mutated by lines, cells and bytes. Every choice is drawn from
//! `arbitrary::Unstructured`, so an input is a function of the bytes the loop feeds it.

use arbitrary::{Result, Unstructured};
use serde_json::{Map, Value};

/// Numbers that sit on edges: zero and signs, the float extremes and subnormals, integer limits,
/// and values just past the ranges the page's controls allow.
const EDGE_NUMBERS: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    2.0,
    3.0,
    10.0,
    100.0,
    1e-12,
    1e-8,
    1e-300,
    1e-320,
    5e-324,
    1e-9,
    1e6,
    1e9,
    1e12,
    1e15,
    1e300,
    1e308,
    f64::MAX,
    -f64::MAX,
    f64::MIN_POSITIVE,
    4294967295.0,
    4294967296.0,
    9007199254740992.0,
    18446744073709551615.0,
    0.999999,
    1.000001,
    -1e-300,
];

/// Raw JSON tokens that are not (or not ordinary) JSON numbers, spliced in as text.
const RAW_TOKENS: &[&str] = &[
    "NaN",
    "Infinity",
    "-Infinity",
    "1e999",
    "-1e999",
    "1e-999",
    "-0",
    "00",
    "01",
    "1.",
    ".5",
    "+1",
    "0x10",
    "18446744073709551616",
    "-9223372036854775809",
    "123456789012345678901234567890",
    "1E+2",
    "true",
    "null",
    "[]",
    "{}",
    "\"\"",
    "[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]",
];

/// Strings that are hostile as values or keys.
const EDGE_STRINGS: &[&str] = &[
    "",
    " ",
    "0",
    "1e3",
    "NaN",
    "inf",
    "-1",
    "true",
    "null",
    "\u{feff}3",
    "3\u{200b}",
    "é",
    "\u{0}",
    "\"",
    "\\",
    "\u{202e}gnp.exe",
    "__proto__",
    "constructor",
    "kind",
];

/// A marker a mutation leaves in a string, replaced by a raw token after serialising.
const RAW_MARK: &str = "\u{1}RAW";

/// Every key and every string value of `v`, gathered from the seeds: mutations reuse them so a
/// mutated field is often a real one with another real choice.
pub fn dictionary(v: &Value, keys: &mut Vec<String>, strings: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if !keys.contains(k) {
                    keys.push(k.clone());
                }
                dictionary(x, keys, strings);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| dictionary(x, keys, strings)),
        Value::String(s) if !strings.contains(s) => strings.push(s.clone()),
        _ => {}
    }
}

/// The words mutations draw from.
pub struct Words<'a> {
    pub keys: &'a [String],
    pub strings: &'a [String],
}

/// A new JSON value: an edge number, a dictionary or edge string, a small container, or a raw
/// token marker.
fn value(u: &mut Unstructured<'_>, w: &Words<'_>, depth: u32) -> Result<Value> {
    Ok(match u.int_in_range(0..=11)? {
        0 | 1 => Value::from(*u.choose(EDGE_NUMBERS)?),
        2 => Value::from(u.arbitrary::<f64>()?),
        3 => Value::from(u.arbitrary::<i64>()?),
        4 => Value::from(u.int_in_range(0..=1000u32)?),
        5 | 6 if !w.strings.is_empty() => Value::String(u.choose(w.strings)?.clone()),
        7 => Value::String(u.choose(EDGE_STRINGS)?.to_string()),
        8 => Value::String(u.arbitrary::<String>()?),
        9 => Value::Bool(u.arbitrary()?),
        10 if depth < 3 => {
            let mut m = Map::new();
            for _ in 0..u.int_in_range(0..=3)? {
                let key = if w.keys.is_empty() || u.ratio(1, 4)? {
                    u.arbitrary::<String>()?
                } else {
                    u.choose(w.keys)?.clone()
                };
                m.insert(key, value(u, w, depth + 1)?);
            }
            Value::Object(m)
        }
        11 if depth < 3 => Value::Array(
            (0..u.int_in_range(0..=4)?)
                .map(|_| value(u, w, depth + 1))
                .collect::<Result<_>>()?,
        ),
        _ => Value::String(format!("{RAW_MARK}{}", u.choose_index(RAW_TOKENS.len())?)),
    })
}

/// A number nudged: scaled by a power of ten, negated, rounded, or moved by one ulp.
fn nudge(u: &mut Unstructured<'_>, x: f64) -> Result<Value> {
    Ok(Value::from(match u.int_in_range(0..=5)? {
        0 => x * 10f64.powi(u.int_in_range(-12..=12)?),
        1 => -x,
        2 => x.round(),
        3 => f64::from_bits(x.to_bits().wrapping_add(1)),
        4 => x + f64::from(u.int_in_range(-3..=3i32)?),
        _ => x / 2.0,
    }))
}

/// The node of `v` reached by taking child `path[0]`, then `path[1]`, ….
fn node_at<'v>(v: &'v mut Value, path: &[usize]) -> &'v mut Value {
    match (path.split_first(), v) {
        (Some((&i, rest)), Value::Object(m)) => match m.values_mut().nth(i) {
            Some(child) => node_at(child, rest),
            None => unreachable!("the path was taken on this value"),
        },
        (Some((&i, rest)), Value::Array(a)) => node_at(&mut a[i], rest),
        (_, v) => v,
    }
}

/// Applies one mutation at a random node of `v`.
fn mutate_once(u: &mut Unstructured<'_>, v: &mut Value, w: &Words<'_>) -> Result<()> {
    // Walk down: at each container, stop here or step into a random child.
    let mut path = Vec::new();
    let mut at: &Value = v;
    loop {
        let len = match at {
            Value::Object(m) => m.len(),
            Value::Array(a) => a.len(),
            _ => 0,
        };
        if len == 0 || !u.ratio(2, 3)? {
            break;
        }
        let i = u.choose_index(len)?;
        path.push(i);
        at = match at {
            Value::Object(m) => m.values().nth(i).unwrap_or(at),
            Value::Array(a) => &a[i],
            _ => at,
        };
    }
    let node = node_at(v, &path);
    match node {
        Value::Object(m) => match u.int_in_range(0..=3)? {
            0 if !m.is_empty() => {
                let i = u.choose_index(m.len())?;
                let key = m.keys().nth(i).cloned().unwrap_or_default();
                m.remove(&key);
            }
            1 | 2 => {
                let key = if w.keys.is_empty() || u.ratio(1, 8)? {
                    u.choose(EDGE_STRINGS)?.to_string()
                } else {
                    u.choose(w.keys)?.clone()
                };
                m.insert(key, value(u, w, 1)?);
            }
            _ => *node = value(u, w, 1)?,
        },
        Value::Array(a) => match u.int_in_range(0..=3)? {
            0 if !a.is_empty() => {
                a.remove(u.choose_index(a.len())?);
            }
            1 if !a.is_empty() => {
                let x = a[u.choose_index(a.len())?].clone();
                let times = u.int_in_range(1..=64)?;
                a.extend(std::iter::repeat_n(x, times));
            }
            2 => a.push(value(u, w, 1)?),
            _ => *node = value(u, w, 1)?,
        },
        Value::Number(n) if u.ratio(1, 2)? => {
            let x = n.as_f64().unwrap_or(0.0);
            *node = nudge(u, x)?;
        }
        _ => *node = value(u, w, 1)?,
    }
    Ok(())
}

/// A mutant of `seed` as JSON text: a few tree mutations, then now and then a textual one
/// (truncation, a spliced byte run, a duplicated span) so the parser's own errors are reached.
pub fn json(u: &mut Unstructured<'_>, seed: &Value, w: &Words<'_>) -> Result<Vec<u8>> {
    let mut v = seed.clone();
    for _ in 0..u.int_in_range(0..=6)? {
        mutate_once(u, &mut v, w)?;
    }
    let mut text = serde_json::to_string(&v).unwrap_or_default();
    // Splice raw tokens where markers were left (serde_json writes the marker as `"\u0001RAW<i>"`).
    let marker = serde_json::to_string(RAW_MARK).unwrap_or_default();
    let marker = &marker[..marker.len() - 1];
    while let Some(at) = text.find(marker) {
        let rest = &text[at + marker.len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let end = at + marker.len() + digits.len() + 1;
        let token = RAW_TOKENS[digits.parse::<usize>().unwrap_or(0) % RAW_TOKENS.len()];
        text.replace_range(at..end.min(text.len()), token);
    }
    let mut bytes = text.into_bytes();
    if u.ratio(1, 6)? {
        bytes_mutation(u, &mut bytes)?;
    }
    Ok(bytes)
}

/// One byte-level mutation: truncate, flip, insert random bytes, duplicate or delete a span.
pub fn bytes_mutation(u: &mut Unstructured<'_>, b: &mut Vec<u8>) -> Result<()> {
    let len = b.len();
    let at = if len == 0 {
        0
    } else {
        u.choose_index(len + 1)?
    };
    match u.int_in_range(0..=5)? {
        0 => b.truncate(at),
        1 if at < len => b[at] ^= 1 << u.int_in_range(0..=7)?,
        2 => {
            let n = u.int_in_range(1..=8)?;
            let fresh: Vec<u8> = (0..n).map(|_| u.arbitrary()).collect::<Result<_>>()?;
            b.splice(at..at, fresh);
        }
        3 if at < len => {
            let end = at + u.int_in_range(1..=(len - at).min(200))?;
            let span = b[at..end].to_vec();
            b.splice(end..end, span);
        }
        4 if at < len => {
            let end = at + u.int_in_range(1..=(len - at).min(50))?;
            b.drain(at..end);
        }
        _ => {
            let token = u.choose(RAW_TOKENS)?;
            b.splice(at..at, token.bytes());
        }
    }
    Ok(())
}

/// Cells that break number parsing, line counting or the label check.
const EDGE_CELLS: &[&str] = &[
    "",
    " ",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "infinity",
    "1e309",
    "-1e309",
    "1e-400",
    "1e200",
    "-0",
    "0x10",
    "1,5",
    "\u{feff}1",
    "1\u{200b}",
    "\"1\"",
    "\"",
    "\"a\nb\"",
    "1 2",
    "+1",
    "-1",
    "1",
    "0",
    "2",
    "label",
    "y",
    "x1",
    "é",
    "\r",
    "\n",
    "\r\n",
];

/// A mutant of a CSV file: line and cell edits (hostile cells, dropped and repeated rows, a
/// changed delimiter or line ending), then now and then a byte-level one.
pub fn csv(u: &mut Unstructured<'_>, seed: &[u8]) -> Result<Vec<u8>> {
    let text = String::from_utf8_lossy(seed).into_owned();
    let ending = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let mut rows: Vec<String> = text.split(ending).map(str::to_string).collect();
    let delimiter = [',', ';', '\t']
        .into_iter()
        .max_by_key(|d| rows.first().map_or(0, |r| r.matches(*d).count()))
        .unwrap_or(',');
    for _ in 0..u.int_in_range(0..=5)? {
        if rows.is_empty() {
            rows.push(String::new());
        }
        let r = u.choose_index(rows.len())?;
        match u.int_in_range(0..=7)? {
            0 | 1 => {
                let mut cells: Vec<String> = rows[r].split(delimiter).map(str::to_string).collect();
                let c = u.choose_index(cells.len())?;
                cells[c] = if u.ratio(3, 4)? {
                    u.choose(EDGE_CELLS)?.to_string()
                } else {
                    u.arbitrary::<String>()?
                };
                rows[r] = cells.join(&delimiter.to_string());
            }
            2 => {
                rows.remove(r);
            }
            3 => {
                let row = rows[r].clone();
                let times = u.int_in_range(1..=200)?;
                rows.splice(r..r, std::iter::repeat_n(row, times));
            }
            4 => {
                let extra = u.choose(&[",", ";", "\t", ",,", ""])?;
                rows[r].push_str(extra);
            }
            5 => {
                let other = u.choose(&[',', ';', '\t', ' ', '|'])?;
                rows[r] = rows[r].replace(delimiter, &other.to_string());
            }
            6 => {
                let cells = u.int_in_range(1..=1100usize)?;
                rows[r] = vec!["1"; cells].join(&delimiter.to_string());
            }
            _ => rows.insert(r, String::new()),
        }
    }
    let ending = *u.choose(&[ending, ending, "\n", "\r\n", "\r"])?;
    let mut bytes = rows.join(ending).into_bytes();
    if u.ratio(1, 8)? {
        bytes.splice(0..0, *b"\xEF\xBB\xBF");
    }
    if u.ratio(1, 5)? {
        bytes_mutation(u, &mut bytes)?;
    }
    Ok(bytes)
}
