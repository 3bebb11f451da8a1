//! `gendash models`: plain and JSON output, the filter language and what it cannot use, every date form, the offline cache and a wrong prefix.

use super::*;

#[tokio::test]
async fn models_plain_filters_and_json() {
    let svc = service().await;
    let (code, out, err) = run(&svc.base_url(), &["models"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("MODEL "), "{out}");
    let n = gendash::server::served_catalogue::embedded().len();
    assert_eq!(out.lines().count(), n + 1, "a header and one row per model");
    assert_eq!(
        err.lines().collect::<Vec<_>>(),
        [format!("{n} of {n} models")],
        "stderr is the count alone"
    );

    let (code, out, _) = run(
        &svc.base_url(),
        &["models", "--type", "sdxl", "--cate", "style", "--json"],
    )
    .await;
    assert_eq!(code, 0);
    let items = json_lines(&out).remove(0);
    let items = items.as_array().unwrap();
    assert!(!items.is_empty());
    for item in items {
        assert_eq!(keys(item), ["metadata", "model"]);
        assert_eq!(item["metadata"]["type"], "sdxl");
        assert_eq!(item["metadata"]["category"], "style");
    }

    let (code, out, _) = run(
        &svc.base_url(),
        &["models", "--filter", "watercolor", "--json"],
    )
    .await;
    assert_eq!(code, 0);
    let items = json_lines(&out).remove(0);
    let first = items[0]["model"].as_str().unwrap();
    assert!(
        first.starts_with("watercolor"),
        "best match first, got {first}"
    );

    let (code, _, err) = run(&svc.base_url(), &["models", "--type", "sd3"]).await;
    assert_eq!(code, 2, "{err}");
}

/// `--filter` takes the dashboard's language: operators and metadata fields locally, `type:`
/// and `cate:` as the request's filters, and a bad `type:` as a usage error.
#[tokio::test]
async fn models_filter_language() {
    let svc = service().await;
    let base = svc.base_url();
    let models =
        |out: &str| -> Vec<Value> { json_lines(out).remove(0).as_array().unwrap().clone() };
    let (code, out, err) = run(
        &base,
        &[
            "models",
            "--filter",
            "type:sdxl cate:style !license:apache ^",
            "--json",
        ],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    let items = models(&out);
    assert!(!items.is_empty());
    for item in &items {
        assert_eq!(item["metadata"]["type"], "sdxl");
        assert_eq!(item["metadata"]["category"], "style");
        let license = item["metadata"]["license"].as_str().unwrap().to_lowercase();
        assert!(!license.contains("apache"), "{license}");
    }
    let (code, out, _) = run(
        &base,
        &[
            "models",
            "--filter",
            "base:\"SD 1.5\" | base:pony xl$",
            "--json",
        ],
    )
    .await;
    assert_eq!(code, 0);
    let items = models(&out);
    assert!(!items.is_empty());
    for item in &items {
        let base_model = item["metadata"]["base_model"].as_str().unwrap();
        assert!(["SD 1.5", "Pony"].contains(&base_model), "{base_model}");
        assert!(item["model"].as_str().unwrap().ends_with("xl"));
    }
    let (code, out, err) = run(&base, &["models", "--filter", "nokey:x", "--json"]).await;
    assert_eq!(
        (code, out.as_str(), err.trim()),
        (2, "", "gendash: error: --filter: nokey: no such field"),
        "an unknown key is named, not a silent empty list"
    );
    let (code, _, err) = run(&base, &["models", "--filter", "type:xl"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("type:xl is not a type (sd, sdxl or all)"),
        "{err}"
    );
}

/// What `models --filter` cannot use is named on stderr with exit 2 and nothing on stdout: a
/// comparison with no number, a field no model has, the browser's `is:` terms, `!type:`.
#[tokio::test]
async fn models_filter_names_what_it_cannot_use() {
    let svc = service().await;
    let base = svc.base_url();
    for (filter, said) in [
        (
            "rating:>abc",
            "gendash: error: --filter: rating:>abc: not a number or a date",
        ),
        (
            "nosuchfield:x",
            "gendash: error: --filter: nosuchfield: no such field",
        ),
        (
            "pixel rating:>4 nosuchfield:>2",
            "gendash: error: --filter: nosuchfield: no such field",
        ),
        (
            "is:foo",
            "gendash: error: --filter: is:foo is not new, changed or fav",
        ),
        (
            "is:new",
            "gendash: error: --filter: is:new is the model browser's marks and favourites; gendash models has none; --diff lists what is new or changed",
        ),
        (
            "!type:sd",
            "gendash: error: --filter: !type:sd cannot be negated",
        ),
    ] {
        let (code, out, err) = run(&base, &["models", "--filter", filter, "--json"]).await;
        assert_eq!((code, out.as_str(), err.trim()), (2, "", said), "{filter}");
    }
}

/// Every date form the docs list works in `models --filter`, quoted, escaped or with a `T`.
#[tokio::test]
async fn models_filter_takes_every_date_form() {
    let svc = service().await;
    let base = svc.base_url();
    let updated = |filter: &'static str| {
        let base = base.clone();
        async move {
            let (code, out, err) = run(&base, &["models", "--filter", filter, "--json"]).await;
            assert_eq!(code, 0, "{filter}: {err}");
            let items = json_lines(&out).remove(0);
            let mut dates: Vec<String> = items
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["metadata"]["updated"].as_str().unwrap().to_string())
                .collect();
            dates.sort();
            dates
        }
    };
    let after_june = updated(r#"updated:>"2026-06-01""#).await;
    assert!(!after_june.is_empty() && after_june.iter().all(|d| d.as_str() > "2026-06-01"));
    assert!(after_june.len() < gendash::server::served_catalogue::embedded().len());
    for same in [
        "updated:>2026-06-01",
        r#"updated:>"2026-06-01 23:59""#,
        r"updated:>2026-06-01\ 23:59",
        "updated:>2026-06-01T23:59",
        "updated:>=2026-06-02T00:00:00",
    ] {
        assert_eq!(updated(same).await, after_june, "{same}");
    }
    assert!(
        updated(r#"updated:>"2026-06-01" | updated:<"2026-06-01""#)
            .await
            .len()
            > after_june.len()
    );
}

/// `models --offline` reads what an earlier `models` cached for the same service, type and
/// category, and says how old it is; without a cache it fails naming what it looked for.
#[tokio::test]
async fn models_offline_reads_the_cache() {
    let home = tempfile::tempdir().unwrap();
    let svc = service().await;
    let base = svc.base_url();
    let args = ["models", "--type", "sdxl", "--cate", "style", "--json"];
    let offline = [&args[..], &["--offline"]].concat();

    let (code, _, err) = split(&run_in(home.path(), &base, TOKEN, &offline).await);
    assert_eq!(code, 4, "not found: {err}");
    let service = base.as_str().trim_end_matches('/');
    assert!(
        err.contains(service) && err.contains("type sdxl") && err.contains("category style"),
        "{err}"
    );

    let (code, online, err) = split(&run_in(home.path(), &base, TOKEN, &args).await);
    assert_eq!(code, 0, "{err}");
    drop(svc);
    let (code, out, err) = split(&run_in(home.path(), &base, TOKEN, &offline).await);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, online, "the same entries, as served");
    assert!(err.contains("cached just now"), "{err}");

    // Another category has its own entry in the cache: none.
    let (code, _, err) = split(
        &run_in(
            home.path(),
            &base,
            TOKEN,
            &["models", "--type", "sdxl", "--offline"],
        )
        .await,
    );
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("category any"), "{err}");
}

/// Against a service whose routes live under a prefix the base URL lacks, every answer is a
/// 404: `models` says the base URL's path looks wrong and shows what was asked, and `status`
/// does not call the task unknown. With the prefix, both work.
#[tokio::test]
async fn models_against_a_wrong_prefix_says_the_path_looks_wrong() {
    let svc = common::service_with(gendash::server::Options {
        prefix: Some("/api/v1".into()),
        ..gendash::server::Options::new(gendash::api::Secret::new(TOKEN))
    })
    .await;
    let wrong = svc.base_url();
    let (code, out, err) = run(&wrong, &["models", "--type", "sd"]).await;
    assert_eq!(code, 4, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains(&format!(
            "the base URL's path looks wrong: POST {wrong}lora/ → 404: is the path prefix right?"
        )),
        "{err}"
    );
    let (code, _, err) = run(&wrong, &["status", "demo-image-done"]).await;
    assert_eq!(code, 4, "{err}");
    assert!(
        err.contains(&format!(
            "POST {wrong}ai/image_generation/demo-image-done → 404: is the path prefix right?"
        )) && !err.contains("lookup failed"),
        "{err}"
    );
    let right = wrong.join("api/v1/").unwrap();
    let (code, out, err) = run(&right, &["models", "--type", "sd"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.lines().count() > 50, "{out}");
}

/// `models --offline` without a copy for its type and category narrows a broader one here,
/// and says so; what it prints is what the service lists for them.
#[tokio::test]
async fn models_offline_narrows_a_broader_copy() {
    let home = tempfile::tempdir().unwrap();
    let svc = service().await;
    let base = svc.base_url();
    let (code, _, err) = split(&run_in(home.path(), &base, TOKEN, &["models", "--json"]).await);
    assert_eq!(code, 0, "{err}");
    let args = ["models", "--type", "sdxl", "--cate", "style", "--json"];
    let (code, online, _) = split(&run_in(home.path(), &base, TOKEN, &args).await);
    assert_eq!(code, 0);
    std::fs::remove_dir_all(home.path().join(".cache/gendash/catalogues")).unwrap();
    let (code, _, _) = split(&run_in(home.path(), &base, TOKEN, &["models", "--json"]).await);
    assert_eq!(code, 0);
    drop(svc);
    let offline = [&args[..], &["--offline"]].concat();
    let (code, out, err) = split(&run_in(home.path(), &base, TOKEN, &offline).await);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("for broader filters, narrowed here"), "{err}");
    assert_eq!(out, online, "what the service lists for sdxl and style");
}
