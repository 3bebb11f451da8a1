//! Small conformance points of the reference service found by an outside API tester, asked
//! over loopback exactly as they were.

use crate::common::{TOKEN, client, service};

#[tokio::test]
async fn type_takes_sd_sdxl_or_nothing() {
    let svc = service().await;
    // Building gendash's client installs the TLS crypto provider a bare reqwest client needs.
    let _ = client(&svc.base_url());
    let http = crate::common::raw_http();
    let ask = |query: &str| {
        http.post(svc.base_url().join(&format!("lora/{query}")).unwrap())
            .header("authorization", format!("Bearer {TOKEN}"))
            .send()
    };
    let all = ask("").await.unwrap();
    assert_eq!(all.status(), 200);
    let all: serde_json::Value = all.json().await.unwrap();
    let total = all["data"].as_array().unwrap().len();
    for q in ["?type=sd", "?type=sdxl"] {
        let r = ask(q).await.unwrap();
        assert_eq!(r.status(), 200, "{q}");
        let v: serde_json::Value = r.json().await.unwrap();
        let n = v["data"].as_array().unwrap().len();
        assert!(n > 0 && n < total, "{q} filters: {n} of {total}");
    }
    // An empty type is neither value nor an omitted parameter: 400, like any other value.
    for q in ["?type=", "?type=SD", "?type=sd1", "?type=&cate=anime"] {
        let r = ask(q).await.unwrap();
        assert_eq!(r.status(), 400, "{q}");
        let v: serde_json::Value = r.json().await.unwrap();
        assert_eq!(v["error_description"], "type must be sd or sdxl", "{q}");
    }
}
