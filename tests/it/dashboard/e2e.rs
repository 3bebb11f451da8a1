//! The real binary in a pseudo-terminal, as a user meets it.

use crate::common;

use base64::Engine;
use common::pty::{Session, command};
use gendash::api::links::validate_link;
use gendash::api::sanitize::sanitize;
use gendash::server::served_catalogue::ServedEntry;
use std::time::Duration;

/// A desktop notification (OSC 9) found in the raw output.
#[derive(Debug)]
struct Notification {
    /// Byte offset of its introducer.
    at: usize,
    text: String,
    /// A bell of its own follows it at once.
    rang: bool,
    /// Whether anything follows it yet: until then its bell may still be unread.
    followed: bool,
}

/// The notifications in `raw`, and the number of bells that are neither an OSC terminator nor
/// a notification's own bell.
fn announcements(raw: &[u8]) -> (Vec<Notification>, usize) {
    let (mut notes, mut stray, mut i) = (Vec::new(), 0, 0);
    while i < raw.len() {
        if raw[i..].starts_with(b"\x1b]") {
            let rest = &raw[i + 2..];
            let bel = memchr::memchr(0x07, rest);
            let st = memchr::memmem::find(rest, b"\x1b\\");
            let (len, term) = match (bel, st) {
                (Some(b), Some(s)) if s < b => (s, 2),
                (Some(b), _) => (b, 1),
                (None, Some(s)) => (s, 2),
                (None, None) => break, // still being written
            };
            let after = i + 2 + len + term;
            // OSC 9;4 is the terminal's progress indicator, not a notification.
            if let Some(text) = rest[..len]
                .strip_prefix(b"9;")
                .filter(|t| !t.starts_with(b"4;"))
            {
                let rang = raw.get(after) == Some(&0x07);
                notes.push(Notification {
                    at: i,
                    text: String::from_utf8_lossy(text).into_owned(),
                    rang,
                    followed: after < raw.len(),
                });
                i = after + usize::from(rang);
            } else {
                i = after;
            }
        } else {
            stray += usize::from(raw[i] == 0x07);
            i += 1;
        }
    }
    (notes, stray)
}

/// The finish of `sim-3-e2e-check` (added at `added_at`, seen completed at `seen_at` in the raw
/// output) was announced once, with a bell of its own: a desktop notification (OSC 9 here)
/// once the notification window (2 s) closed, alone or counted in one notice with the demo's
/// tasks that finished within the same window (`gendash: 2 completed`). Returns every
/// notification and the stray bells.
fn told_once(s: &Session, added_at: usize, seen_at: usize) -> (Vec<Notification>, usize) {
    let alone = "gendash: task completed: image sim-3-e2e-check — COMPLETED";
    let tells_it = |n: &Notification| {
        n.text == alone
            || n.text.strip_prefix("gendash: ").is_some_and(|rest| {
                rest.split_once(' ')
                    .is_some_and(|(k, w)| k.parse::<u32>().is_ok() && w.starts_with("completed"))
            })
    };
    s.wait_for("the notification", Duration::from_secs(10), |_| {
        announcements(&s.raw())
            .0
            .iter()
            .any(|n| n.at >= seen_at && tells_it(n) && n.followed)
    });
    let (notes, stray) = announcements(&s.raw());
    let ours: Vec<&Notification> = notes.iter().filter(|n| n.text == alone).collect();
    assert!(ours.len() <= 1, "announced once: {notes:?}");
    let first = notes
        .iter()
        .find(|n| n.at >= seen_at && tells_it(n))
        .expect("told");
    assert!(
        ours.iter().all(|n| n.at == first.at),
        "announced once, after it was added: {notes:?}"
    );
    assert!(first.at >= added_at);
    assert!(first.rang, "its notification came with its own bell");
    (notes, stray)
}

fn fast_config(home: &std::path::Path) {
    let dir = home.join("config/gendash");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.toml"), "poll_interval = 0.2\n").unwrap();
}

#[test]
fn demo_filter_add_complete_help_quit() {
    let home = tempfile::tempdir().unwrap();
    fast_config(home.path());
    let tmp = home.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let env = [("TMPDIR", tmp.to_str().unwrap())];
    let mut s = Session::spawn(command(home.path(), &["--demo"], &env), 150, 40);
    s.wait_text("320/320");
    s.wait_text("demo-video-done");

    // Typing a filter narrows the list, best match first.
    s.send("/");
    s.type_text("watercol");
    s.wait_for("the list to narrow", Duration::from_secs(10), |t| {
        t.contains("/watercol")
            && !t.contains("320/320")
            && t.contains("/320")
            && !t.contains("filtering…")
    });
    let screen = s.contents();
    let first_row = screen.lines().nth(2).unwrap();
    assert!(
        first_row.contains("watercolor"),
        "best match first: {first_row}"
    );
    // The first Esc leaves the field (its cursor mark goes), the second clears the filter. Sent
    // together, the two bytes read as one Esc (crossterm's parser), as a loaded machine did.
    s.send("\x1b");
    s.wait_for(
        "the filter field to be left",
        Duration::from_secs(10),
        |t| t.contains("/watercol") && !t.contains("/watercol▏"),
    );
    s.send("\x1b");
    s.wait_text("320/320");

    // Add a task and watch it reach COMPLETED.
    s.send("a");
    s.wait_text("Add tasks to the watch list");
    s.type_text("sim-3-e2e-check");
    let added_at = s.raw().len();
    s.send("\r");
    s.wait_for("the new task to complete", Duration::from_secs(60), |t| {
        t.lines()
            .any(|l| l.contains("sim-3-e2e-check") && l.contains("COMPLETED") && l.contains("100%"))
    });
    let seen_at = s.raw().len();
    let (notes, stray) = told_once(&s, added_at, seen_at);
    assert!(
        notes.iter().all(|n| n.rang),
        "every notification rang: {notes:?}"
    );
    assert_eq!(stray, 0, "no bell without a notification");
    // Tasks already final when first polled finished before they were watched: no fanfare.
    for final_at_start in [
        "demo-image-done",
        "demo-video-done",
        "fail-0-rejected-prompt",
    ] {
        assert!(
            notes.iter().all(|n| !n.text.contains(final_at_start)),
            "{final_at_start} was announced: {notes:?}"
        );
    }

    // D downloads the selected (new) task's file into the demo's own temporary directory.
    s.send("D");
    let ours = std::fs::read_dir(&tmp)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("gendash-demo-dl-"))
        .expect("the demo's download directory");
    let saved = ours.join("sim-3-e2e-check.png");
    // The row says it is saved for as long as it shows (a status-bar notice can be replaced
    // before a loaded machine's test thread looks), and the file is renamed into place only
    // whole. The download may wait for the preview's copy of the same file: under load that
    // took over 10 s, so the bound is generous.
    s.wait_for(
        "the row to say the file is saved",
        Duration::from_secs(60),
        |t| {
            saved.exists()
                && t.lines()
                    .any(|l| l.contains("sim-3-e2e-check") && l.contains(" saved sim-3-e2e"))
        },
    );
    assert_eq!(std::fs::read(&saved).unwrap(), *gendash::server::SAMPLE_PNG);

    // y copies its URL with OSC 52.
    s.send("y");
    s.wait_for("the copy", Duration::from_secs(20), |t| {
        t.contains("sent the download URL to the terminal's clipboard (OSC 52)")
    });
    let url = copied(&s);
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/files/sim-3-e2e-check.png"),
        "{url}"
    );

    s.send("?");
    s.wait_text("Keys · Esc/? closes");
    s.send("\x1b");
    s.wait_for("the help to close", Duration::from_secs(20), |t| {
        !t.contains("Keys · Esc/? closes")
    });

    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(30)), 0);
    s.assert_restored();
    // The demo never touched the user's own watch list.
    assert!(!home.path().join("data/gendash/watchlist.json").exists());
}

#[test]
fn the_dashboard_picks_up_scripted_watch_changes() {
    let home = tempfile::tempdir().unwrap();
    fast_config(home.path());
    std::fs::write(
        home.path().join("config/gendash/config.toml"),
        "poll_interval = 0.2\nbell = false\ndesktop_notifications = false\n",
    )
    .unwrap();
    let svc_home = home.path().to_path_buf();
    // A real service in this process, and the dashboard pointed at it.
    let rt = tokio::runtime::Runtime::new().unwrap();
    let svc = rt.block_on(common::service());
    let base = svc.base_url().to_string();
    let env = [
        ("GENDASH_BASE_URL", base.as_str()),
        ("GENDASH_TOKEN", common::TOKEN),
    ];
    let mut s = Session::spawn(command(home.path(), &[], &env), 150, 40);
    s.wait_text("320/320");
    let out = common::gendash(&svc_home)
        .args(["watch", "add", "--video", "sim-2-from-script"])
        .output()
        .unwrap();
    assert!(out.status.success());
    s.wait_for(
        "the scripted task to appear and complete",
        Duration::from_secs(20),
        |t| {
            t.lines()
                .any(|l| l.contains("sim-2-from-script") && l.contains("COMPLETED"))
        },
    );
    // A category typed once is offered again in the next session.
    s.send("c");
    s.type_text("style");
    s.send("\r");
    s.wait_text("cate style");
    s.wait_for("the category to be saved", Duration::from_secs(5), |_| {
        std::fs::read_to_string(home.path().join("data/gendash/recent-categories.json"))
            .is_ok_and(|t| t.contains("style"))
    });
    let raw = s.raw();
    assert!(
        memchr::memmem::find(&raw, b"\x1b]777;").is_none(),
        "notifications were turned off"
    );
    let (notes, stray) = announcements(&raw);
    assert!(notes.is_empty(), "notifications were turned off: {notes:?}");
    assert_eq!(stray, 0, "the bell was turned off");
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
    // Its last known status was saved for the next start.
    let saved = std::fs::read_to_string(home.path().join("data/gendash/watchlist.json")).unwrap();
    assert!(
        saved.contains("sim-2-from-script") && saved.contains("COMPLETED"),
        "{saved}"
    );
}

/// The real opener, as configured with `GENDASH_OPENER`: started directly with the link as its
/// one argument (a shell would split, expand and run this one), and never for a refused link.
#[test]
fn links_reach_the_opener_as_one_argument_never_through_a_shell() {
    let home = tempfile::tempdir().unwrap();
    fast_config(home.path());
    let log = home.path().join("opened.txt");
    let opener = home.path().join("record-opener");
    std::fs::write(
        &opener,
        format!(
            "#!/bin/sh\n{{ echo \"argc=$#\"; for a in \"$@\"; do printf 'arg=%s\\n' \"$a\"; done; }} >> '{}'\n",
            log.display()
        ),
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    // Links the dashboard must refuse: the hostile ones that are still hostile once decoded
    // (decoding strips the escape sequence from one, leaving a plain https link).
    let refused: Vec<String> = gendash::api::links::hostile_links()
        .iter()
        .map(|l| sanitize(l))
        .filter(|l| validate_link(l).is_err())
        .collect();
    assert!(refused.len() >= 7, "{refused:?}");
    // Quote, semicolon, an encoded space, command substitution, a pipe, backticks, a redirect.
    let tricky = "https://lora-hub.example.com/m/it's;touch%20PWNED&x=$(id)|`id`>out";
    let expected = "https://lora-hub.example.com/m/it's;touch%20PWNED&x=$(id)|%60id%60%3Eout";
    let entry = |i: usize, source: &str| {
        let meta = serde_json::json!({ "source": source });
        ServedEntry {
            model: format!("model-{i:02}"),
            lora_type: Some("sd".into()),
            cate: Some("tests".into()),
            metadata: meta.as_object().unwrap().clone(),
        }
    };
    let mut catalogue: Vec<ServedEntry> = refused
        .iter()
        .enumerate()
        .map(|(i, l)| entry(i, l))
        .collect();
    catalogue.push(entry(refused.len(), tricky));
    let n = catalogue.len();

    let rt = tokio::runtime::Runtime::new().unwrap();
    let svc = rt.block_on(common::service_with(gendash::server::Options {
        catalogue,
        ..gendash::server::Options::new(gendash::api::Secret::new(common::TOKEN))
    }));
    let base = svc.base_url().to_string();
    let opener_path = opener.to_str().unwrap();
    let env = [
        ("GENDASH_BASE_URL", base.as_str()),
        ("GENDASH_TOKEN", common::TOKEN),
        ("GENDASH_OPENER", opener_path),
    ];
    let mut s = Session::spawn(command(home.path(), &[], &env), 160, 40);
    s.wait_text(&format!("{n}/{n}"));
    for link in &refused {
        // Each refusal names its own reason; waiting for it keeps keys and screen in step.
        let reason = validate_link(link).unwrap_err().to_string();
        let shown: String = reason.chars().take(40).collect();
        s.send("o");
        s.wait_for(&shown, Duration::from_secs(10), |t| t.contains(&shown));
        s.send("j");
    }
    s.send("o");
    s.wait_for("the link to be opened", Duration::from_secs(10), |t| {
        t.contains("opened https://lora-hub.example.com/m/it's;touch%20PWNED")
            && std::fs::read_to_string(&log).is_ok_and(|l| l.ends_with('\n') && l.contains("arg="))
    });
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        format!("argc=1\narg={expected}\n"),
        "one launch, one argument, exactly the link"
    );
}

/// The text of the first OSC 52 clipboard sequence the dashboard wrote.
fn copied(s: &Session) -> String {
    let raw = String::from_utf8_lossy(&s.raw()).into_owned();
    let payload = raw
        .split("\x1b]52;c;")
        .nth(1)
        .and_then(|r| r.split('\x07').next())
        .expect("an OSC 52 sequence");
    String::from_utf8(
        base64::engine::general_purpose::STANDARD
            .decode(payload)
            .unwrap(),
    )
    .unwrap()
}

/// The reference service on loopback and a home whose config polls fast.
struct Served {
    home: tempfile::TempDir,
    base: String,
    _service: gendash::server::Running,
    _runtime: tokio::runtime::Runtime,
}

impl Served {
    fn start() -> Served {
        let home = tempfile::tempdir().unwrap();
        fast_config(home.path());
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let service = runtime.block_on(common::service());
        Served {
            home,
            base: service.base_url().to_string(),
            _service: service,
            _runtime: runtime,
        }
    }

    /// The dashboard against it, its catalogue on screen.
    fn dashboard(&self) -> Session {
        let env = [
            ("GENDASH_BASE_URL", self.base.as_str()),
            ("GENDASH_TOKEN", common::TOKEN),
        ];
        let s = Session::spawn(command(self.home.path(), &[], &env), 150, 40);
        s.wait_text("320/320");
        s
    }
}

/// Favourites survive a restart: `f` marks the selected model, and the next session lists it
/// alone with `F`.
#[test]
fn favourites_survive_a_restart() {
    let served = Served::start();
    let (home, base) = (&served.home, served.base.clone());
    let mut s = served.dashboard();
    s.send("f");
    s.wait_text("★ ");
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    let saved = std::fs::read_to_string(home.path().join("data/gendash/favourites.json")).unwrap();
    assert!(saved.contains(base.trim_end_matches('/')), "{saved}");

    let mut s = served.dashboard();
    s.send("F");
    s.wait_text("★ only · 1/320");
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
}

/// The catalogue survives the service: the first session caches it; the next, started against
/// the now-dead address, shows the cached copy at once, marked offline.
#[test]
fn the_cached_catalogue_is_shown_when_the_service_is_gone() {
    let served = Served::start();
    let mut s = served.dashboard();
    let dir = served.home.path().join(".cache/gendash/catalogues");
    s.wait_for(
        "the catalogue to be cached",
        Duration::from_secs(10),
        |_| {
            std::fs::read_dir(&dir).is_ok_and(|mut d| {
                d.any(|e| e.is_ok_and(|e| e.path().extension().is_some_and(|x| x == "json")))
            })
        },
    );
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);

    let Served {
        home,
        base,
        _service: service,
        _runtime: runtime,
    } = served;
    drop(service);
    runtime.block_on(async {
        // Until the listener is closed, the address still answers.
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(
                base.trim_start_matches("http://").trim_end_matches('/'),
            )
            .await
            .is_err()
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("the service is still up");
    });
    let env = [
        ("GENDASH_BASE_URL", base.as_str()),
        ("GENDASH_TOKEN", common::TOKEN),
    ];
    let mut s = Session::spawn(command(home.path(), &[], &env), 150, 40);
    s.wait_text("320/320 · cached just now · offline");
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
}

/// `[keys]` and `theme` from the config file, as the user meets them: the hint line shows the
/// rebound key, the old one does nothing, the new one quits; a key taken from a built-in
/// action (`undo = "ctrl-z"`, suspend's) does not stop it; two of the user's actions on one
/// key stop the dashboard before it takes the terminal, naming the key.
#[test]
fn rebound_keys_and_a_theme_from_the_config_file() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("config/gendash");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("config.toml"),
        "theme = \"high-contrast\"\n[keys]\nquit = \"x\"\nhelp = \"f1\"\nundo = \"ctrl-z\"\n",
    )
    .unwrap();
    let mut s = Session::spawn(command(home.path(), &["--demo"], &[]), 150, 40);
    s.wait_text("320/320");
    s.wait_text("x quit");
    s.wait_text("F1 help");
    s.send("q");
    s.send("\x1bOP"); // F1
    s.wait_text("quit");
    // The key that opens the help closes it, as `?` does by default.
    s.wait_text("Keys · Esc/F1 closes");
    s.send("\x1bOP");
    s.wait_for("the help closes", Duration::from_secs(10), |t| {
        !t.contains("Keys · Esc")
    });
    s.send("x");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();

    std::fs::write(
        dir.join("config.toml"),
        "[keys]\ndownload = \"a\"\nadd = \"a\"\n",
    )
    .unwrap();
    let out = common::gendash(home.path())
        .env("GENDASH_BASE_URL", "http://127.0.0.1:9/")
        .env("GENDASH_TOKEN", "t")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("config.toml: keys: `a` is bound to both `add`")
            && stderr.contains("`download`"),
        "{stderr}"
    );
}

/// `L` in the running dashboard: the catalogue's request and the polls are there with their
/// answers, `y` copies one as a curl command that reads the token from `$GENDASH_TOKEN`, and
/// the token is nowhere in what reached the terminal.
#[test]
fn the_request_log_answers_why_nothing_moves_without_the_token() {
    let served = Served::start();
    let base = served.base.clone();
    let mut s = served.dashboard();
    s.send("L");
    s.wait_text("Requests · ");
    s.wait_text("/lora/");
    s.wait_text("sent with the token");
    // The newest is selected: the catalogue's request is the only one.
    s.send("y");
    s.wait_text("sent the request as a curl command to the terminal's clipboard (OSC 52)");
    let curl = copied(&s);
    assert_eq!(
        curl,
        format!("curl -X POST -H \"Authorization: Bearer $GENDASH_TOKEN\" {base}lora/")
    );
    s.send("\x1b");
    s.wait_for("the log closes", Duration::from_secs(10), |t| {
        !t.contains("Requests · ")
    });
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    assert!(
        !String::from_utf8_lossy(&s.raw()).contains(common::TOKEN),
        "the token reached the terminal"
    );
    s.assert_restored();
}
