use super::*;

fn values<'a>(task_id: &'a str, status: &'a str) -> TemplateValues<'a> {
    TemplateValues {
        task_id,
        kind: TaskKind::Video,
        status,
        date: "2026-11-22",
        label: "",
    }
}

/// `{label}` is the task's label made one safe component; no label is nothing.
#[test]
fn labels_expand_as_safe_components() {
    let t = Template::parse("{label}/{task_id}-{label}.{ext}").expect("valid");
    let with = |label| TemplateValues {
        label,
        ..values("t1", "COMPLETED")
    };
    assert_eq!(
        t.expand(&with("sunset v2")),
        PathBuf::from("sunset v2/t1-sunset v2.mp4")
    );
    assert_eq!(
        t.expand(&with("../up\u{1b}[2J/x")),
        PathBuf::from("_.._up_x/t1-_.._up_x.mp4")
    );
    assert_eq!(t.expand(&with("")), PathBuf::from("_/t1-.mp4"));
}

#[test]
fn templates_expand_inside_the_directory_whatever_the_values() {
    let t = Template::parse("{kind}/{date}/{task_id}-{status}.{ext}").expect("valid");
    assert_eq!(
        t.expand(&values("abc", "COMPLETED")),
        PathBuf::from("video/2026-11-22/abc-COMPLETED.mp4")
    );
    assert_eq!(
        t.expand(&values("../../etc/passwd", "x")),
        PathBuf::from("video/2026-11-22/_.._.._etc_passwd-x.mp4")
    );
    let only = Template::parse("{status}/{task_id}").expect("valid");
    assert_eq!(only.expand(&values("..", "..")), PathBuf::from("_../_.."));
    assert_eq!(
        only.expand(&values("a\u{1b}]0;x\u{7}b\\c", ".hidden")),
        PathBuf::from("_.hidden/ab_c")
    );
    assert_eq!(
        Template::default().expand(&values("t/1", "C")),
        PathBuf::from("t_1.mp4")
    );
    for p in [
        Template::default().expand(&values("\u{202e}evil", "x")),
        only.expand(&values("/", "/")),
    ] {
        assert!(
            p.components()
                .all(|c| matches!(c, std::path::Component::Normal(_))),
            "{p:?}"
        );
    }
}

#[test]
fn long_values_fit_a_file_name_and_keep_the_extension() {
    let long_id = "\u{754c}".repeat(300);
    let t = Template::parse("{kind}/{task_id}-{status}-{task_id}.{ext}").expect("valid");
    for (id, status) in [
        (long_id.as_str(), "COMPLETED"),
        ("a", &*"S".repeat(5000)),
        (&*"x/".repeat(400), &*"\u{1f600}".repeat(100)),
    ] {
        let path = t.expand(&values(id, status));
        let name = path
            .file_name()
            .expect("a file")
            .to_string_lossy()
            .into_owned();
        assert!(
            name.len() <= MAX_COMPONENT_BYTES,
            "{} bytes: {name}",
            name.len()
        );
        // `.part.validator` still fits within a file name's 255 bytes.
        assert!(name.len() + ".part.validator".len() <= 255);
        assert_eq!(Path::new(&name).extension(), Some("mp4".as_ref()), "{name}");
        assert!(name.contains('\u{2026}'), "shortened visibly: {name}");
        assert_eq!(path.components().count(), 2, "{path:?}");
    }
    let name = file_name(&long_id, TaskKind::Image);
    assert!(
        Path::new(&name).extension() == Some("png".as_ref()) && name.len() <= MAX_COMPONENT_BYTES,
        "{name}"
    );
    // Short unicode IDs are kept as they are.
    assert_eq!(
        file_name("\u{4efb}\u{52a1}-1", TaskKind::Image),
        "\u{4efb}\u{52a1}-1.png"
    );
}

#[test]
fn bad_templates_say_what_is_wrong() {
    for (text, says) in [
        ("", "empty"),
        ("/abs/{task_id}", "absolute"),
        ("~/x/{task_id}", "absolute"),
        ("C:\\x\\{task_id}", "absolute"),
        ("d:{task_id}", "absolute"),
        ("../{task_id}", "`..` component"),
        ("a//{task_id}", "empty path component"),
        ("{task}.{ext}", "`{task}` is not a placeholder"),
        ("{task_id.{ext}", "not a placeholder"),
        ("{task_id", "without its `}`"),
        ("task}", "without its `{`"),
    ] {
        let e = Template::parse(text).expect_err(text).to_string();
        assert!(e.contains(says), "{text}: {e}");
    }
}

#[test]
fn content_ranges_are_read_strictly() {
    let r = |range, total| Some(ContentRange { range, total });
    assert_eq!(
        ContentRange::parse("bytes 400-999/1000"),
        r(Some((400, 999)), Some(1000))
    );
    assert_eq!(ContentRange::parse("bytes 0-0/*"), r(Some((0, 0)), None));
    assert_eq!(ContentRange::parse("bytes */1000"), r(None, Some(1000)));
    for bad in [
        "",
        "bytes */*",
        "bytes 10-5/100",
        "bytes 0-100/100",
        "bytes 5/100",
        "items 0-1/2",
        "bytes -5-9/10",
        "bytes 0-9/ten",
    ] {
        assert_eq!(ContentRange::parse(bad), None, "{bad}");
    }
}

#[test]
fn only_printable_validators_of_sane_length_are_kept() {
    assert_eq!(usable_validator("\"abc\""), Some("\"abc\"".into()));
    assert_eq!(usable_validator(""), None);
    assert_eq!(usable_validator("a\r\nX-Evil: 1"), None);
    assert_eq!(usable_validator("\u{e9}"), None);
    assert_eq!(usable_validator(&"x".repeat(513)), None);
}

#[test]
fn file_names_cannot_escape() {
    assert_eq!(file_name("abc", TaskKind::Image), "abc.png");
    assert_eq!(
        file_name("../../etc/passwd", TaskKind::Video),
        "_.._.._etc_passwd.mp4"
    );
    assert_eq!(file_name(".hidden", TaskKind::Image), "_.hidden.png");
    assert_eq!(file_name("a\u{1b}[2Jb", TaskKind::Image), "ab.png");
}
