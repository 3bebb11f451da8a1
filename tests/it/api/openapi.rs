//! `GET /openapi.json`: the reference service's own description of its contract, checked
//! against what the service really answers over loopback.

use crate::common::{TOKEN, client, service, service_with};
use gendash::api::Secret;
use gendash::server::{Options, Running};
use serde_json::Value;
use std::collections::BTreeSet;

/// A plain HTTP client (gendash's client installs the TLS provider a bare reqwest client needs).
fn http(svc: &Running) -> reqwest::Client {
    let _ = client(&svc.base_url());
    crate::common::raw_http()
}

async fn document(svc: &Running, path: &str) -> Value {
    let r = http(svc)
        .get(svc.base_url().join(path).unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{path} without a token");
    assert_eq!(r.headers()["content-type"], "application/json");
    r.json().await.unwrap()
}

/// The names in `schema`'s `required` list (following one `$ref`).
fn required(doc: &Value, schema: &str) -> BTreeSet<String> {
    doc["components"]["schemas"][schema]["required"]
        .as_array()
        .unwrap_or_else(|| panic!("{schema} lists required fields"))
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

#[tokio::test]
async fn is_served_without_a_token_as_openapi_3_1_with_the_three_post_operations() {
    let svc = service().await;
    let doc = document(&svc, "openapi.json").await;
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    assert_eq!(doc["servers"][0]["url"], "/");
    let posts: BTreeSet<&str> = doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, item)| item.get("post").is_some())
        .map(|(path, _)| path.as_str())
        .collect();
    assert_eq!(
        posts,
        BTreeSet::from([
            "/lora/",
            "/ai/image_generation/{task_id}",
            "/ai/video_generation/{task_id}"
        ])
    );
    // Each of them requires the bearer token (the document-wide default), none opts out.
    assert_eq!(
        doc["components"]["securitySchemes"]["bearer"]["scheme"],
        "bearer"
    );
    assert_eq!(doc["security"][0]["bearer"], Value::Array(vec![]));
    for path in &posts {
        assert!(
            doc["paths"][path]["post"].get("security").is_none(),
            "{path}"
        );
    }
    let lora_type = &doc["paths"]["/lora/"]["post"]["parameters"][0];
    assert_eq!(lora_type["name"], "type");
    assert_eq!(
        lora_type["schema"]["enum"],
        serde_json::json!(["sd", "sdxl"])
    );
}

#[tokio::test]
async fn each_documented_error_answer_is_what_the_service_answers() {
    let svc = service().await;
    let doc = document(&svc, "openapi.json").await;
    let http = http(&svc);
    let url = |p: &str| svc.base_url().join(p).unwrap();
    let lora = &doc["paths"]["/lora/"]["post"]["responses"];
    let failure = required(&doc, "Failure");

    // No token: 401, `WWW-Authenticate: Bearer`, the failure envelope.
    assert_eq!(lora["401"]["$ref"], "#/components/responses/Unauthorized");
    let unauthorised = &doc["components"]["responses"]["Unauthorized"];
    for path in ["lora/", "ai/image_generation/demo-image-done"] {
        let r = http.post(url(path)).send().await.unwrap();
        assert_eq!(r.status(), 401, "{path}");
        assert_eq!(
            r.headers()["www-authenticate"],
            unauthorised["headers"]["WWW-Authenticate"]["schema"]["const"]
                .as_str()
                .unwrap()
        );
        let body: Value = r.json().await.unwrap();
        assert!(failure.is_subset(&keys(&body)), "{body}");
        assert_eq!(body["status"], "failed");
        assert!(!body["errors"].as_array().unwrap().is_empty());
        assert!(!body["error_description"].as_str().unwrap().is_empty());
    }

    // Another method: 405, with `Allow`.
    assert_eq!(
        lora["405"]["$ref"],
        "#/components/responses/MethodNotAllowed"
    );
    let r = http
        .get(url("lora/"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 405);
    assert!(r.headers()["allow"].to_str().unwrap().contains("POST"));

    // A type outside the enum: 400 with the failure envelope.
    assert_eq!(
        lora["400"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/Failure"
    );
    let r = http
        .post(url("lora/?type=sd15"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let body: Value = r.json().await.unwrap();
    assert!(failure.is_subset(&keys(&body)), "{body}");
    assert_eq!(body["status"], "failed");

    // An unknown task: 200 with the lookup failure, both halves of its `allOf` present.
    let r = http
        .post(url("ai/video_generation/no-such-task"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    let lookup = &doc["components"]["schemas"]["LookupFailure"]["allOf"][1];
    let mut expected = failure.clone();
    expected.extend(
        lookup["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string()),
    );
    assert_eq!(keys(&body), expected);
    assert_eq!(body["data"]["is_success"], false);
}

#[tokio::test]
async fn the_envelopes_required_fields_are_a_real_success_responses_keys() {
    let svc = service().await;
    let doc = document(&svc, "openapi.json").await;
    let http = http(&svc);
    for (kind, prefix) in [("image", "Image"), ("video", "Video")] {
        let r = http
            .post(
                svc.base_url()
                    .join(&format!("ai/{kind}_generation/demo-{kind}-done"))
                    .unwrap(),
            )
            .bearer_auth(TOKEN)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let body: Value = r.json().await.unwrap();
        assert_eq!(
            keys(&body),
            required(&doc, &format!("{prefix}ResultEnvelope"))
        );
        assert_eq!(
            keys(&body["data"]["data"]),
            required(&doc, &format!("{prefix}Result"))
        );
        assert_eq!(body["status"], "success");
    }
    let r = http
        .post(svc.base_url().join("lora/?type=sdxl").unwrap())
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    let body: Value = r.json().await.unwrap();
    assert_eq!(keys(&body), required(&doc, "LoraList"));
    assert_eq!(
        keys(&body["data"][0]),
        required(&doc, "LoraEntry"),
        "{}",
        body["data"][0]
    );
}

#[tokio::test]
async fn under_a_prefix_the_document_names_it_as_its_server() {
    let mut options = Options::new(Secret::new(TOKEN));
    options.prefix = Some("/api/v1/".into());
    let svc = service_with(options).await;
    let doc = document(&svc, "api/v1/openapi.json").await;
    assert_eq!(doc["servers"][0]["url"], "/api/v1");
    // The document's paths, under that server, are the service's.
    let r = http(&svc)
        .post(svc.base_url().join("api/v1/lora/").unwrap())
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let r = http(&svc)
        .get(svc.base_url().join("openapi.json").unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404, "nothing outside the prefix");
}
