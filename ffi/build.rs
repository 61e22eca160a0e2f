//! Give the shared library a SONAME, so programs linked against it record
//! `libztensor.so` (not the build path) and find it through their rpath or
//! the loader's search path.
fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if matches!(os.as_str(), "linux" | "android" | "freebsd" | "netbsd" | "openbsd" | "dragonfly") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libztensor.so");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
