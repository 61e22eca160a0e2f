//! `include/ztensor.h` is generated from this crate by cbindgen and
//! committed. This test regenerates it and fails when the committed copy
//! is stale; `ZT_BLESS=1 cargo test --manifest-path ffi/Cargo.toml --test header` rewrites it.
//!
//! The header reads host-first: cbindgen writes every constant before the
//! types and functions, so the firmware-only numbers (`ZT_FAULT_*`,
//! `ZT_REFUSAL_*`: what `zt_last_error` says in the no-texts firmware
//! build) would open the file. [`generate`] writes them in a second pass
//! and places them last, after cbindgen.toml's `trailer` (their heading),
//! inside the include guard.

use std::path::{Path, PathBuf};

/// Constants only the firmware (no-heap, compact) build's users need.
const FIRMWARE_ONLY: [&str; 2] = ["ZT_FAULT_", "ZT_REFUSAL_"];

fn firmware_only(name: &str) -> bool {
    FIRMWARE_ONLY.iter().any(|p| name.starts_with(p))
}

/// The header as ffi/src and cbindgen.toml make it.
fn generate(crate_dir: &Path) -> String {
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("read ffi/cbindgen.toml");
    let build = |config: cbindgen::Config| {
        cbindgen::Builder::new().with_crate(crate_dir).with_config(config).generate().expect("cbindgen failed")
    };

    // Pass 1: the firmware-only constants alone (no preamble, guard or includes).
    let mut bare = config.clone();
    bare.header = None;
    bare.include_guard = None;
    bare.autogen_warning = None;
    bare.no_includes = true;
    bare.sys_includes.clear();
    bare.includes.clear();
    bare.after_includes = None;
    bare.trailer = None;
    let mut firmware = build(bare);
    firmware.constants.retain(|c| firmware_only(&c.export_name));
    firmware.items.clear();
    firmware.globals.clear();
    firmware.functions.clear();
    assert!(firmware.constants.len() >= 40, "found only {} firmware-only constants", firmware.constants.len());
    let mut text = Vec::new();
    firmware.write(&mut text);
    let text = String::from_utf8(text).expect("header is UTF-8");

    // Pass 2: everything else; the guard written by hand so that the
    // trailer (heading + pass 1) stays inside it.
    let mut host = config;
    let guard = host.include_guard.take().expect("cbindgen.toml sets include_guard");
    let heading = host.trailer.take().expect("cbindgen.toml's trailer: the firmware section's heading");
    host.header = Some(format!("{}\n\n#ifndef {guard}\n#define {guard}", host.header.take().unwrap_or_default()));
    host.trailer = Some(format!("{heading}\n\n{}\n\n#endif  /* {guard} */\n", text.trim()));
    let mut main = build(host);
    main.constants.retain(|c| !firmware_only(&c.export_name));
    let mut fresh = Vec::new();
    main.write(&mut fresh);
    String::from_utf8(fresh).expect("header is UTF-8")
}

#[test]
fn committed_header_is_up_to_date() {
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let fresh = generate(&crate_dir);

    let path = crate_dir.join("../include/ztensor.h");
    if std::env::var_os("ZT_BLESS").is_some_and(|v| v != "0") {
        std::fs::write(&path, &fresh).expect("write include/ztensor.h");
        eprintln!("wrote {}", path.display());
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != fresh {
        let diff = first_difference(&committed, &fresh);
        panic!(
            "include/ztensor.h is stale: it differs from what ffi/src generates.\n{diff}\n\
             Regenerate it with:\n    ZT_BLESS=1 cargo test --manifest-path ffi/Cargo.toml --test header\n\
             and commit the result."
        );
    }
}

/// A short hint: the first differing line of each side, with its number.
fn first_difference(old: &str, new: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    let i = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let line = |v: &[&str], i: usize| v.get(i).map_or("(end of file)".to_string(), |l| format!("{l:?}"));
    format!(
        "first difference at line {}:\n  committed: {}\n  generated: {}\n({} lines committed, {} generated)",
        i + 1,
        line(&a, i),
        line(&b, i),
        a.len(),
        b.len()
    )
}

/// Every function in the header says who owns what and whether it is
/// thread-safe (the C ABI conventions of DESIGN.md).
#[test]
fn every_function_documents_ownership_and_thread_safety() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../include/ztensor.h");
    let header = std::fs::read_to_string(path).expect("read include/ztensor.h");
    let mut functions = 0;
    let mut rest = header.as_str();
    while let Some(start) = rest.find("/**") {
        let after = &rest[start..];
        let end = after.find("*/").expect("unterminated doc comment") + 2;
        let (doc, tail) = (&after[..end], &after[end..]);
        // The declaration that follows the comment, up to its `;` or `{`.
        let decl_end = tail.find([';', '{']).unwrap_or(tail.len());
        let decl = &tail[..decl_end];
        if let Some(paren) = decl.find('(') {
            if !decl.trim_start().starts_with('#') {
                let name = decl[..paren].split_whitespace().last().unwrap_or("").trim_start_matches('*');
                if name.starts_with("zt_") {
                    functions += 1;
                    for word in ["Ownership", "Thread-safety"] {
                        assert!(doc.contains(word), "{name}: its doc comment does not say `{word}:`");
                    }
                }
            }
        }
        rest = tail;
    }
    assert!(functions >= 20, "found only {functions} functions in the header");
}

/// The code in the header's opening comment can be copied: no string
/// literal runs over a line end (a `\n` in cbindgen.toml must be written
/// `\\n`, or it becomes a real newline inside `"..."`).
#[test]
fn preamble_examples_keep_string_literals_on_one_line() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../include/ztensor.h");
    let header = std::fs::read_to_string(path).expect("read include/ztensor.h");
    let preamble = &header[..header.find("*/").expect("opening comment")];
    for (i, line) in preamble.lines().enumerate() {
        let quotes = line.as_bytes().windows(2).filter(|w| w[1] == b'"' && w[0] != b'\\').count()
            + usize::from(line.starts_with('"'));
        assert!(quotes % 2 == 0, "include/ztensor.h line {}: a string literal is cut by a newline: {line:?}", i + 1);
    }
}
