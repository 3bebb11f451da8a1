use super::*;
use serde_json::json;

#[test]
fn percent_forms_are_accepted_and_clamped() {
    assert_eq!(decode_percent(Some(&json!(42))), 42);
    assert_eq!(decode_percent(Some(&json!(42.6))), 43);
    assert_eq!(decode_percent(Some(&json!("17"))), 17);
    assert_eq!(decode_percent(Some(&json!(" 88.2% "))), 88);
    assert_eq!(decode_percent(Some(&json!(-5))), 0);
    assert_eq!(decode_percent(Some(&json!(1e9))), 100);
    assert_eq!(decode_percent(Some(&json!("x"))), 0);
    assert_eq!(decode_percent(None), 0);
}

#[test]
fn bad_catalogue_entries_are_skipped_and_counted() {
    let body = json!({"data": [
        {"model": "good", "metadata": {"source": "https://x.example/a", "extra": {"k": 1}}},
        {"model": 5},
        "nope",
        {"metadata": {}},
        {"model": "no_meta"},
                    {"model": "bad\u{1b}[2J", "metadata": {"source": "https://x\u{202e}.example"}, "unknown": true},
        {"model": "\u{1b}[2J\u{7}", "metadata": {}}
    ]});
    let cat = decode_catalogue(body.to_string().as_bytes()).expect("decodes");
    assert_eq!(
        cat.skipped, 4,
        "an entry whose name is only escape sequences is skipped"
    );
    assert_eq!(cat.entries.len(), 3);
    assert_eq!(cat.entries[0].metadata()["extra"], json!({"k": 1}));
    assert_eq!(cat.entries[2].model(), "bad");
    assert_eq!(cat.entries[2].source(), Some("https://x.example"));
}

#[test]
fn catalogue_without_data_array_is_a_decode_error() {
    for body in [r#"{"items": []}"#, "[]", "<html>", r#"{"data": {}}"#] {
        assert!(matches!(
            decode_catalogue(body.as_bytes()),
            Err(ApiError::Decode { .. })
        ));
    }
}

#[test]
fn a_narrowed_decode_keeps_only_accepted_entries_and_counts_only_odd_ones() {
    let body = json!({"data": [
        {"model": "a", "metadata": {"type": "sd"}},
        {"model": "b", "metadata": {"type": "sdxl"}},
        {"model": 7},
        {"model": "c", "metadata": {"type": "sd"}},
    ]});
    let c = decode_catalogue_where(body.to_string().as_bytes(), |e| {
        e.listed_under(Some(LoraType::Sd), None)
    })
    .expect("decodes");
    let names: Vec<&str> = c.entries.iter().map(LoraEntry::model).collect();
    assert_eq!(names, ["a", "c"]);
    assert_eq!(c.skipped, 1);
}

#[test]
fn task_envelope_decodes_and_keeps_status_verbatim() {
    let body = json!({
        "data": {"is_success": true, "data": {"task_id": "t1", "total_tasks": 1, "percent": "55",
                  "status": "Rendering frames", "url_download": "", "future": 1}},
        "errors": [], "error_description": "", "start_time": "2026-01-01 00:00:00.000001",
        "end_time": "2026-01-01 00:00:00.500000", "host_of_client_call_request": "127.0.0.1",
        "total_time_by_second": 0.5, "status": "success"
    });
    let t = decode_task(body.to_string().as_bytes(), TaskKind::Video, "t1").expect("decodes");
    assert_eq!(t.status, "Rendering frames");
    assert_eq!(t.percent, 55);
    assert_eq!(t.url_download, None);
    assert_eq!(t.envelope.total_time_by_second, Some(0.5));
}

#[test]
fn fields_beyond_the_spec_s_five_are_kept_in_order_and_sanitised() {
    let body = r#"{"data":{"is_success":true,"data":{"queue_position":3,"task_id":"t",
            "status":"QUEUED","logs":["\u001b[31mred\u001b[0m", "b"],"percent":0,
            "url_download":"","worker":{"gpu":"A100"}}},"errors":[]}"#;
    let fast = decode_task_fast(body.as_bytes(), TaskKind::Image, "t").expect("fast");
    let tree = decode_task_tree(body.as_bytes(), TaskKind::Image, "t").expect("tree");
    assert_eq!(fast, tree);
    let extra = fast.extra.expect("extra fields");
    let shown: Vec<(&str, String)> = extra.shown().map(|(n, v)| (n, v.into_owned())).collect();
    assert_eq!(
        shown,
        [
            ("queue_position", "3".to_string()),
            ("logs", r#"["red","b"]"#.to_string()),
            ("worker", r#"{"gpu":"A100"}"#.to_string()),
        ]
    );
    let usual = r#"{"data":{"data":{"task_id":"t","status":"QUEUED","percent":0}}}"#;
    let t = decode_task(usual.as_bytes(), TaskKind::Image, "t").expect("decodes");
    assert_eq!(t.extra, None, "a task without extra fields holds none");
}

#[test]
fn failed_lookup_carries_the_description() {
    let body = json!({"data": {"is_success": false, "data": {}}, "errors": [{"code": "x"}],
                          "error_description": "task not found", "status": "failed"});
    assert_eq!(
        decode_task(body.to_string().as_bytes(), TaskKind::Image, "x"),
        Err(ApiError::Lookup {
            description: "task not found".into()
        })
    );
    let body = json!({"data": {"is_success": true, "data": {"status": "x"}}, "errors": ["boom"]});
    assert_eq!(
        decode_task(body.to_string().as_bytes(), TaskKind::Image, "x"),
        Err(ApiError::Lookup {
            description: "boom".into()
        })
    );
}

#[test]
fn classification() {
    let f: Vec<String> = default_failure_statuses();
    assert_eq!(classify("COMPLETED", &f), TaskState::Completed);
    assert_eq!(classify("completed", &f), TaskState::Completed);
    assert_eq!(classify("Cancelled", &f), TaskState::Failed);
    assert_eq!(classify("IN_PROGRESS", &f), TaskState::Running);
    assert_eq!(classify("", &f), TaskState::Running);
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let body = "[".repeat(100_000);
    assert!(decode_catalogue(body.as_bytes()).is_err());
    assert!(decode_task(body.as_bytes(), TaskKind::Image, "x").is_err());
}
