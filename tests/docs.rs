//! The docs say what the code does today, and the README stays short
//! (DESIGN.md's Layout: README ≤ 300 lines). Its Rust blocks are compiled
//! and run by `cargo test --doc` (`src/lib.rs`), its C and C++ quick starts
//! by ctest (`examples-c/`: `readme_quickstarts`, `readme_quickstart*.`).

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// README.md and every docs/*.md, with their paths.
fn docs() -> Vec<(PathBuf, String)> {
    let mut paths = vec![root().join("README.md")];
    let mut md: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("read docs/")
        .map(|e| e.expect("docs/ entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    md.sort();
    paths.extend(md);
    paths.into_iter().map(|p| (p.clone(), read(&p))).collect()
}

/// Statements that were true once and are not any more: the code reads
/// v0.1, v1.1, v1.2 and v2, and writes v2 (the default) and v1.2 (issue 29).
const STALE: [&str; 8] = [
    "We write v1.2 only",
    "reads v0.1 and v1.x",
    "writes v1.2 only",
    "and the one it writes",
    "v1.2 (the default)",
    "v1.2 by default",
    "the default is still v1.2",
    "(v1.2, the default)",
];

#[test]
fn no_stale_statements() {
    let mut found = Vec::new();
    for (path, text) in docs() {
        let lower = text.to_lowercase();
        for phrase in STALE {
            if let Some(at) = lower.find(&phrase.to_lowercase()) {
                let line = text[..at].matches('\n').count() + 1;
                found.push(format!("{}:{line}: {phrase:?}", path.display()));
            }
        }
    }
    assert!(found.is_empty(), "stale statements (the code reads v0.1-v2, writes v2 by default and v1.2):\n{}", found.join("\n"));
}

#[test]
fn readme_is_at_most_300_lines() {
    let n = read(&root().join("README.md")).lines().count();
    assert!(n <= 300, "README.md has {n} lines; keep it at 300 or fewer (move details to docs/)");
}

#[test]
fn readme_testing_section_is_at_most_30_lines() {
    let readme = read(&root().join("README.md"));
    let start = readme.find("\n## Testing\n").expect("README.md has a `## Testing` section") + 1;
    let end = readme[start + 1..].find("\n## ").map_or(readme.len(), |i| start + 1 + i);
    let n = readme[start..end].trim_end().lines().count();
    assert!(n <= 30, "README.md's Testing section has {n} lines (heading included); keep it at 30 or fewer");
}

/// The two commands at the very top stay true: the file the first one
/// inspects is shipped, the second one's script exists.
#[test]
fn readme_opens_with_the_two_commands() {
    let readme = read(&root().join("README.md"));
    let block = readme.split("```sh\n").nth(1).and_then(|b| b.split("```").next()).expect("a ```sh block");
    assert!(readme.find("```sh\n") < readme.find("\n## "), "the commands come before the first section");
    let lines: Vec<&str> = block.lines().collect();
    assert_eq!(lines.len(), 2, "two commands: {block}");
    let inspect = lines[0].split('#').next().unwrap().trim();
    let file =
        inspect.strip_prefix("cargo run --release -p ztensor-cli -- info ").expect("first: zt info of a shipped file");
    assert!(root().join(file).is_file(), "{file} is not in the repository");
    assert!(lines[1].starts_with("bash scripts/test-all.sh"), "second: the test command");
    assert!(root().join("scripts/test-all.sh").is_file());
}

/// Issue 29, item 2: nothing a user needs is hidden from `cargo doc`: no
/// public module is `#[doc(hidden)]` (the v2 layer is documented), and the
/// types the reader hands out for v2 layouts are at the crate root.
#[test]
fn no_public_module_is_hidden_and_v2_profiles_are_at_the_root() {
    let lib = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/lib.rs")).unwrap();
    let lines: Vec<&str> = lib.lines().collect();
    let hidden: Vec<&[&str]> =
        lines.windows(2).filter(|w| w[0].contains("doc(hidden)") && w[1].trim_start().starts_with("pub mod")).collect();
    assert!(hidden.is_empty(), "{hidden:?}");
    fn _at_root(p: ztensor::Profile<'_>, q: ztensor::QuantGroup, m: ztensor::Mx) -> (u64, u64) {
        let _ = p;
        (q.bits, m.block_size)
    }
}
