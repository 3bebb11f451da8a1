//! The request log popup: its rows, selection and the detail of a failed request.

use super::*;

fn record(secs: u64, url: &str, status: Option<u16>, error: Option<&str>) -> RequestRecord {
    RequestRecord {
        at: std::time::UNIX_EPOCH + std::time::Duration::from_secs(NOW + secs),
        method: if url.contains("/files/") {
            "GET"
        } else {
            "POST"
        },
        url: url.to_string(),
        authorized: !url.contains("cdn"),
        status,
        error: error.map(str::to_string),
        duration: std::time::Duration::from_millis(secs * 37 % 1_900),
        bytes: secs * 1_234,
        output: None,
    }
}

/// `L`: the log over the panes, the status bar and the log's keys below it; `y` copies the
/// selected request as curl, `k` moves to an older one.
#[test]
fn request_log() {
    let mut s = watching();
    s.update(Action::Resize {
        width: 120,
        height: 20,
    });
    let base = "http://127.0.0.1:8787";
    s.apply(Msg::Request(record(
        1,
        &format!("{base}/lora/?type=sd"),
        Some(200),
        None,
    )));
    s.apply(Msg::Request(record(
        3,
        &format!("{base}/ai/image_generation/render-001"),
        Some(200),
        None,
    )));
    s.apply(Msg::Request(record(
        4,
        &format!("{base}/ai/image_generation/render-004"),
        Some(502),
        None,
    )));
    s.apply(Msg::Request(record(
        9,
        "https://cdn.example/files/clip-002.mp4",
        None,
        Some("connection to https://cdn.example timed out"),
    )));
    s.update(Action::ToggleRequests);
    insta::assert_snapshot!(draw(&s).backend());

    let cmds = s.update(Action::CopyCurl);
    assert_eq!(
        cmds,
        vec![Cmd::Copy(gendash::cmd::Clip::new(
            "curl https://cdn.example/files/clip-002.mp4",
            "request as a curl command"
        ))]
    );
    s.update(Action::Up);
    let cmds = s.update(Action::CopyCurl);
    assert_eq!(
        cmds,
        vec![Cmd::Copy(gendash::cmd::Clip::new(
            format!(
                "curl -X POST -H \"Authorization: Bearer $GENDASH_TOKEN\" {base}/ai/image_generation/render-004"
            ),
            "request as a curl command"
        ))]
    );
    // Records that arrive while the selection is on an older one leave it there.
    s.apply(Msg::Request(record(
        12,
        &format!("{base}/ai/image_generation/render-001"),
        Some(200),
        None,
    )));
    assert_eq!(s.requests.selected().map(|r| r.status), Some(Some(502)));
    s.update(Action::ToggleRequests);
    assert!(s.popup.is_none());
}
