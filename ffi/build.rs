//! Give the shared library a versioned SONAME, `libztensor.so.<major>`, so
//! programs linked against it record that name (not the build path) and
//! find it through their rpath or the loader's search path. The install
//! (ffi/CMakeLists.txt) puts `libztensor.so.<major>` and the `libztensor.so`
//! link beside the library; in cargo's target directory the CMake projects
//! add the `libztensor.so.<major>` link.
fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let major = std::env::var("CARGO_PKG_VERSION_MAJOR").unwrap_or_else(|_| "0".into());
    if matches!(os.as_str(), "linux" | "android" | "freebsd" | "netbsd" | "openbsd" | "dragonfly") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libztensor.so.{major}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
