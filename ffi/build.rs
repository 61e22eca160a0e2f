//! Give the shared library a versioned SONAME, `libztensor.so.<major>`, so
//! programs linked against it record that name (not the build path) and
//! find it through their rpath or the loader's search path.
//!
//! Installs put `libztensor.so.<major>` and the `libztensor.so` link beside
//! the library: CMake's (ffi/CMakeLists.txt) and cargo-c's (`cargo cinstall`,
//! ffi/Cargo.toml's `[package.metadata.capi]`). cargo-c builds with the
//! `capi` feature and passes its own `-soname` (the same name), so this
//! script adds none then.
//!
//! In cargo's output directory (`target/<profile>/`) this script makes the
//! link `libztensor.so.<major> -> libztensor.so`: a program linked there
//! with `-L target/<profile> -lztensor -Wl,-rpath,...` records the SONAME,
//! and without a file of that name it would not start.
use std::path::Path;

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let major = std::env::var("CARGO_PKG_VERSION_MAJOR").unwrap_or_else(|_| "0".into());
    if matches!(os.as_str(), "linux" | "android" | "freebsd" | "netbsd" | "openbsd" | "dragonfly") {
        let soname = format!("libztensor.so.{major}");
        if std::env::var_os("CARGO_FEATURE_CAPI").is_none() {
            println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{soname}");
        }
        let out_dir = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
        soname_link(Path::new(&out_dir), &soname);
    }
    println!("cargo:rerun-if-changed=build.rs");
}

/// Makes `<profile dir>/<soname> -> libztensor.so`, the profile directory
/// being the parent of the `build/` directory that holds OUT_DIR (where
/// cargo puts the library, unless `build.build-dir` moves the build
/// directories elsewhere; then the link lands beside them, unused). The
/// link may dangle until the library is linked. Build scripts are meant
/// to write inside OUT_DIR only; cargo has no step after linking, and
/// this link is the one file outside it.
#[cfg(unix)]
fn soname_link(out_dir: &Path, soname: &str) {
    let Some(profile_dir) = out_dir.ancestors().find(|p| p.file_name() == Some("build".as_ref())).and_then(Path::parent)
    else {
        println!("cargo:warning=no build/ directory above OUT_DIR: {soname} is not linked in the build directory");
        return;
    };
    let link = profile_dir.join(soname);
    if std::fs::read_link(&link).is_ok_and(|to| to == Path::new("libztensor.so")) {
        return;
    }
    let _ = std::fs::remove_file(&link);
    if let Err(e) = std::os::unix::fs::symlink("libztensor.so", &link) {
        println!("cargo:warning=cannot link {} -> libztensor.so: {e}", link.display());
    }
}

/// A Windows host building for a Unix target: no link (the library is
/// used where it is installed).
#[cfg(not(unix))]
fn soname_link(_: &Path, _: &str) {}
