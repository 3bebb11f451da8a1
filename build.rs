//! Packs the binary's relative relocations (`-z pack-relative-relocs`, `DT_RELR`) where the C
//! library can apply them: glibc 2.36 or later on Linux. A position-independent binary holds
//! one 24-byte relocation for each pointer in its data, ~0.65 MB of gendash's 10.4; packed,
//! they take a few KB (issue 31's binary target, docs/decisions.md). An older glibc's loader
//! would ignore them and the binary would crash at start, so anywhere it cannot be told, the
//! flag is left out and the binary is as before.

use std::process::Command;

/// The first glibc whose loader applies `DT_RELR`.
const RELR_GLIBC: (u32, u32) = (2, 36);

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let host = std::env::var("HOST").unwrap_or_default();
    let target = std::env::var("TARGET").unwrap_or_default();
    // The C library asked about is the build machine's: only when it is the target's too.
    if os != "linux" || env != "gnu" || host != target {
        return;
    }
    if glibc().is_some_and(|v| v >= RELR_GLIBC) {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// The build machine's glibc version, as `getconf GNU_LIBC_VERSION` says it (`glibc 2.36`).
fn glibc() -> Option<(u32, u32)> {
    let out = Command::new("getconf")
        .arg("GNU_LIBC_VERSION")
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let version = text.trim().strip_prefix("glibc ")?;
    let mut parts = version.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}
