//! Offline and the catalogue cache, with the real binary in a pseudo-terminal, several
//! features at once: the cached catalogue, the type key and the category field, the service
//! going and coming back, the status bar's health, a watched task, a wrong base path.

use crate::common;

use common::pty::{Session, command};
use gendash::server::served_catalogue::{embedded, matching};
use std::time::Duration;

/// How many models the reference service lists for this type and category.
fn listed(lora_type: Option<&str>, cate: Option<&str>) -> usize {
    matching(&embedded(), lora_type, cate).count()
}

/// A home whose config polls fast.
fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("config/gendash");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.toml"), "poll_interval = 0.2\n").unwrap();
    home
}

fn dashboard(home: &std::path::Path, base: &str, cols: u16) -> Session {
    let env = [("GENDASH_BASE_URL", base), ("GENDASH_TOKEN", common::TOKEN)];
    Session::spawn(command(home, &[], &env), cols, 40)
}

/// The status bar never says `trouble` and `reconnected` at once.
fn one_health(screen: &str) -> &str {
    assert!(
        !(screen.contains("trouble") && screen.contains("reconnected")),
        "two healths at once:\n{screen}"
    );
    screen
}

/// Waits for `text`, checking every screen on the way that the health is one.
fn wait_for_text(s: &Session, text: &str, limit: Duration) {
    s.wait_for(text, limit, |screen| one_health(screen).contains(text));
}

/// Every browser row that names a type and category names these.
fn rows_agree(screen: &str, lora_type: &str, cate: Option<&str>) {
    for line in screen.lines() {
        for other in ["sd", "sdxl"].into_iter().filter(|t| *t != lora_type) {
            assert!(
                !line.contains(&format!("  {other} · ")),
                "a {other} model under type {lora_type}:\n{screen}"
            );
        }
        let tag = format!("  {lora_type} · ");
        if let (Some(cate), Some(at)) = (cate, line.find(&tag)) {
            let rest = &line[at + tag.len()..];
            assert!(
                rest.starts_with(cate),
                "a model of another category under {cate}:\n{screen}"
            );
        }
    }
}

/// Online once (the whole catalogue cached), then the service stops: the dashboard starts
/// offline, and the type key and the category field list only what their labels say — the
/// whole copy narrowed here, the title saying so — while the watched task's trouble is the
/// status bar's one health. The service comes back on the same address: the fresh list
/// replaces the narrowed copy and the status bar says `reconnected`, never beside `trouble`.
#[test]
fn offline_type_and_category_changes_list_what_the_title_says_until_the_service_returns() {
    let home = home();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let service = runtime.block_on(common::service());
    let base = service.base_url().to_string();
    let addr = service.addr;
    let out = common::gendash(home.path())
        .args(["watch", "add", "hold-offline"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");

    let mut s = dashboard(home.path(), &base, 220);
    wait_for_text(&s, "320/320", Duration::from_secs(20));
    let dir = home.path().join(".cache/gendash/catalogues");
    s.wait_for(
        "the catalogue to be cached",
        Duration::from_secs(10),
        |_| std::fs::read_dir(&dir).is_ok_and(|d| d.count() == 1),
    );
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);

    drop(service);
    runtime.block_on(async {
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(addr).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("the service is still up");
    });

    let mut s = dashboard(home.path(), &base, 220);
    wait_for_text(
        &s,
        "320/320 · cached just now · offline",
        Duration::from_secs(20),
    );
    wait_for_text(&s, "✖ trouble", Duration::from_secs(20));

    s.send("t");
    let sd = listed(Some("sd"), None);
    wait_for_text(
        &s,
        &format!("type sd · cate any · {sd}/{sd} · cached just now · offline · filtered here"),
        Duration::from_secs(20),
    );
    rows_agree(&s.contents(), "sd", None);

    s.send("c");
    s.type_text("style");
    s.send("\r");
    let sd_style = listed(Some("sd"), Some("style"));
    assert!(sd_style > 5 && sd_style < sd);
    let narrowed = format!(
        "type sd · cate style · {sd_style}/{sd_style} · cached just now · offline · filtered here"
    );
    wait_for_text(&s, &narrowed, Duration::from_secs(20));
    rows_agree(&s.contents(), "sd", Some("style"));

    // Back on the same address: the dashboard's own retry brings the fresh list.
    let service = runtime
        .block_on(gendash::server::bind_and_start(
            &addr.to_string(),
            gendash::server::Options::new(gendash::api::Secret::new(common::TOKEN)),
        ))
        .unwrap();
    let fresh = format!("type sd · cate style · {sd_style}/{sd_style} ");
    s.wait_for("the fresh list", Duration::from_secs(40), |screen| {
        one_health(screen).contains(&fresh) && !screen.contains("filtered here")
    });
    rows_agree(&s.contents(), "sd", Some("style"));
    s.wait_for("connected again", Duration::from_secs(20), |screen| {
        one_health(screen).contains("connected") && !screen.contains("✖ trouble")
    });
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
    drop(service);
}

/// The service's routes live under `/api/v1`, the base URL lacks it: every answer is a 404.
/// The status bar says the base URL's path looks wrong and shows what was asked, never
/// `connected`; the watched task is not called unknown.
#[test]
fn a_wrong_prefix_is_not_connected() {
    let home = home();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let service = runtime.block_on(common::service_with(gendash::server::Options {
        prefix: Some("/api/v1".into()),
        ..gendash::server::Options::new(gendash::api::Secret::new(common::TOKEN))
    }));
    let base = service.base_url().to_string();
    let out = common::gendash(home.path())
        .args(["watch", "add", "demo-image-done"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let mut s = dashboard(home.path(), &base, 220);
    let asked = format!("✖ the base URL's path looks wrong: POST {base}");
    s.wait_for("the wrong path said", Duration::from_secs(20), |screen| {
        screen.contains(&asked) && screen.contains("→ 404: is the path prefix right?")
    });
    // The task's first poll answered the same: its row says so, and its detail names what was
    // asked (the 404 wraps to the detail's next line). The status bar keeps the catalogue's
    // words until the task's next attempt, a slow backoff later: not waited for.
    let lookup = format!("POST {base}ai/image_generation/demo-image-done →");
    s.wait_for(
        "the task's poll answered",
        Duration::from_secs(20),
        |screen| {
            screen.contains(&lookup)
                && screen.lines().any(|l| {
                    l.contains("demo-image-done") && l.contains("⚠ the base URL's path looks wrong")
                })
        },
    );
    let screen = s.contents();
    assert!(!screen.contains("connected"), "{screen}");
    assert!(!screen.to_lowercase().contains("not found"), "{screen}");
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
}
