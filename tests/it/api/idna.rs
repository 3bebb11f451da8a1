//! Hosts written in Unicode. `url` maps them through `idna`, whose Unicode back end is chosen by
//! the version of `idna_adapter` in `Cargo.lock`: 1.1 (unicode-rs) is pinned, for the build time
//! of ICU4X's two dozen crates; 1.0 would be a stub that refuses every host that is not ASCII.

/// The service's short name (the status bar's, the title's) is its host as DNS knows it.
#[test]
fn a_unicode_host_names_its_service_by_its_punycode() {
    assert_eq!(
        gendash::app::services::host_label("http://Bücher.example:8080/api"),
        "xn--bcher-kva.example:8080"
    );
}
