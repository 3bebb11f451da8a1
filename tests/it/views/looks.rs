//! What a newcomer sees first holds: the README's screenshot is what the demo draws, the
//! guide's filter examples find something in the demo's catalogue (run by the real binary
//! against the reference service), and every relative link in the README and `docs/` leads to
//! a file that exists.

use crate::common;
use base64::Engine as _;

/// The README, as shipped.
fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap()
}

/// The dashboard guide, `docs/guide.md`, where the filter language is documented.
fn guide() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/guide.md")).unwrap()
}

/// The text of a Markdown page's section whose heading line is `heading`, up to the next
/// heading of the same or a higher level.
fn section(page: &str, heading: &str) -> String {
    let level = heading.chars().take_while(|c| *c == '#').count();
    let mut lines = page.lines().skip_while(|l| *l != heading);
    let first = lines
        .next()
        .unwrap_or_else(|| panic!("no `{heading}` in the page"));
    let body = lines.take_while(|l| {
        let hashes = l.chars().take_while(|c| *c == '#').count();
        hashes == 0 || hashes > level || !l[hashes..].starts_with(' ')
    });
    std::iter::once(first)
        .chain(body)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The cells of a Markdown table row, `\|` read as a `|` inside a cell.
fn cells(row: &str) -> Vec<String> {
    let inner = row.trim().trim_start_matches('|').trim_end_matches('|');
    let mut out = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                out.last_mut().unwrap().push('|');
                chars.next();
            }
            '|' => out.push(String::new()),
            c => out.last_mut().unwrap().push(c),
        }
    }
    out.into_iter().map(|c| c.trim().to_string()).collect()
}

/// Every `code` span in `text`.
fn code_spans(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The heading of the guide's section on the filter language.
const FILTER_LANGUAGE: &str = "## The filter language";

/// The examples of the filter language's table: the code spans of its `Example` column.
fn filter_examples(guide: &str) -> Vec<String> {
    let text = section(guide, FILTER_LANGUAGE);
    let mut rows = text.lines().filter(|l| l.starts_with('|'));
    let header = cells(rows.next().expect("the filter language has a table"));
    let column = header
        .iter()
        .position(|h| h == "Example")
        .expect("an Example column");
    rows.skip(1) // the |---| line
        .flat_map(|row| code_spans(&cells(row)[column]))
        .collect()
}

#[test]
fn the_examples_are_read_from_the_table_with_escaped_bars() {
    let table = "## The filter language\ntext\n\n| Syntax | Matches | Example |\n|---|---|---|\n\
                 | `a \\| b` | either | `^pixel \\| ^ukiyo` |\n| `w` | x | `pxart`, `'ink` |\n\n## Next\n| a | b | `no` |";
    assert_eq!(filter_examples(table), ["^pixel | ^ukiyo", "pxart", "'ink"]);
}

/// The guide's example of the detail line is what the filter says of its query.
#[test]
fn the_guide_s_detail_line_example_is_the_product_s() {
    let said = gendash::filter::Query::parse("pixel author:^pix !license:rail type:sdxl").describe(
        &gendash::filter::Scope::BROWSER,
        |_| Some(true),
        false,
    );
    let text = section(&guide(), FILTER_LANGUAGE);
    assert!(
        text.contains(&format!("`{said}`")),
        "docs/guide.md's detail line example is not `{said}`"
    );
}

/// Each example of the filter language's table, run as `gendash models --filter EXAMPLE`
/// against the reference service's embedded catalogue (the one `--demo` serves), lists at
/// least one model: its `type:` and `cate:` terms go to the service, the rest matches locally.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_filter_example_in_the_guide_matches_the_demo_catalogue() {
    let examples = filter_examples(&guide());
    assert!(
        examples.len() >= 15,
        "the table's examples were not found: {examples:?}"
    );
    let svc = common::service().await;
    let home = tempfile::tempdir().unwrap();
    let mut empty = Vec::new();
    for example in &examples {
        let mut cmd = common::gendash_async(home.path());
        cmd.env("GENDASH_BASE_URL", svc.base_url().as_str())
            .env("GENDASH_TOKEN", common::TOKEN)
            .args(["models", "--json", "--filter", example]);
        let out = tokio::time::timeout(std::time::Duration::from_secs(60), cmd.output())
            .await
            .expect("gendash models finished")
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "`{example}`: {stderr}");
        let listed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        if listed.as_array().is_none_or(Vec::is_empty) {
            empty.push(example.clone());
        }
    }
    assert!(
        empty.is_empty(),
        "docs/guide.md's filter examples that match nothing in the demo catalogue: {empty:?}"
    );
}

/// The text of the first OSC 52 clipboard sequence in `raw`.
fn copied(raw: &[u8]) -> String {
    let raw = String::from_utf8_lossy(raw);
    let payload = raw
        .split("\x1b]52;c;")
        .nth(1)
        .and_then(|r| r.split('\x07').next())
        .expect("an OSC 52 sequence");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(payload)
        .unwrap();
    String::from_utf8(bytes).unwrap()
}

/// The demo's private download directories under `tmp`.
fn demo_download_dirs(tmp: &std::path::Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(tmp)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("gendash-demo-dl-"))
        })
        .collect()
}

/// `gendash --demo` with no `download_dir`: the status bar says at start where downloads go,
/// a private directory of its own; `D` saves there (never in the user's download directory or
/// the current one), and the file outlives the demo. The request log's curl line shows the
/// demo's throwaway token, `y` copies it, and that command line works against the demo.
#[test]
fn the_demo_downloads_into_its_own_directory_and_its_curl_line_works() {
    use crate::common::pty::{Session, command};
    use std::time::Duration;
    let home = tempfile::tempdir().unwrap();
    let tmp = home.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let config = home.path().join("config/gendash");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), "poll_interval = 0.2\n").unwrap();
    let tmp_text = tmp.to_str().unwrap();
    let mut s = Session::spawn(
        command(home.path(), &["--demo"], &[("TMPDIR", tmp_text)]),
        200,
        40,
    );
    s.wait_text("demo-video-done");
    let dirs = demo_download_dirs(&tmp);
    assert_eq!(dirs.len(), 1, "one download directory of its own: {dirs:?}");
    let dir = &dirs[0];
    s.wait_text(&format!("demo: downloads go to {}", dir.display()));

    // The demo's list, in the order added: the finished image is the one above the last.
    s.wait_row("demo-image-done", "COMPLETED");
    s.send("\t");
    s.send("G");
    s.send("k");
    s.send("D");
    let saved = dir.join("demo-image-done.png");
    s.wait_text(&format!("saved {}", saved.display()));
    assert_eq!(std::fs::read(&saved).unwrap(), *gendash::server::SAMPLE_PNG);
    assert!(
        !home.path().join("demo-image-done.png").exists()
            && !home.path().join("Downloads").exists(),
        "the demo saved outside its own directory"
    );

    s.send("L");
    s.wait_text("try it (the demo's token; y copies): curl ");
    s.send("y");
    s.wait_text("sent the request as a curl command to the terminal's clipboard (OSC 52)");
    let raw = s.raw();
    let written = String::from_utf8_lossy(&raw);
    let sent = written.find("\x1b]52;c;");
    let told = written.find("sent the request as a curl command");
    assert!(
        sent.zip(told).is_some_and(|(sent, told)| sent < told),
        "the OSC 52 goes out before the frame that says it was sent: {sent:?}, {told:?}"
    );
    let curl = copied(&raw);
    let words = shlex::split(&curl).expect("a shell command line");
    let header = words
        .iter()
        .find_map(|w| w.strip_prefix("Authorization: Bearer "))
        .unwrap_or_else(|| panic!("no token in {curl}"));
    assert!(header.starts_with("gd-") && !header.contains('$'), "{curl}");
    assert!(s.contents().contains(header), "the token is on screen");
    let url = url::Url::parse(words.last().unwrap()).unwrap();
    assert_eq!(url.host_str(), Some("127.0.0.1"), "{curl}");

    // What a newcomer pastes works: the demo answers the copied token, and only it.
    let base = url::Url::parse(&url[..url::Position::BeforePath]).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let answer = rt.block_on(
        common::client_with(&base, header, Duration::from_secs(5)).list_loras(None, None),
    );
    assert!(answer.is_ok_and(|c| c.entries.len() == 320));
    let wrong = rt.block_on(
        common::client_with(&base, "gd-wrong", Duration::from_secs(5)).list_loras(None, None),
    );
    assert!(wrong.is_err(), "the demo checks its token");

    s.send("\x1b");
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
    assert!(
        saved.exists(),
        "a file the user downloaded outlives the demo"
    );
    assert!(
        String::from_utf8_lossy(&s.raw())
            .contains(&format!("the demo's downloads are in {}", dir.display())),
        "and the demo says where it is"
    );
}

/// The demo keeps to itself, whatever the config says: with `download_dir`, `auto_download`,
/// `on_complete`, `on_all_done` and `token_command` configured, the task that finishes is
/// saved in the demo's own directory, and no hook or token command runs; nothing is written
/// into the download directory or the data directory.
#[test]
fn the_demo_runs_no_hooks_and_writes_nothing_of_the_users() {
    use crate::common::pty::{Session, command};
    use std::time::Duration;
    let home = tempfile::tempdir().unwrap();
    let tmp = home.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let (out, data, ran) = (
        home.path().join("mine"),
        home.path().join("data-mine"),
        home.path().join("ran"),
    );
    let config = home.path().join("config/gendash");
    std::fs::create_dir_all(&config).unwrap();
    let touch = |name: &str| format!("[\"touch\", \"{}/{name}\"]", ran.display());
    std::fs::write(
        config.join("config.toml"),
        format!(
            "poll_interval = 0.2\nauto_download = true\nbell = false\n\
             download_dir = \"{}\"\non_complete = {}\non_all_done = {}\ntoken_command = {}\n",
            out.display(),
            touch("on_complete"),
            touch("on_all_done"),
            touch("token_command"),
        ),
    )
    .unwrap();
    std::fs::create_dir_all(&ran).unwrap();
    let data_text = data.display().to_string();
    let mut s = Session::spawn(
        command(
            home.path(),
            &["--demo"],
            &[
                ("TMPDIR", tmp.to_str().unwrap()),
                ("GENDASH_DATA_DIR", data_text.as_str()),
            ],
        ),
        200,
        40,
    );
    s.wait_text("demo-video-done");
    let dirs = demo_download_dirs(&tmp);
    assert_eq!(dirs.len(), 1, "one download directory of its own: {dirs:?}");
    s.wait_text(&format!("demo: downloads go to {}", dirs[0].display()));
    // The task that finishes within seconds is saved automatically, in the demo's directory.
    let saved = dirs[0].join("sim-3-sunset-over-harbor.png");
    s.wait_for("the automatic download", Duration::from_secs(30), |_| {
        saved.exists()
    });
    // on_complete would run right after the download: give it the time it would take.
    std::thread::sleep(Duration::from_secs(2));
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    let ran: Vec<_> = std::fs::read_dir(&ran).unwrap().collect();
    assert!(
        ran.is_empty(),
        "a hook or command of the user's ran: {ran:?}"
    );
    assert!(!out.exists(), "the demo wrote into download_dir");
    assert!(!data.exists(), "the demo wrote into the data directory");
    assert!(
        !home.path().join("data").exists(),
        "the demo wrote into the platform data directory"
    );
}

/// The address the README's screenshot shows for the demo service (the demo's own port is
/// random).
const SCREENSHOT_BASE: &str = "http://127.0.0.1:8787/";
const SCREENSHOT_SIZE: (u16, u16) = (140, 30);
/// The demo's seconds between polls, and how many polls the screenshot's tasks had.
const SCREENSHOT_POLL_SECONDS: u64 = 2;
const SCREENSHOT_POLLS: u64 = 6;
const SCREENSHOT_START: u64 = 1_800_000_000;

/// The demo as a newcomer meets it: the embedded catalogue as the client decodes it, the
/// demo's watch list polled a few rounds against the reference service's simulated tasks (the
/// ones `--demo` serves), and `water` typed into the filter.
pub fn demo_screen() -> gendash::app::state::State {
    use gendash::api::types::{Envelope, decode_catalogue};
    use gendash::api::{TaskKind, TaskResult};
    use gendash::app::action::Action;
    use gendash::app::state::{State, UiSettings};
    use gendash::cmd::TaskKey;
    use gendash::msg::Msg;
    use gendash::server::{served_catalogue, simulation};
    use gendash::store::watchlist::WatchEntry;

    let served = served_catalogue::embedded();
    let body = format!(
        "{{\"data\": [{}]}}",
        served
            .iter()
            .map(|e| served_catalogue::wire(e).to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    let entries = simulation::DEMO_TASKS
        .iter()
        .map(|(id, kind)| WatchEntry {
            added_at: SCREENSHOT_START,
            ..WatchEntry::new(*id, *kind)
        })
        .collect();
    let mut s = State::new(gendash::app::state::Init {
        service_url: SCREENSHOT_BASE.into(),
        categories: Vec::new(),
        watch: entries,
        failure_statuses: gendash::api::types::default_failure_statuses(),
        settings: UiSettings {
            bell: true,
            desktop_notifications: true,
            no_color: false,
            poll_interval: 2,
        },
        now: SCREENSHOT_START,
        ..gendash::app::state::Init::default()
    });
    s.update(Action::Resize {
        width: SCREENSHOT_SIZE.0,
        height: SCREENSHOT_SIZE.1,
    });
    s.start();
    s.apply(Msg::Catalogue {
        generation: s.browser.generation,
        result: Ok(decode_catalogue(body.as_bytes()).unwrap().into()),
    });

    let mut service = simulation::Tasks::new();
    for round in 1..=SCREENSHOT_POLLS {
        s.now = SCREENSHOT_START + round * SCREENSHOT_POLL_SECONDS;
        for (id, kind) in simulation::DEMO_TASKS {
            let Ok(seen) = service.lookup(id, *kind) else {
                continue;
            };
            let ext = if *kind == TaskKind::Video {
                "mp4"
            } else {
                "png"
            };
            let result = TaskResult {
                task_id: (*id).to_string(),
                kind: *kind,
                status: seen.status.to_string(),
                percent: seen.percent,
                total_tasks: Some(1),
                url_download: seen
                    .finished_ok
                    .then(|| format!("{SCREENSHOT_BASE}files/{id}.{ext}")),
                envelope: Envelope::default(),
                extra: None,
            };
            s.apply(Msg::Polled {
                key: TaskKey::new(*kind, *id),
                result: Ok(result),
                retry_in: None,
                // Every demo task is on screen: asked every interval.
                next: Some(gendash::msg::NextPoll {
                    after: std::time::Duration::from_secs(2),
                    why: gendash::msg::PollWhy::Preferred,
                }),
            });
        }
    }

    // The task in the detail is a running one, with its ETA.
    s.update(Action::FocusNext);
    s.update(Action::Down);
    s.update(Action::FocusNext);
    s.update(Action::FocusFilter);
    crate::views::typed(&mut s, "water");
    s.update(Action::Submit);
    s
}

/// The screen's text, one line per row, trailing blanks cut; a wide character's second cell
/// is not written twice.
fn screen_lines(s: &gendash::app::state::State) -> Vec<String> {
    use unicode_width::UnicodeWidthStr;
    let (width, height) = (s.areas.full.width, s.areas.full.height);
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(width, height)).unwrap();
    t.draw(|f| {
        gendash::ui::render(s, f);
    })
    .unwrap();
    let buffer = t.backend().buffer();
    (0..height)
        .map(|y| {
            let mut line = String::new();
            let mut x = 0;
            while x < width {
                let symbol = buffer[(x, y)].symbol();
                line.push_str(symbol);
                x += u16::try_from(symbol.width().max(1)).unwrap();
            }
            line.trim_end().to_string()
        })
        .collect()
}

/// Where the screenshot's text block is in `readme`: the byte range of its lines, between the
/// fence after the marker and the closing fence.
fn screenshot_range(readme: &str) -> std::ops::Range<usize> {
    const MARKER: &str = "<!-- screenshot:";
    let marker = readme
        .find(MARKER)
        .expect("the screenshot's marker in README.md");
    let open = marker
        + readme[marker..]
            .find("```text\n")
            .expect("its ```text fence")
        + 8;
    let close = open + readme[open..].find("```\n").expect("its closing fence");
    open..close
}

/// The README's screenshot is the demo as the product draws it now. `UPDATE_README=1` (or
/// insta's `INSTA_UPDATE=always`) writes it into README.md instead of comparing.
#[test]
fn readme_screenshot() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let readme = readme();
    let range = screenshot_range(&readme);
    let mut drawn = screen_lines(&demo_screen()).join("\n");
    drawn.push('\n');
    let update = std::env::var("UPDATE_README").is_ok_and(|v| v == "1")
        || std::env::var("INSTA_UPDATE").is_ok_and(|v| v == "always");
    if update {
        let mut out = readme.clone();
        out.replace_range(range, &drawn);
        std::fs::write(path, out).unwrap();
        return;
    }
    assert!(
        readme[range.clone()] == drawn,
        "README.md's screenshot is not what the demo draws; run \
         `UPDATE_README=1 cargo test --locked --test it looks::readme_screenshot`.\n\
         README:\n{}\ndrawn:\n{drawn}",
        &readme[range]
    );
}

/// The lines of a Markdown page outside its fenced code blocks.
fn prose_lines(page: &str) -> impl Iterator<Item = &str> {
    let mut fenced = false;
    page.lines().filter(move |l| {
        if l.trim_start().starts_with("```") {
            fenced = !fenced;
            return false;
        }
        !fenced
    })
}

/// The targets of the inline links `[text](target)` in `page`'s prose, code spans left out.
fn link_targets(page: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose_lines(page) {
        // Code spans are the odd pieces between backticks: no link is read there.
        for (i, text) in line.split('`').enumerate() {
            if i % 2 == 1 {
                continue;
            }
            let mut rest = text;
            while let Some(at) = rest.find("](") {
                let after = &rest[at + 2..];
                let Some(end) = after.find(')') else { break };
                out.push(after[..end].to_string());
                rest = &after[end..];
            }
        }
    }
    out
}

/// The anchors GitHub makes of `page`'s headings: lower case, spaces as `-`, every other
/// character but letters, digits, `-` and `_` dropped.
fn anchors(page: &str) -> Vec<String> {
    prose_lines(page)
        .filter_map(|l| {
            let hashes = l.chars().take_while(|c| *c == '#').count();
            (hashes > 0 && l[hashes..].starts_with(' ')).then(|| &l[hashes + 1..])
        })
        .map(|h| {
            h.trim()
                .to_lowercase()
                .chars()
                .filter_map(|c| match c {
                    ' ' => Some('-'),
                    c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                    _ => None,
                })
                .collect()
        })
        .collect()
}

/// `path` with its `.` and `..` parts resolved without asking the file system.
fn lexically_normal(path: &std::path::Path) -> std::path::PathBuf {
    let mut out = std::path::PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            part => out.push(part),
        }
    }
    out
}

#[test]
fn links_and_anchors_are_read_as_github_reads_them() {
    let page = "# Title\n## Your own keys: `[keys]`\n```sh\n# not a heading [x](code.md)\n```\n\
                see [a](a.md), [b](docs/b.md#part) and `[c](c.md)`, [web](https://x.org)";
    assert_eq!(
        link_targets(page),
        ["a.md", "docs/b.md#part", "https://x.org"]
    );
    assert_eq!(anchors(page), ["title", "your-own-keys-keys"]);
    assert_eq!(
        anchors("## Layout, help and mouse\n## The reference service (`gendash serve`)"),
        [
            "layout-help-and-mouse",
            "the-reference-service-gendash-serve"
        ]
    );
}

/// Every relative link in the README and in `docs/*.md` leads to a file that exists, and a
/// link with `#anchor` to a heading of that page: the manual moved out of the README, and no
/// reader should land on nothing.
#[test]
fn every_relative_link_in_the_docs_points_to_a_file() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    pages.sort();
    assert!(pages.len() >= 8, "the docs were not found: {pages:?}");
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        let dir = page.parent().unwrap();
        let name = page.strip_prefix(root).unwrap().display().to_string();
        for target in link_targets(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let path = if file.is_empty() {
                page.clone()
            } else {
                lexically_normal(&dir.join(file))
            };
            if !path.is_file() {
                broken.push(format!("{name}: {target} (no such file)"));
                continue;
            }
            if !anchor.is_empty() {
                let linked = std::fs::read_to_string(&path).unwrap_or_default();
                if !anchors(&linked).iter().any(|a| a == anchor) {
                    broken.push(format!("{name}: {target} (no such heading)"));
                }
            }
        }
    }
    assert!(checked >= 40, "too few links found ({checked}): {pages:?}");
    assert!(
        broken.is_empty(),
        "links that lead nowhere:\n{}",
        broken.join("\n")
    );
}

/// The README's short table of first keys names each key as the keymap binds it by default:
/// every row's key and `[keys]` name are a row of `docs/keys.md`'s generated tables.
#[test]
fn the_readme_s_first_keys_are_the_keymap_s() {
    let table = gendash::app::keymap::Keymap::default().markdown();
    let bound: Vec<(String, String)> = table
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let c = cells(l);
            (c[0].clone(), c[2].clone())
        })
        .collect();
    let text = section(&readme(), "## Keys that matter first");
    let rows: Vec<Vec<String>> = text
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(cells)
        .collect();
    assert!(rows.len() >= 10, "the README's key table: {text}");
    let wrong: Vec<_> = rows
        .iter()
        .filter(|c| !bound.contains(&(c[0].clone(), c[2].clone())))
        .map(|c| format!("{} for {}", c[0], c[2]))
        .collect();
    assert!(
        wrong.is_empty(),
        "README keys the keymap does not bind so: {wrong:?}"
    );
}
