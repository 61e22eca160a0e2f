//! `zt info [--json] FILE`.

use crate::args::{Command, Flag, Parsed};
use crate::{input, json, out, Fail};
use std::fmt::Write as _;
use std::path::PathBuf;
use ztensor::{Component, File, Object};

pub const COMMAND: Command = Command {
    name: "info",
    usage: "zt info [--json] FILE",
    help: "\
Summarize a zTensor file: its version, then every object (name, shape,
format, attributes) and every component (role, dtype and logical type,
encoding, stored and decoded size, compression ratio, digest algorithm),
with totals at the end.

Options:
  --json       Print one JSON object instead:
               {\"version\", \"attributes\", \"objects\": [{\"name\", \"shape\",
               \"format\", \"attributes\", \"components\": {ROLE: {\"dtype\",
               \"type\", \"encoding\", \"offset\", \"length\",
               \"uncompressed_length\", \"digest\"}}}]}
               Objects and components are in manifest order; absent
               type, uncompressed_length and digest are null; dtypes use
               the v1.2 names (f32, u8, ...) for every file version.
               CBOR attributes become JSON: byte strings as lowercase hex,
               tags as their content, non-text map keys as strings,
               NaN/Infinity/-Infinity floats as those strings, undefined
               as null.
  -h, --help   Show this help
",
    flags: &[Flag { long: "json", short: None, takes_value: false, optional_value: false }],
    positional: &["FILE"],
};

pub fn run(p: &Parsed) -> Result<(), Fail> {
    let path = PathBuf::from(&p.positional[0]);
    let bytes = input::load(&path).map_err(|e| Fail::input(&path, e))?;
    let file = File::parse(&bytes).map_err(|e| Fail::input(&path, e))?;
    let text = if p.has("json") { to_json(&file) } else { to_text(&path.display().to_string(), &file) };
    out::print(&text)
}

fn shape(o: &Object<'_>) -> String {
    let dims: Vec<String> = o.shape().dims().map(|d| d.to_string()).collect();
    format!("[{}]", dims.join(", "))
}

// ------------------------------------------------------------------ JSON

fn to_json(file: &File<'_>) -> String {
    let mut s = String::new();
    s.push_str("{\"version\":");
    json::string(&mut s, &file.version().to_string());
    s.push_str(",\"attributes\":");
    json::map(&mut s, file.attributes());
    s.push_str(",\"objects\":[");
    for (i, o) in file.objects().enumerate() {
        s.push_str(if i == 0 { "\n" } else { ",\n" });
        object_json(&mut s, &o);
    }
    s.push_str("\n]}\n");
    s
}

fn object_json(s: &mut String, o: &Object<'_>) {
    s.push_str("{\"name\":");
    json::string(s, o.name());
    s.push_str(",\"shape\":[");
    for (i, d) in o.shape().dims().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(s, "{d}");
    }
    s.push_str("],\"format\":");
    json::string(s, o.format().name());
    s.push_str(",\"attributes\":");
    json::map(s, o.attributes());
    s.push_str(",\"components\":{");
    for (i, c) in o.components().enumerate() {
        if i > 0 {
            s.push(',');
        }
        json::string(s, c.role());
        s.push_str(":{\"dtype\":");
        json::string(s, c.dtype().name());
        s.push_str(",\"type\":");
        json::opt_string(s, c.logical_type().map(|t| t.name()));
        s.push_str(",\"encoding\":");
        json::string(s, c.encoding().name());
        let _ = write!(s, ",\"offset\":{},\"length\":{}", c.offset(), c.length());
        s.push_str(",\"uncompressed_length\":");
        json::opt_u64(s, c.uncompressed_length());
        s.push_str(",\"digest\":");
        json::opt_string(s, c.digest());
        s.push('}');
    }
    s.push_str("}}");
}

// ------------------------------------------------------------------ text

/// One printed row: an object line or a component line.
enum Row {
    Object { title: String, attributes: Option<String> },
    Component([String; 7]),
}

const HEADER: [&str; 7] = ["ROLE", "DTYPE", "ENCODING", "STORED", "DECODED", "RATIO", "DIGEST"];
/// Which columns are right-aligned (numbers).
const RIGHT: [bool; 7] = [false, false, false, true, true, true, false];

fn dtype_label(c: &Component<'_>) -> String {
    match c.logical_type() {
        Some(t) => format!("{} ({})", c.dtype(), t),
        None => c.dtype().to_string(),
    }
}

fn to_text(label: &str, file: &File<'_>) -> String {
    let mut s = String::new();
    let tail = file.tail();
    let _ = writeln!(
        s,
        "{label}: zTensor {}, {} object{}, {} bytes (manifest {} bytes at offset {})",
        file.version(),
        file.len(),
        if file.len() == 1 { "" } else { "s" },
        tail.file_len,
        tail.manifest_len,
        tail.manifest_offset,
    );
    if !file.attributes().is_empty() {
        let _ = writeln!(s, "attributes: {}", json::map_to_string(file.attributes()));
    }

    let mut rows = Vec::new();
    let (mut comps, mut stored, mut decoded, mut unknown) = (0u64, 0u64, 0u64, 0u64);
    for o in file.objects() {
        let attrs = o.attributes();
        rows.push(Row::Object {
            title: format!("{}  {}  {}", out::name(o.name()), shape(&o), o.format()),
            attributes: (!attrs.is_empty()).then(|| json::map_to_string(attrs)),
        });
        for c in o.components() {
            comps += 1;
            stored += c.length();
            match c.decoded_len() {
                Some(n) => decoded += n,
                None => unknown += 1,
            }
            let digest = c.digest().map(|d| d.split_once(':').map_or(d, |(alg, _)| alg)).unwrap_or("-");
            rows.push(Row::Component([
                out::name(c.role()),
                dtype_label(&c),
                c.encoding().to_string(),
                c.length().to_string(),
                c.decoded_len().map_or("?".into(), |n| n.to_string()),
                out::ratio(c.length(), c.decoded_len()),
                digest.to_owned(),
            ]));
        }
    }

    if !rows.is_empty() {
        let mut width = HEADER.map(|h| h.chars().count());
        for r in &rows {
            if let Row::Component(cells) = r {
                for (w, c) in width.iter_mut().zip(cells) {
                    *w = (*w).max(c.chars().count());
                }
            }
        }
        let line = |s: &mut String, cells: &[&str; 7]| {
            s.push_str("   ");
            for (i, c) in cells.iter().enumerate() {
                let pad = width[i].saturating_sub(c.chars().count());
                s.push_str("  ");
                if RIGHT[i] {
                    s.extend(std::iter::repeat(' ').take(pad));
                    s.push_str(c);
                } else {
                    s.push_str(c);
                    if i + 1 < cells.len() {
                        s.extend(std::iter::repeat(' ').take(pad));
                    }
                }
            }
            s.push('\n');
        };
        s.push('\n');
        line(&mut s, &HEADER);
        for r in &rows {
            match r {
                Row::Object { title, attributes } => {
                    let _ = writeln!(s, "{title}");
                    if let Some(a) = attributes {
                        let _ = writeln!(s, "     attributes: {a}");
                    }
                }
                Row::Component(cells) => line(&mut s, &cells.each_ref().map(String::as_str)),
            }
        }
        s.push('\n');
    }

    let decoded_known = (unknown == 0).then_some(decoded);
    let _ = write!(
        s,
        "total: {} object{}, {} component{}, {} stored, ",
        file.len(),
        if file.len() == 1 { "" } else { "s" },
        comps,
        if comps == 1 { "" } else { "s" },
        out::bytes(stored),
    );
    if unknown == 0 {
        let _ = write!(s, "{} decoded, ratio {}", out::bytes(decoded), out::ratio(stored, decoded_known));
    } else {
        let _ = write!(
            s,
            "at least {} decoded ({unknown} component{} of undeclared decoded size)",
            out::bytes(decoded),
            if unknown == 1 { "" } else { "s" }
        );
    }
    s.push('\n');
    s
}
