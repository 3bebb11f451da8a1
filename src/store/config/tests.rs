use super::*;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
    move |k| {
        pairs
            .iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| (*v).to_string())
    }
}

fn resolve_text(text: &str, o: &Overrides, env: EnvLookup<'_>) -> Result<Settings, ConfigError> {
    let path = PathBuf::from("/tmp/x/config.toml");
    resolve_from(parse(text, &path)?, true, path, o, env)
}

const FILE: &str = r#"
base_url = "https://top.example"
token = "top-token"
poll_interval = 3
stall_after = 120

[profiles.work]
base_url = "https://work.example/api/v1/"
request_timeout = 12.5
"#;

#[test]
fn precedence_flags_env_profile_top() {
    let none = env_of(&[]);
    let s = resolve_text(FILE, &Overrides::default(), &none).expect("ok");
    assert_eq!(s.base_url.expect("set").as_str(), "https://top.example/");
    assert_eq!(s.sources["base_url"], Source::TopLevel);
    assert_eq!(s.poll_interval, Duration::from_secs(3));
    assert_eq!(s.stall_after, Duration::from_secs(120));

    let o = Overrides {
        profile: Some("work".into()),
        ..Overrides::default()
    };
    let s = resolve_text(FILE, &o, &none).expect("ok");
    assert_eq!(
        s.base_url.expect("set").as_str(),
        "https://work.example/api/v1/"
    );
    assert_eq!(s.request_timeout, Duration::from_secs_f64(12.5));
    assert_eq!(s.sources["token"], Source::TopLevel);

    let env = env_of(&[
        ("GENDASH_BASE_URL", "https://env.example"),
        ("GENDASH_TOKEN", "env-token"),
        ("GENDASH_PROFILE", "work"),
    ]);
    let s = resolve_text(FILE, &Overrides::default(), &env).expect("ok");
    assert_eq!(s.base_url.expect("set").as_str(), "https://env.example/");
    assert_eq!(s.token.expect("set").expose(), "env-token");
    assert_eq!(s.profile.as_deref(), Some("work"));

    let o = Overrides {
        base_url: Some("http://127.0.0.1:9/".into()),
        ..Overrides::default()
    };
    let s = resolve_text(FILE, &o, &env).expect("ok");
    assert_eq!(s.base_url.expect("set").as_str(), "http://127.0.0.1:9/");
    assert_eq!(s.sources["base_url"], Source::Flag("--base-url"));
}

#[test]
fn unknown_keys_and_bad_values_name_line_and_key() {
    let path = PathBuf::from("/etc/g.toml");
    let e = parse(
        "base_url = \"https://x.example\"\npoll_intervall = 3\n",
        &path,
    )
    .expect_err("bad");
    assert!(e.to_string().contains("/etc/g.toml line 2"), "{e}");
    assert!(e.to_string().contains("poll_intervall"), "{e}");
    let e = parse("\n\npoll_interval = -1\n", &path).expect_err("bad");
    assert!(e.to_string().contains("line 3, key `poll_interval`"), "{e}");
    let e = parse(
        "bell = true\n[profiles.work]\nmax_concurrent_polls = \"many\"\n",
        &path,
    )
    .expect_err("bad");
    assert!(
        e.to_string()
            .contains("line 3, key `profiles.work.max_concurrent_polls`"),
        "{e}"
    );
    let e = parse("[profiles.a]\nbase_url = \"ftp://x\"\n", &path).expect_err("bad");
    assert!(
        e.to_string().contains("line 2") && e.to_string().contains("http"),
        "{e}"
    );
    let e = parse("[profiles.a]\nfoo = 1\n", &path).expect_err("bad");
    assert!(e.to_string().contains("foo"), "{e}");
}

#[test]
fn unknown_profile_lists_known_ones() {
    let o = Overrides {
        profile: Some("nope".into()),
        ..Overrides::default()
    };
    let e = resolve_text(FILE, &o, &env_of(&[])).expect_err("bad");
    assert!(e.to_string().contains("known: work"), "{e}");
}

#[test]
fn one_token_way_per_level_and_command_runs_without_shell() {
    let e = resolve_text(
        "token = \"a\"\ntoken_command = \"echo b\"\n",
        &Overrides::default(),
        &env_of(&[]),
    )
    .expect_err("bad");
    assert!(e.to_string().contains("only one of"), "{e}");
    let s = resolve_text(
        "token_command = [\"echo\", \"tok from cmd\", \"$HOME\"]\n",
        &Overrides::default(),
        &env_of(&[]),
    )
    .expect("ok");
    assert_eq!(s.token.expect("set").expose(), "tok from cmd $HOME");
}

#[test]
fn show_never_prints_the_token() {
    let s = resolve_text(FILE, &Overrides::default(), &env_of(&[])).expect("ok");
    let text = s.describe().join("\n");
    assert!(!text.contains("top-token"));
    assert!(text.contains("<redacted>"));
    assert!(!format!("{s:?}").contains("top-token"));
}

#[test]
fn deep_nesting_in_toml_is_an_error() {
    let text = format!("x = {}", "[".repeat(100_000));
    assert!(parse(&text, Path::new("/x")).is_err());
}

#[test]
fn image_preview_takes_six_values_and_names_line_and_key_otherwise() {
    let none = env_of(&[]);
    let s = resolve_text("", &Overrides::default(), &none).expect("ok");
    assert_eq!(s.image_preview, ImagePreview::Auto);
    assert_eq!(s.sources["image_preview"], Source::Default);
    for name in ImagePreview::NAMES {
        let s = resolve_text(
            &format!("image_preview = \"{name}\"\n"),
            &Overrides::default(),
            &none,
        )
        .expect("ok");
        assert_eq!(s.image_preview.name(), name);
        assert!(
            s.describe()
                .iter()
                .any(|l| l.starts_with("image_preview") && l.contains(name)),
            "{:?}",
            s.describe()
        );
    }
    let o = Overrides {
        profile: Some("work".into()),
        ..Overrides::default()
    };
    let s = resolve_text(
        "image_preview = \"off\"\n[profiles.work]\nimage_preview = \"sixel\"\n",
        &o,
        &none,
    )
    .expect("ok");
    assert_eq!(s.image_preview, ImagePreview::Sixel);

    let path = PathBuf::from("/etc/g.toml");
    let e = parse("bell = true\n\nimage_preview = \"ascii\"\n", &path).expect_err("bad");
    assert!(
        e.to_string()
            .contains("/etc/g.toml line 3, key `image_preview`"),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains("`ascii` is not one of \"auto\", \"kitty\""),
        "{e}"
    );
    let e = parse("[profiles.a]\nimage_preview = 1\n", &path).expect_err("bad");
    assert!(
        e.to_string()
            .contains("line 2, key `profiles.a.image_preview`"),
        "{e}"
    );
}

#[test]
fn download_settings_resolve_per_profile_and_expand_home() {
    let text = "download_dir = \"~/dl\"\nauto_download = true\n\
                [profiles.work]\ndownload_dir = \"/srv/out\"\n\
                download_template = \"{kind}/{date}/{task_id}.{ext}\"\nauto_download = false\n";
    let none = env_of(&[]);
    let s = resolve_text(text, &Overrides::default(), &none).expect("ok");
    let home = directories::BaseDirs::new().expect("a home");
    assert_eq!(s.download_dir, home.home_dir().join("dl"));
    assert_eq!(s.download_template.as_str(), "{task_id}.{ext}");
    assert!(s.auto_download);
    assert_eq!(s.sources["download_dir"], Source::TopLevel);
    assert_eq!(s.sources["download_template"], Source::Default);

    let work = Overrides {
        profile: Some("work".into()),
        ..Overrides::default()
    };
    let s = resolve_text(text, &work, &none).expect("ok");
    assert_eq!(s.download_dir, PathBuf::from("/srv/out"));
    assert_eq!(
        s.download_template.as_str(),
        "{kind}/{date}/{task_id}.{ext}"
    );
    assert!(!s.auto_download);
    assert_eq!(s.sources["download_dir"], Source::Profile("work".into()));
    let shown = s.describe().join("\n");
    for row in [
        "download_dir           = /srv/out",
        "download_template      = {kind}/{date}/{task_id}.{ext}",
        "auto_download          = false",
    ] {
        assert!(shown.contains(row), "{row} in\n{shown}");
    }

    // Nothing set: the platform's download directory, else the current one; nothing is
    // created while the configuration is read.
    let s = resolve_text("", &Overrides::default(), &none).expect("ok");
    let platform =
        directories::UserDirs::new().and_then(|u| u.download_dir().map(Path::to_path_buf));
    assert_eq!(
        s.download_dir,
        platform.unwrap_or_else(|| PathBuf::from("."))
    );
    assert!(!s.auto_download);
}

#[test]
fn bad_download_templates_name_line_and_key() {
    let path = PathBuf::from("/etc/g.toml");
    for (template, says) in [
        ("", "empty"),
        ("/abs/{task_id}", "absolute"),
        ("C:/x/{task_id}", "absolute"),
        ("{task_id}/../x", "`..` component"),
        ("{task}.{ext}", "`{task}` is not a placeholder"),
        ("{task_id.{ext}", "not a placeholder"),
        ("{task_id", "without its `}`"),
        ("x}.{ext}", "without its `{`"),
    ] {
        let text = format!("bell = true\n\n[profiles.p]\ndownload_template = \"{template}\"\n");
        let e = parse(&text, &path).expect_err(template);
        assert!(
            e.to_string()
                .contains("/etc/g.toml line 4, key `profiles.p.download_template`")
                && e.to_string().contains(says),
            "{template}: {e}"
        );
    }
    let e = parse("auto_download = \"yes\"\n", &path).expect_err("not a bool");
    assert!(e.to_string().contains("line 1, key `auto_download`"), "{e}");
}

#[test]
fn the_prompt_template_and_weight_resolve_and_a_bad_one_names_line_and_placeholder() {
    let none = env_of(&[]);
    let s = resolve_text("", &Overrides::default(), &none).expect("ok");
    assert_eq!(
        s.prompt_template.as_str(),
        "<lora:{model}:{weight}> {trigger_words}"
    );
    assert!((s.lora_weight - 1.0).abs() < f64::EPSILON);
    let text = "lora_weight = 0.7\nprompt_template = \"{trigger_words}, {meta.sampler}\"\n";
    let s = resolve_text(text, &Overrides::default(), &none).expect("ok");
    assert!((s.lora_weight - 0.7).abs() < f64::EPSILON);
    let shown = s.describe().join("\n");
    assert!(
        shown.contains("= {trigger_words}, {meta.sampler}"),
        "{shown}"
    );

    let path = PathBuf::from("/etc/g.toml");
    let text = "bell = true\n\n[profiles.p]\nprompt_template = \"<lora:{model}:{wieght}>\"\n";
    let e = parse(text, &path)
        .expect_err("an unknown placeholder")
        .to_string();
    assert!(
        e.contains("/etc/g.toml line 4, key `profiles.p.prompt_template`")
            && e.contains("`{wieght}` is not a placeholder of prompt_template"),
        "{e}"
    );
    let e = parse("lora_weight = nan\n", &path)
        .expect_err("not a weight")
        .to_string();
    assert!(
        e.contains("line 1, key `lora_weight`") && e.contains("not a weight"),
        "{e}"
    );
}

#[test]
fn keys_theme_and_styles_resolve_with_a_profile_on_top() {
    let text = r#"
theme = "light"
[keys]
quit = "x"
open = ["enter", "o"]
[styles]
selected = "on #28405a bold"
[profiles.work]
theme = "high-contrast"
[profiles.work.keys]
quit = "ctrl-q"
download = "ctrl-d"
[profiles.work.styles]
running = "208"
"#;
    let none = env_of(&[]);
    let s = resolve_text(text, &Overrides::default(), &none).expect("ok");
    assert_eq!(s.theme, ThemeName::Light);
    assert_eq!(s.sources["theme"], Source::TopLevel);
    let names = |s: &Settings, action: &str| -> Vec<String> {
        s.keys[action].iter().map(ToString::to_string).collect()
    };
    assert_eq!(names(&s, "quit"), ["x"]);
    assert_eq!(names(&s, "open"), ["enter", "o"]);
    assert!(s.styles.contains_key("selected"));
    let lines = s.describe().join("\n");
    assert!(lines.contains("theme"), "{lines}");
    assert!(lines.contains("open = enter o, quit = x"), "{lines}");

    let o = Overrides {
        profile: Some("work".into()),
        ..Overrides::default()
    };
    let s = resolve_text(text, &o, &none).expect("ok");
    assert_eq!(s.theme, ThemeName::HighContrast);
    assert_eq!(names(&s, "quit"), ["ctrl-q"]);
    assert_eq!(names(&s, "open"), ["enter", "o"], "the top level's stays");
    assert_eq!(names(&s, "download"), ["ctrl-d"]);
    assert_eq!(
        s.styles.keys().map(String::as_str).collect::<Vec<_>>(),
        ["running", "selected"]
    );
    assert_eq!(s.sources["keys"], Source::Profile("work".into()));

    let s = resolve_text("", &Overrides::default(), &none).expect("ok");
    assert_eq!(s.theme, ThemeName::Auto);
    assert!(s.keys.is_empty() && s.styles.is_empty());
}

#[test]
fn bad_keys_themes_and_styles_name_the_line_and_the_key() {
    let none = env_of(&[]);
    for (text, wanted) in [
        (
            "[keys]\nquitt = \"x\"\n",
            "config.toml line 2: unknown field `quitt` (did you mean `quit`?), expected one of `filter`",
        ),
        (
            "[keys]\nquit = \"ctrl-q\"\nopen = \"entr\"\n",
            "config.toml line 3, key `keys.open`: `entr` is not a key",
        ),
        (
            "[keys]\nopen = [\"enter\", \"ctrl-\"]\n",
            "config.toml line 2, key `keys.open`: `ctrl-` is not a key",
        ),
        (
            "[keys]\nopen = []\n",
            "config.toml line 2, key `keys.open`: an empty list",
        ),
        (
            "theme = \"neon\"\n",
            "config.toml line 1, key `theme`: unknown variant `neon`, expected one of `auto`, `dark`, `light`, `high-contrast`",
        ),
        (
            "[styles]\nselcted = \"red\"\n",
            "config.toml line 2: unknown field `selcted` (did you mean `selected`?), expected one of `border`",
        ),
        (
            "[styles]\nselected = \"purplish bold\"\n",
            "config.toml line 2, key `styles.selected`: `purplish` is not a colour",
        ),
        (
            "[profiles.w.styles]\nrunning = \"#12\"\n",
            "config.toml line 2, key `profiles.w.styles.running`: `#12` is not a colour",
        ),
    ] {
        let e = resolve_text(text, &Overrides::default(), &none)
            .expect_err(text)
            .to_string();
        assert!(e.starts_with("/tmp/x/"), "{e}");
        assert!(
            e.contains(wanted),
            "{text:?}\n  got: {e}\n  wanted: {wanted}"
        );
    }
}

#[test]
fn durations_and_the_poll_count_have_floors_said_plainly() {
    let path = PathBuf::from("/etc/g.toml");
    for (text, wanted) in [
        (
            "poll_interval = 0",
            "line 1, key `poll_interval`: 0 is too short: it must be at least 0.2 seconds",
        ),
        (
            "poll_interval = 0.1",
            "0.1 is too short: it must be at least 0.2 seconds",
        ),
        (
            "stall_after = 0",
            "line 1, key `stall_after`: 0 is too short: it must be at least 1 second",
        ),
        (
            "stall_after = 0.5",
            "0.5 is too short: it must be at least 1 second",
        ),
        (
            "request_timeout = -3",
            "-3 is too short: it must be at least 1 second",
        ),
        (
            "request_timeout = 86401",
            "86401 is too long: it must be at most 86400 seconds (a day)",
        ),
        (
            "max_concurrent_polls = 0",
            "line 1, key `max_concurrent_polls`: 0 is too few: at least 1 request must be allowed at a time",
        ),
        ("max_concurrent_polls = -2", "-2 is too few"),
        (
            "max_catalogue_mib = 0",
            "line 1, key `max_catalogue_mib`: 0 is too small: it must be at least 1 (MiB)",
        ),
    ] {
        let e = parse(text, &path).expect_err(text).to_string();
        assert!(e.contains(wanted), "{text}\n  got: {e}\n  wanted: {wanted}");
    }
    let ok = parse(
        "poll_interval = 0.2\nstall_after = 1\nrequest_timeout = 1\nmax_concurrent_polls = 1\n",
        &path,
    )
    .expect("the floors themselves are accepted");
    assert_eq!(
        ok.poll_interval.map(|s| s.0),
        Some(Duration::from_millis(200))
    );
    assert_eq!(
        ok.max_concurrent_polls.map(std::num::NonZeroUsize::get),
        Some(1)
    );
    let env = env_of(&[("GENDASH_REQUEST_TIMEOUT", "0")]);
    let e = resolve_text("", &Overrides::default(), &env).expect_err("zero");
    assert_eq!(
        e.to_string(),
        "GENDASH_REQUEST_TIMEOUT: 0 is too short: it must be at least 1 second"
    );
}

#[test]
fn max_catalogue_mib_sets_the_clients_catalogue_cap_and_names_itself() {
    let default = resolve_text("", &Overrides::default(), &env_of(&[])).expect("defaults");
    assert_eq!(
        default.catalogue_cap(),
        crate::api::client::CatalogueCap {
            bytes: crate::api::client::CATALOGUE_CAP,
            setting: Some("max_catalogue_mib"),
        }
    );
    let set = resolve_text(
        "max_catalogue_mib = 3\n",
        &Overrides::default(),
        &env_of(&[]),
    )
    .expect("three MiB");
    assert_eq!(set.catalogue_cap().bytes, 3 * 1024 * 1024);
    assert!(super::NAMES.contains(&super::CATALOGUE_CAP_KEY));
}

#[test]
fn an_unknown_key_suggests_the_nearest_only_when_near() {
    let path = PathBuf::from("c.toml");
    let e = parse("poll_intreval = 2\n", &path)
        .expect_err("unknown")
        .to_string();
    assert!(e.starts_with("c.toml line 1: unknown field `poll_intreval` (did you mean `poll_interval`?), expected one of `base_url`"), "{e}");
    let e = parse("zzz = 2\n", &path).expect_err("unknown").to_string();
    assert!(
        e.starts_with("c.toml line 1: unknown field `zzz`, expected one of"),
        "{e}"
    );
    assert_eq!(
        nearest("THEME", ["theme", "bell"].into_iter()),
        Some("theme")
    );
    assert_eq!(nearest("x", ["theme", "bell"].into_iter()), None);
}

#[test]
fn the_declared_keys_are_the_schema_s() {
    let keys = declared_keys();
    for k in [
        "base_url",
        "poll_interval",
        "max_concurrent_polls",
        "keys",
        "profiles",
    ] {
        assert!(keys.contains(&k), "{k} in {keys:?}");
    }
    // Each one parses (as some value), none is invented.
    let e = parse("nope = 1", Path::new("c.toml"))
        .expect_err("unknown")
        .to_string();
    for k in keys {
        assert!(
            e.contains(&format!("`{k}`")),
            "{k} is not in the parser's own list: {e}"
        );
    }
}

/// The names in serde's ``unknown field `x`, expected one of `a`, `b`…``: what the parser
/// itself takes at one level.
fn parser_keys() -> Vec<String> {
    let e = parse("nope = 1", Path::new("c.toml"))
        .expect_err("unknown")
        .to_string();
    let known = e.split_once("expected one of").expect("a list").1;
    known
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

fn docs_page() -> (PathBuf, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/configuration.md");
    let text = std::fs::read_to_string(&path).expect("docs/configuration.md");
    (path, text)
}

/// The key list of docs/configuration.md, between its markers.
fn docs_key_list(text: &str) -> (usize, usize) {
    let begin = text.find(KEY_TABLE_BEGIN).expect("the begin marker") + KEY_TABLE_BEGIN.len() + 1;
    let end = text.find(KEY_TABLE_END).expect("the end marker");
    assert!(begin <= end, "the markers are in order");
    (begin, end)
}

#[test]
fn the_docs_key_list_is_the_one_the_declaration_makes() {
    let (path, text) = docs_page();
    let (begin, end) = docs_key_list(&text);
    let generated = key_table();
    if text[begin..end] == generated {
        return;
    }
    if std::env::var_os("UPDATE_DOCS").is_some() {
        let updated = format!("{}{generated}{}", &text[..begin], &text[end..]);
        std::fs::write(&path, updated).expect("docs/configuration.md written");
        return;
    }
    panic!(
        "docs/configuration.md's key list differs from the declaration (src/store/config/schema.rs); \
         regenerate it with UPDATE_DOCS=1 cargo test --locked --lib config::\n--- in the doc:\n{}\n--- generated:\n{generated}",
        &text[begin..end]
    );
}

#[test]
fn every_key_the_parser_takes_is_declared_documented_and_shown() {
    let parsed = parser_keys();
    assert_eq!(
        parsed, NAMES,
        "the parser takes the declared keys, in order"
    );
    assert_eq!(declared_keys(), NAMES);

    let (_, text) = docs_page();
    let (begin, end) = docs_key_list(&text);
    let rows: Vec<&str> = text[begin..end]
        .lines()
        .filter_map(|l| l.strip_prefix("| `")?.split_once('`').map(|(k, _)| k))
        .collect();
    assert_eq!(rows, parsed, "the doc lists every key the parser takes");

    let shown = resolve_text("", &Overrides::default(), &env_of(&[]))
        .expect("ok")
        .describe();
    for key in KEYS {
        let line = match key.show {
            Show::Line(_) => key.name,
            Show::On(other) => other,
        };
        assert!(
            shown
                .iter()
                .any(|l| l.split([' ', ':']).next() == Some(line)),
            "config show has no line for {} ({line}):\n{}",
            key.name,
            shown.join("\n")
        );
    }
}

#[test]
fn a_key_with_a_flag_or_a_variable_reads_its_text_and_each_layered_key_has_a_source() {
    for key in KEYS {
        if let Some(layers) = &key.layered {
            assert_eq!(
                key.flag.is_some() || key.env.is_some(),
                layers.outside.is_some(),
                "{}: a flag or variable, and the parser of its text, go together",
                key.name
            );
        }
    }
    let s = resolve_text("", &Overrides::default(), &env_of(&[])).expect("ok");
    for key in KEYS.iter().filter(|k| k.layered.is_some()) {
        assert_eq!(
            s.sources.get(key.name),
            Some(&Source::Default),
            "{}",
            key.name
        );
    }
    // The variable is read only when no flag is given: a bad one does not matter then.
    let env = env_of(&[("GENDASH_BASE_URL", "not a url")]);
    let o = Overrides {
        base_url: Some("http://127.0.0.1:9/".into()),
        ..Overrides::default()
    };
    let s = resolve_text("", &o, &env).expect("the flag wins");
    assert_eq!(s.sources["base_url"], Source::Flag("--base-url"));
    let e = resolve_text("", &Overrides::default(), &env).expect_err("bad variable");
    assert!(
        e.to_string()
            .starts_with("GENDASH_BASE_URL: `not a url` has no scheme"),
        "{e}"
    );
}

/// A profile's token with a base URL from the environment is withheld, and the error names
/// both sources as its fields (the words are checked on the wire in `api::hardening`); a
/// flag's bad value is a usage error, a variable's is not.
#[test]
fn a_token_and_base_url_from_two_sources_name_both() {
    let text = "[profiles.p]\nbase_url = \"https://p.example\"\ntoken = \"t\"\n";
    let o = Overrides {
        profile: Some("p".into()),
        ..Overrides::default()
    };
    let env = env_of(&[("GENDASH_BASE_URL", "https://other.example")]);
    let s = resolve_text(text, &o, &env).expect("resolves");
    assert!(s.token.is_none(), "withheld");
    let Some(ConfigError::ForeignBaseUrl(m)) = s.token_problem else {
        panic!("{:?}", s.token_problem);
    };
    assert_eq!(
        m.token_from,
        TokenLevel::Profile {
            name: "p".into(),
            file: PathBuf::from("/tmp/x/config.toml")
        }
    );
    assert_eq!(m.base_url_from, Outside::Env("GENDASH_BASE_URL"));
    assert_eq!(m.given.as_str(), "https://other.example/");
    assert_eq!(m.configured.as_str(), "https://p.example/");

    let flag = Overrides {
        base_url: Some("not a url".into()),
        ..Overrides::default()
    };
    let e = resolve_text("", &flag, &env_of(&[])).expect_err("bad flag");
    assert!(e.is_usage(), "{e}");
    let env = env_of(&[("GENDASH_BASE_URL", "not a url")]);
    let e = resolve_text("", &Overrides::default(), &env).expect_err("bad variable");
    assert!(!e.is_usage(), "{e}");
}
