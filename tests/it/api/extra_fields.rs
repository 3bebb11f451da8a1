//! Fields a service sends beyond the spec's five, over real loopback HTTP: the reference
//! service adds them to `-extra` tasks, the client keeps them sanitised, in order, bounded.

use crate::common::{client, service};
use gendash::api::TaskKind;

/// Each field's name and value as a detail shows them.
fn shown(t: &gendash::api::TaskResult) -> Vec<(String, String)> {
    t.extra
        .as_ref()
        .map(|e| {
            e.shown()
                .map(|(n, v)| (n.to_string(), v.into_owned()))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn an_extra_task_s_fields_arrive_in_order_and_sanitised() {
    let svc = service().await;
    let c = client(&svc.base_url());
    let first = c.task_result(TaskKind::Image, "sim-1-extra").await.unwrap();
    assert_eq!(first.status, "QUEUED");
    assert_eq!(
        shown(&first),
        [
            ("queue_position".into(), "2".into()),
            // The service's log line is coloured by escape sequences: they are gone whole.
            ("logs".into(), r#"["model loaded","step 0 of 100"]"#.into()),
            ("preview_url".into(), "null".into()),
            ("worker".into(), r#"{"node":"ref-1","gpu":"A100"}"#.into()),
        ]
    );
    let done = c.task_result(TaskKind::Image, "sim-1-extra").await.unwrap();
    assert_eq!(done.status, "COMPLETED");
    let fields = shown(&done);
    assert_eq!(fields[0], ("queue_position".into(), "0".into()));
    assert_eq!(
        fields[2],
        (
            "preview_url".into(),
            done.url_download.clone().expect("a file URL")
        )
    );
    assert!(fields[1].1.contains("finished: COMPLETED"), "{fields:?}");

    // Only the `-extra` tasks: every other answer is the spec's five.
    let plain = c.task_result(TaskKind::Image, "sim-1-plain").await.unwrap();
    assert_eq!(plain.extra, None);
}

/// A hostile service's extra fields: as many as it likes, as long as it likes, escape
/// sequences in names and values. What is kept stays within the documented bounds.
#[tokio::test]
async fn a_hostile_service_s_extra_fields_stay_bounded_and_inert() {
    use crate::common::{Fault, fault_server, response};
    use gendash::api::extra::{MAX_FIELDS, MAX_NAME_CHARS, MAX_STRING_CHARS};
    let mut task = serde_json::json!({"task_id": "t", "status": "IN_PROGRESS", "percent": 5});
    let fields = task.as_object_mut().unwrap();
    fields.insert(
        format!("\u{1b}]0;owned\u{7}{}", "n".repeat(500)),
        "\u{1b}[2Jv".into(),
    );
    fields.insert("log".into(), "x".repeat(200_000).into());
    fields.insert("frames".into(), serde_json::json!(vec![0; 100_000]));
    for i in 0..1000 {
        fields.insert(format!("f{i}"), i.into());
    }
    let body = serde_json::json!({"data": {"is_success": true, "data": task}}).to_string();
    let fs = fault_server(Fault::Raw(response(
        "200 OK",
        "application/json",
        "",
        &body,
    )))
    .await;
    let t = client(&fs.url())
        .task_result(TaskKind::Image, "t")
        .await
        .unwrap();
    let extra = t.extra.expect("extra fields");
    let kept = shown(&gendash::api::TaskResult {
        extra: Some(extra.clone()),
        ..gendash::testing::task_result("t", "x", 0)
    });
    assert_eq!(kept.len(), MAX_FIELDS);
    assert_eq!(kept[0].0.chars().count(), MAX_NAME_CHARS);
    assert!(
        kept[0].0.starts_with("nnn") && kept[0].1 == "v",
        "{:?}",
        kept[0]
    );
    assert_eq!(kept[1].1.chars().count(), MAX_STRING_CHARS);
    assert_eq!(kept[2].1, "(an array of 200001 bytes, not kept)");
    assert_eq!(extra.omitted() as usize, 1003 - MAX_FIELDS);
    let bytes: usize = kept.iter().map(|(n, v)| n.len() + v.len()).sum();
    assert!(bytes <= 4096, "{bytes}");
}
