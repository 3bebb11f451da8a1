use super::*;

/// Answers of every shape the service (or a broken one) may give.
const BODIES: &[&str] = &[
    r#"{"data":{"is_success":true,"data":{"task_id":"t1","total_tasks":1,"percent":42,"status":"IN_PROGRESS","url_download":""}},"errors":[],"error_description":"","start_time":"2026-01-01 00:00:00.000001","end_time":"2026-01-01 00:00:00.5","host_of_client_call_request":"127.0.0.1","total_time_by_second":0.5,"status":"success"}"#,
    r#"{"data":{"data":{"status":"COMPLETED","percent":"99.6 %","url_download":"https://x.example/a.png","task_id":7,"total_tasks":-1,"x":{"deep":[1,2,{"y":null}]}}},"status":3,"total_time_by_second":"1"}"#,
    r#"{"data":{"data":{"status":"Rendering \u001b[2Jframes\u202e","task_id":"t\u00e9","percent":1e9}},"start_time":null,"end_time":true,"errors":"none"}"#,
    r#"{"data":{"data":{"status":12.5,"percent":null,"url_download":"  ","total_tasks":3.0}},"errors":{}}"#,
    // Failures: the tree's error.
    r#"{"data":{"is_success":false,"data":{"status":"FAILED"}},"error_description":"no such task"}"#,
    r#"{"data":{"data":{"status":"x"}},"errors":["boom"]}"#,
    r#"{"data":{"data":{"status":"x"}},"errors":[{"code":1,"msg":"\u001b]0;t\u0007x"}]}"#,
    // Odd shapes.
    r#"{"data":[true,{"status":"x"}]}"#,
    r#"{"data":{"data":["x"]}}"#,
    r#"{"data":{"data":{"percent":5}}}"#,
    r#"{"data":{"data":{"status":null}}}"#,
    r#"{"data":{"data":{"status":"a","status":"b"}}}"#,
    r#"{"data":{"data":{"status":"a"}},"data":{"data":{"status":"b"}}}"#,
    r#"{"data":null}"#,
    r#"[{"data":{"data":{"status":"x"}}}]"#,
    r#"{"data":{"data":{"status":"x"}}} trailing"#,
    r#"{"data":{"data":{"status":"x"}}"#,
    "",
    "\u{feff}{}",
];

#[test]
fn the_fast_reading_agrees_with_the_tree_on_every_shape() {
    let mut fast = 0;
    for body in BODIES {
        let tree = decode_task_tree(body.as_bytes(), TaskKind::Image, "asked\u{1b}[2J");
        let both = decode_task(body.as_bytes(), TaskKind::Image, "asked\u{1b}[2J");
        assert_eq!(format!("{both:?}"), format!("{tree:?}"), "{body}");
        if let Some(t) = decode_task_fast(body.as_bytes(), TaskKind::Image, "asked\u{1b}[2J") {
            assert_eq!(Ok(t), tree, "{body}");
            fast += 1;
        }
    }
    // The usual shapes take the fast path; failures and odd shapes do not.
    assert_eq!(fast, 4);
    // A lone surrogate in a field nobody reads: the tree cannot parse it; read anyway.
    let odd = r#"{"data":{"data":{"status":"x","note":"\ud800"}}}"#;
    assert!(decode_task_tree(odd.as_bytes(), TaskKind::Image, "t").is_err());
    assert_eq!(
        decode_task(odd.as_bytes(), TaskKind::Image, "t").map(|t| t.status),
        Ok("x".into())
    );
    // Invalid UTF-8, even in a field nobody reads, is the tree's error.
    let bad = b"{\"data\":{\"data\":{\"status\":\"x\"}},\"junk\":\"\xff\"}";
    assert!(decode_task_fast(bad, TaskKind::Image, "t").is_none());
    assert!(decode_task(bad, TaskKind::Image, "t").is_err());
}
