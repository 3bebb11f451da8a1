//! `gendash status` shows the fields a service sends beyond the spec's five, end to end: the
//! real binary against the reference service's `-extra` task.

use crate::common::{Served, gendash};

#[test]
fn status_shows_the_fields_a_service_sends_beyond_the_spec() {
    let served = Served::new();
    let run = |args: &[&str]| {
        let out = gendash(served.path())
            .envs(served.env())
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let plain = run(&["status", "sim-0-cli-extra"]);
    let lines: Vec<&str> = plain.lines().collect();
    assert!(lines[0].contains("COMPLETED"), "{plain}");
    let url = format!("{}files/sim-0-cli-extra.png", served.base);
    assert_eq!(
        lines[1..],
        [
            "  queue_position: 0",
            r#"  logs: ["model loaded","step 100 of 100","finished: COMPLETED"]"#,
            &format!("  preview_url: {url}"),
            r#"  worker: {"node":"ref-1","gpu":"A100"}"#,
        ],
        "{plain}"
    );
    assert!(!plain.contains('\u{1b}'), "{plain:?}");

    let json: serde_json::Value =
        serde_json::from_str(&run(&["status", "--json", "sim-0-cli-extra"])).unwrap();
    let fields = &json["extra"]["fields"];
    assert_eq!(fields["queue_position"], 0);
    assert_eq!(fields["logs"][0], "model loaded");
    assert_eq!(fields["worker"]["gpu"], "A100");
    assert_eq!(fields["preview_url"], url.as_str());
    assert_eq!(json["status"], "COMPLETED");
}
