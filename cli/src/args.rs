//! The command line, declared with clap's derive API. Help and version go
//! to stdout (exit 0); any other clap error becomes zt's usage error: one
//! `zt: <what>` line, the command's usage line and a pointer to its help
//! (exit 2).

use crate::Fail;
use clap::error::ErrorKind as ClapKind;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use std::ffi::OsString;
use std::path::PathBuf;

const TOP_USAGE: &str = "zt <COMMAND> [OPTIONS] FILE ...";

const TOP_AFTER: &str = "\
Exit status: 0 success, 1 invalid or corrupt input or I/O error,
2 usage error. 'zt COMMAND --help' shows a command's options.";

/// zt: inspect zTensor (.zt) files, and convert other formats to them
#[derive(Parser)]
#[command(
    name = "zt",
    version,
    override_usage = TOP_USAGE,
    subcommand_required = true,
    help_template = "{about}\n\n{usage-heading} {usage}\n\n{all-args}{after-help}",
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Cmd,
}

/// The template of every command's help: the usage line first.
const CMD_HELP: &str = "{usage-heading} {usage}\n\n{about}\n\n{all-args}{after-help}";

#[derive(Subcommand)]
pub enum Cmd {
    Info(InfoArgs),
    Cat(CatArgs),
    Verify(VerifyArgs),
    Id(IdArgs),
    Convert(ConvertArgs),
}

/// Print the content digest of v2 files
#[derive(Args)]
#[command(
    override_usage = "zt id FILE...",
    help_template = CMD_HELP,
    long_about = "\
Print each v2 file's content digest (format v2, section 6.4): the SHA-256
of its objects' names, shapes, layouts, attributes and part digests,
computed from the manifest alone, so it does not change with placement or
alignment. One line per file: 'sha256:<hex>  FILE'. A file of another
version, or with a part without digest, has none (an error).",
)]
pub struct IdArgs {
    /// zTensor v2 files ('-': stdin)
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
}

/// Summarize the objects and components of files
#[derive(Args)]
#[command(
    override_usage = "zt info [--json] FILE...",
    help_template = CMD_HELP,
    long_about = "\
Summarize zTensor files: each file's version, then every object (name,
shape, format, attributes) and every component (role, dtype and logical
type, encoding, stored and decoded size, compression ratio, digest
algorithm), with totals at the end. Attributes are shown in compact JSON,
long values shortened and their length shown ('<67108864 bytes: 00 01
...>', '<N bytes of text: \"...\"...>', '[1,2,...,... (N items)]'); --json
gives them whole. '-' reads a file from stdin.",
    after_help = "\
JSON (--json): one object per file:
  {\"version\", \"attributes\", \"objects\": [{\"name\", \"shape\", \"format\",
  \"attributes\", \"components\": {ROLE: {\"dtype\", \"type\", \"encoding\",
  \"offset\", \"length\", \"uncompressed_length\", \"digest\"}}}]}
For v2 files: \"version\" is \"2\", \"format\" the layout id, the
components are the parts by name, \"encoding\" is \"raw\" or the profile id,
\"uncompressed_length\" the decoded_length, \"digest\" covers the decoded
bytes, and \"shard\" names the shard holding the part (null: this file).
Objects and components are in manifest order; absent type,
uncompressed_length and digest are null; dtypes use the v1.2 names (f32,
u8, ...) for every file version. CBOR attributes become JSON: byte strings
as lowercase hex, tags as their content, non-text map keys as strings,
NaN/Infinity/-Infinity floats as those strings, undefined as null. With
several files, each object also has \"file\" (the path as given), first.

A file that cannot be read is reported on stderr ('zt: FILE: ...') and the
others are still shown; the exit status is then 1.",
)]
pub struct InfoArgs {
    /// Print JSON instead of text (see below)
    #[arg(long)]
    pub json: bool,
    /// zTensor files ('-': stdin; http(s):// URLs: read by range requests)
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
}

/// Write a component's decoded bytes to stdout
#[derive(Args)]
#[command(
    override_usage = "zt cat FILE OBJECT [--component ROLE] [--force]",
    help_template = CMD_HELP,
    long_about = "\
Write one component's decoded bytes to stdout: decompressed, elements in
little-endian byte order (big-endian v0.1 data is swapped), nothing else.
'-' as FILE reads the file from stdin.",
    after_help = "\
Use '--' before an object name that starts with '-'. zt refuses to write
to a terminal unless --force is given.",
)]
pub struct CatArgs {
    /// The component to write
    #[arg(short, long, value_name = "ROLE", default_value = "data")]
    pub component: String,
    /// Write even when stdout is a terminal
    #[arg(short, long)]
    pub force: bool,
    /// A zTensor file ('-': stdin; an http(s):// URL: its tail and this part read by range requests)
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The object's name
    #[arg(value_name = "OBJECT")]
    pub object: OsString,
}

/// Check structure, digests and decoding
#[derive(Args)]
#[command(
    override_usage = "zt verify [--allow-unverifiable] FILE...",
    help_template = CMD_HELP,
    long_about = "\
Check zTensor files: their structure (header, footer, manifest, layout
rules), every component digest, and the data rules: every component
decodes to its declared length, CSR indptr starts at 0, never decreases
and ends at the number of values, CSR/COO indices lie inside the shape,
bool bytes are 0 or 1. '-' reads a file from stdin.",
    after_help = "\
Each problem is printed as one 'zt: FILE: ...' line on stderr. A digest
with an algorithm zt does not know cannot be checked: the file is not
verified (a problem naming the object and component), unless
--allow-unverifiable is given (then a warning). The verdict of each file goes to stdout:
'FILE: OK (...)' or 'FILE: FAILED (...)'.
Exit status: 0 when every file checks out, 1 otherwise.",
)]
pub struct VerifyArgs {
    /// A digest zt cannot check (unknown algorithm) is a warning, not a problem
    #[arg(long, conflicts_with = "strict")]
    pub allow_unverifiable: bool,
    /// A digest zt cannot check is a problem: the default now (accepted, no effect)
    #[arg(long)]
    pub strict: bool,
    /// zTensor files ('-': stdin; http(s):// URLs: read by range requests)
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
}

/// Convert .safetensors, .npy, .npz, .gguf or any .zt version into a zTensor v2 (or v1.2) file
#[derive(Args, Clone)]
#[command(
    override_usage = "zt convert IN OUT [--compress[=LEVEL]] [--digest xxh3|sha256|crc32c|none] [--format-version 2|1.2] [--align BYTES] [--shard-size SIZE] [--quiet]",
    help_template = CMD_HELP,
    long_about = "Convert IN into a zTensor v2 file OUT ('-' as IN: stdin), canonical (byte-identical \
                  to ztensor 2.x's convert for the same tensors). --align, --compress \
                  (zt.zstd-seekable/1), --digest and --shard-size each make it non-canonical. \
                  --format-version 1.2 writes a v1.2 file instead, for readers of the 1.x \
                  generation (ztensor <= 1.2.3).",
    after_help = crate::convert::HELP,
)]
pub struct ConvertArgs {
    /// Compress at LEVEL (1-22, default 3; unless zt was built with the
    /// libzstd feature, its pure-Rust encoder treats every level alike).
    /// v2: every part zt.zstd-seekable/1 (non-canonical). v1.2: components
    /// zstd-compressed, one zstd would not make smaller stays raw.
    /// '--compress 5' works too. Without it: raw.
    #[arg(
        long,
        value_name = "LEVEL",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "3",
        value_parser = level,
    )]
    pub compress: Option<i32>,
    /// The digest on every part. v2: xxh3 (default), sha256 or none, of
    /// each part's decoded bytes; anything but xxh3 is non-canonical.
    /// v1.2: sha256, crc32c or none, of each component's stored bytes;
    /// default crc32c (so that reads can check what they read), except for
    /// .zt input, where each component keeps the digest algorithm it had
    /// (or none).
    #[arg(long, value_name = "ALG")]
    pub digest: Option<DigestArg>,
    /// The output's format version: 2 (default; canonical unless --align,
    /// --compress, --digest or --shard-size is given) or 1.2 (for readers
    /// of the 1.x generation)
    #[arg(long, value_name = "VERSION", value_parser = ["2", "1.2"])]
    pub format_version: Option<String>,
    /// v2: place blobs at multiples of BYTES (a power of two from 4096 to 1G;
    /// non-canonical; without it non-canonical files use 65536, as canonical ones)
    #[arg(long, value_name = "BYTES", value_parser = size)]
    pub align: Option<u64>,
    /// v2: split the blobs over data shards of at most SIZE bytes each
    /// (suffixes K, M, G: KiB, MiB, GiB; non-canonical)
    #[arg(long, value_name = "SIZE", value_parser = size)]
    pub shard_size: Option<u64>,
    /// No summary line after a successful conversion, no progress bar
    #[arg(short, long)]
    pub quiet: bool,
    /// The input file ('-': stdin; an http:// or https:// URL: downloaded first)
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// The zTensor file to write
    #[arg(value_name = "OUT")]
    pub output: PathBuf,
}

/// `--digest ALG`.
#[derive(Clone, Copy, ValueEnum)]
pub enum DigestArg {
    Xxh3,
    Sha256,
    Crc32c,
    None,
}

impl ConvertArgs {
    /// Whether the output is v2: the default, unless `--format-version 1.2` was given.
    pub fn format_version_2(&self) -> bool {
        self.format_version.as_deref() != Some("1.2")
    }
}

/// A byte count: digits with an optional K, M or G (KiB, MiB, GiB) suffix.
fn size(s: &str) -> Result<u64, String> {
    let (digits, mult) = match s.char_indices().last() {
        Some((i, 'K' | 'k')) => (&s[..i], 1u64 << 10),
        Some((i, 'M' | 'm')) => (&s[..i], 1 << 20),
        Some((i, 'G' | 'g')) => (&s[..i], 1 << 30),
        _ => (s, 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .filter(|n| *n > 0)
        .ok_or_else(|| "expected a positive byte count (suffixes K, M, G)".into())
}

fn level(s: &str) -> Result<i32, String> {
    match s.parse::<i32>() {
        Ok(l) if (1..=22).contains(&l) => Ok(l),
        _ => Err("expected a zstd level from 1 to 22".into()),
    }
}

/// `--compress N` (a separate all-digit argument) means `--compress=N`.
/// Only digits are joined, so `zt convert --compress IN OUT` still works.
fn join_compress_level(argv: Vec<OsString>) -> Vec<OsString> {
    let mut out: Vec<OsString> = Vec::with_capacity(argv.len());
    let mut options_done = false;
    let mut it = argv.into_iter().peekable();
    while let Some(a) = it.next() {
        options_done |= a == "--";
        let digits = |n: &OsString| n.to_str().is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()));
        if !options_done && a == "--compress" && it.peek().is_some_and(digits) {
            let mut joined = OsString::from("--compress=");
            joined.push(it.next().unwrap_or_default());
            out.push(joined);
        } else {
            out.push(a);
        }
    }
    out
}

/// The clap definition; the top help ends with every command's usage line.
pub fn command() -> clap::Command {
    let cmd = Cli::command();
    let mut after = String::from("Usage of each command:\n");
    for sub in cmd.get_subcommands() {
        let usage = sub.clone().render_usage().to_string();
        after += &format!("  {}\n", usage.strip_prefix("Usage: ").unwrap_or(&usage));
    }
    cmd.after_help(after + "\n" + TOP_AFTER)
}

/// Parse the whole command line (program name first). `Ok(None)`: help or
/// the version was printed.
pub fn parse(argv: impl IntoIterator<Item = OsString>) -> Result<Option<Cli>, Fail> {
    let argv = join_compress_level(argv.into_iter().collect());
    let cmd = command();
    // The command named on the line, for the usage line of an error.
    let named = argv.get(1).and_then(|a| a.to_str()).and_then(|a| cmd.find_subcommand(a)).cloned();
    match cmd.try_get_matches_from(argv).and_then(|m| Cli::from_arg_matches(&m)) {
        Ok(cli) => Ok(Some(cli)),
        Err(e) if matches!(e.kind(), ClapKind::DisplayHelp | ClapKind::DisplayVersion) => {
            let mut text = e.render().to_string();
            if !text.ends_with('\n') {
                text.push('\n');
            }
            crate::out::print(&text)?;
            Ok(None)
        }
        Err(e) if e.kind() == ClapKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            Err(Fail::Usage { msg: "missing command".into(), usage: TOP_USAGE.into() })
        }
        Err(e) => {
            let rendered = e.render().to_string();
            let msg = rendered.lines().next().unwrap_or("invalid arguments");
            let msg = msg.strip_prefix("error: ").unwrap_or(msg).to_owned();
            let usage = match named {
                Some(mut sub) => sub.render_usage().to_string(),
                None => TOP_USAGE.to_owned(),
            };
            let usage = usage.strip_prefix("Usage: ").unwrap_or(&usage).to_owned();
            Err(Fail::Usage { msg, usage })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn compress_level_joining() {
        assert_eq!(
            join_compress_level(os(&["convert", "--compress", "5", "a", "b"])),
            os(&["convert", "--compress=5", "a", "b"])
        );
        assert_eq!(
            join_compress_level(os(&["convert", "--compress", "a", "b"])),
            os(&["convert", "--compress", "a", "b"])
        );
        assert_eq!(
            join_compress_level(os(&["convert", "a", "--", "--compress", "5"])),
            os(&["convert", "a", "--", "--compress", "5"])
        );
    }

    #[test]
    fn definition_is_consistent() {
        command().debug_assert();
    }
}
