//! `zt info [--json] FILE...`.

use crate::args::InfoArgs;
use crate::json::{self, JsonMap};
use crate::{http, input, out, Fail};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use std::fmt::Write as _;
use ztensor::{Component, File, Object};

/// `zt info [--json] FILE...`: each file in turn; one that fails is
/// reported and the others are still shown.
pub fn run(a: &InfoArgs) -> Result<(), Fail> {
    let several = a.files.len() > 1;
    let mut first = true;
    crate::each_file(&a.files, |path| {
        // A URL is read by range requests: its tail only (crate::http).
        let (bytes, parsed, reader);
        let file: &File<'_> = if http::is_url(path) {
            reader = input::open_url(path).map_err(|e| Fail::input(path, e))?;
            reader.file()
        } else {
            bytes = input::load(path).map_err(|e| Fail::input(path, e))?;
            parsed = File::parse(&bytes).map_err(|e| Fail::input(path, e))?;
            &parsed
        };
        let label = out::path(path);
        let text = if a.json {
            to_json(file, several.then_some(label.as_str()))
        } else {
            let gap = if first { "" } else { "\n" };
            format!("{gap}{}", to_text(&label, file))
        };
        first = false;
        out::print(&text)
    })
}

fn shape(o: &Object<'_>) -> String {
    let dims: Vec<String> = o.shape().dims().map(|d| d.to_string()).collect();
    format!("[{}]", dims.join(", "))
}

// ------------------------------------------------------------------ JSON

/// One JSON document: `{"version", "attributes", "objects": [...]}` (with
/// `"file"` first when several files are shown), one object per line.
fn to_json(file: &File<'_>, label: Option<&str>) -> String {
    let mut s = String::from("{");
    if let Some(l) = label {
        let _ = write!(s, "\"file\":{},", json::to_string(&l));
    }
    let _ = write!(
        s,
        "\"version\":{},\"attributes\":{},\"objects\":[",
        json::to_string(&file.version().to_string()),
        json::to_string(&JsonMap(file.attributes()))
    );
    for (i, o) in file.objects().enumerate() {
        s.push_str(if i == 0 { "\n" } else { ",\n" });
        s.push_str(&json::to_string(&ObjectJson(&o)));
    }
    s.push_str("\n]}\n");
    s
}

/// An object as `info --json` shows it.
struct ObjectJson<'o, 'a>(&'o Object<'a>);

/// A component as `info --json` shows it.
#[derive(Serialize)]
struct ComponentJson<'a> {
    dtype: &'a str,
    #[serde(rename = "type")]
    logical: Option<&'a str>,
    encoding: &'a str,
    offset: u64,
    length: u64,
    uncompressed_length: Option<u64>,
    digest: Option<&'a str>,
    /// v2: the shard holding the part (absent for v1.x files).
    #[serde(skip_serializing_if = "Option::is_none")]
    shard: Option<Option<&'a str>>,
}

impl Serialize for ObjectJson<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let o = self.0;
        let shape: Vec<u64> = o.shape().dims().collect();
        let mut m = s.serialize_map(Some(5))?;
        m.serialize_entry("name", o.name())?;
        m.serialize_entry("shape", &shape)?;
        m.serialize_entry("format", o.format().name())?;
        m.serialize_entry("attributes", &JsonMap(o.attributes()))?;
        m.serialize_entry("components", &ComponentsJson(o))?;
        m.end()
    }
}

/// An object's components: `{ROLE: {...}}` in manifest order.
struct ComponentsJson<'o, 'a>(&'o Object<'a>);

impl Serialize for ComponentsJson<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        for c in self.0.components() {
            let lt = c.logical_type();
            let cj = ComponentJson {
                dtype: c.dtype().name(),
                logical: lt.as_ref().map(|t| t.name()),
                encoding: c.encoding_id(),
                offset: c.offset(),
                length: c.length(),
                uncompressed_length: c.uncompressed_length(),
                digest: c.digest(),
                shard: c.digest_covers_decoded().then(|| c.shard()),
            };
            m.serialize_entry(c.role(), &cj)?;
        }
        m.end()
    }
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
        let _ = writeln!(s, "attributes: {}", json::map_to_brief(file.attributes()));
    }

    let mut rows = Vec::new();
    let (mut comps, mut stored, mut decoded, mut unknown) = (0u64, 0u64, 0u64, 0u64);
    for o in file.objects() {
        let attrs = o.attributes();
        rows.push(Row::Object {
            title: format!("{}  {}  {}", out::name(o.name()), shape(&o), o.format()),
            attributes: (!attrs.is_empty()).then(|| json::map_to_brief(attrs)),
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
                c.encoding_id().to_owned(),
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
