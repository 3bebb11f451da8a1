//! The scheme reader: both forms of the file, and each way a file is refused, with its line.

use super::*;

/// base16-default-dark, the classic form (as tinted-theming's older files write it).
pub const DEFAULT_DARK: &str = "\
scheme: \"Default Dark\"
author: \"Chris Kempson (http://chriskempson.com)\"
base00: \"181818\"
base01: \"282828\"
base02: \"383838\"
base03: \"585858\"
base04: \"b8b8b8\"
base05: \"d8d8d8\"
base06: \"e8e8e8\"
base07: \"f8f8f8\"
base08: \"ab4642\"
base09: \"dc9656\"
base0A: \"f7ca88\"
base0B: \"a1b56c\"
base0C: \"86c1b9\"
base0D: \"7cafc2\"
base0E: \"ba8baf\"
base0F: \"a16946\"
";

/// solarized-light in tinted-theming's form: `system`, `palette:`, `#` in the values.
const SOLARIZED_LIGHT: &str = "\
system: \"base16\"
name: \"Solarized Light\"
author: \"Ethan Schoonover (modified by aramisgithub)\"
variant: \"light\"
palette:
  base00: \"#fdf6e3\"
  base01: \"#eee8d5\"
  base02: \"#93a1a1\"
  base03: \"#839496\"
  base04: \"#657b83\"
  base05: \"#586e75\"
  base06: \"#073642\"
  base07: \"#002b36\"
  base08: \"#dc322f\"
  base09: \"#cb4b16\"
  base0A: \"#b58900\" # yellow
  base0B: \"#859900\"
  base0C: \"#2aa198\"
  base0D: \"#268bd2\"
  base0E: \"#6c71c4\"
  base0F: \"#d33682\"
";

fn path() -> &'static Path {
    Path::new("/schemes/s.yaml")
}

#[test]
fn both_forms_are_read() {
    let dark = parse(path(), DEFAULT_DARK).expect("classic form");
    assert_eq!(dark.name, "Default Dark");
    assert_eq!(dark.colours[0], (0x18, 0x18, 0x18));
    assert_eq!(dark.colours[0x0D], (0x7c, 0xaf, 0xc2));
    let light = parse(path(), SOLARIZED_LIGHT).expect("tinted-theming form");
    assert_eq!(light.name, "Solarized Light");
    assert_eq!(light.colours[0], (0xfd, 0xf6, 0xe3));
    assert_eq!(light.colours[0x0A], (0xb5, 0x89, 0x00), "comment after it");
    assert_eq!(light.colours[0x0F], (0xd3, 0x36, 0x82));
    // Unnamed: the file's stem.
    let unnamed = DEFAULT_DARK.replace("scheme: \"Default Dark\"\n", "");
    assert_eq!(parse(path(), &unnamed).expect("read").name, "s");
}

#[test]
fn a_bad_file_is_refused_with_its_line_and_what_is_wrong() {
    let refused = |text: &str| parse(path(), text).expect_err("refused").to_string();
    assert_eq!(
        refused(&DEFAULT_DARK.replace("\"7cafc2\"", "\"7cafc\"")),
        "/schemes/s.yaml line 16: base0D: `7cafc` is not a colour (six hex digits, as \"#7cafc2\")"
    );
    assert_eq!(
        refused(&DEFAULT_DARK.replace("base0E: \"ba8baf\"\n", "")),
        "/schemes/s.yaml: no base0E (a base16 scheme has base00 to base0F)"
    );
    assert_eq!(
        refused(&SOLARIZED_LIGHT.replace("\"base16\"", "\"base17\"")),
        "/schemes/s.yaml line 1: system `base17` is not base16 (or base24)"
    );
    assert_eq!(
        refused(&format!("{DEFAULT_DARK}base0d: \"000000\"\n")),
        "/schemes/s.yaml line 19: base0D is given twice"
    );
    assert_eq!(
        refused(&DEFAULT_DARK.replace("base03: \"585858\"", "base03: \"585858")),
        "/schemes/s.yaml line 6: `\"585858`: the quote is not closed"
    );
    let missing = read(Path::new("/nonexistent/scheme.yaml")).expect_err("refused");
    assert!(
        missing
            .to_string()
            .starts_with("cannot read /nonexistent/scheme.yaml: "),
        "{missing}"
    );
}

/// `theme_file` in the config: the scheme is read with it; a bad one is refused with the
/// config's line and key and the scheme's own line.
#[test]
fn the_config_reads_the_scheme_and_names_both_lines_when_it_is_bad() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let good = dir.path().join("default-dark.yaml");
    std::fs::write(&good, DEFAULT_DARK).expect("written");
    let config = dir.path().join("config.toml");
    let text = format!(
        "theme = \"light\"\ntheme_file = {:?}\n",
        good.display().to_string()
    );
    let file = crate::store::config::parse(&text, &config).expect("good");
    let scheme = file.theme_file.expect("set").0;
    assert_eq!(
        (scheme.name.as_str(), scheme.path),
        ("Default Dark", good.clone())
    );

    std::fs::write(&good, DEFAULT_DARK.replace("\"ab4642\"", "\"red\"")).expect("written");
    let e = crate::store::config::parse(&text, &config).expect_err("bad scheme");
    let said = e.to_string();
    assert!(said.contains("line 2, key `theme_file`"), "{said}");
    assert!(
        said.contains(&format!(
            "{} line 11: base08: `red` is not a colour",
            good.display()
        )),
        "{said}"
    );
}
