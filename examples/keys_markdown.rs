//! The keymap as Markdown, for `docs/keys.md` (a test in `app::keymap` keeps them equal).
//!
//! `cargo run --locked --features keys-markdown --example keys_markdown` prints the tables;
//! with `-- --write` it puts them into `docs/keys.md`, between its `<!-- keys:begin … -->` and
//! `<!-- keys:end -->` markers. The feature keeps `cargo test` from building it.
use std::process::ExitCode;

const FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/keys.md");
const BEGIN: &str = "<!-- keys:begin";
const END: &str = "<!-- keys:end -->";

fn main() -> ExitCode {
    let tables = gendash::app::keymap::Keymap::default().markdown();
    if std::env::args().nth(1).as_deref() != Some("--write") {
        println!("{tables}");
        return ExitCode::SUCCESS;
    }
    let doc = match std::fs::read_to_string(FILE) {
        Ok(doc) => doc,
        Err(e) => {
            eprintln!("cannot read {FILE}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (Some(begin), Some(end)) = (doc.find(BEGIN), doc.find(END)) else {
        eprintln!("{FILE} has no `{BEGIN} … -->` … `{END}` markers");
        return ExitCode::FAILURE;
    };
    let Some(open) = doc[begin..end].find("-->").map(|i| begin + i + 3) else {
        eprintln!("{FILE}: the begin marker is not closed before `{END}`");
        return ExitCode::FAILURE;
    };
    let out = format!("{}\n\n{tables}\n\n{}", &doc[..open], &doc[end..]);
    if let Err(e) = std::fs::write(FILE, out) {
        eprintln!("cannot write {FILE}: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
