//! The demo catalogue's sample pictures over real loopback HTTP: some entries name one in
//! `metadata.preview` (relative to the service), and the service serves each, under its
//! prefix too, without the token, as a real PNG.

use crate::common::{TOKEN, client, raw_http, service_with};
use gendash::api::Secret;
use gendash::app::browser::entry_picture::url_of;
use gendash::server::Options;

#[tokio::test]
async fn demo_entries_name_pictures_the_service_serves() {
    for prefix in [None, Some("/api/v1".to_string())] {
        let svc = service_with(Options {
            prefix: prefix.clone(),
            ..Options::new(Secret::new(TOKEN))
        })
        .await;
        // Under a prefix, the base URL as a user writes it: no trailing slash.
        let base = match &prefix {
            Some(_) => svc.base_url().join("api/v1").unwrap(),
            None => svc.base_url(),
        };
        let all = client(&base).list_loras(None, None).await.unwrap();
        let urls: Vec<String> = all
            .entries
            .iter()
            .filter_map(|e| url_of(e, base.as_str()))
            .collect();
        // Every eighth entry, from the fifth: some, not all.
        assert_eq!(
            urls.len(),
            (all.entries.len() - 4).div_ceil(8),
            "{prefix:?}"
        );
        let mut seen = std::collections::BTreeSet::new();
        for url in &urls {
            assert!(url.starts_with(base.as_str()), "{url} under {base}");
            assert!(url.contains("/samples/"), "{url}");
            if !seen.insert(url.clone()) {
                continue;
            }
            let r = raw_http().get(url).send().await.unwrap();
            assert_eq!(r.status(), 200, "{url}");
            assert_eq!(r.headers()["content-type"], "image/png");
            let bytes = r.bytes().await.unwrap();
            assert!(bytes.len() < 1024, "{url}: {} bytes", bytes.len());
            let img = image::load_from_memory(&bytes).expect("a real picture");
            assert_eq!(img.width(), 48);
        }
        assert_eq!(seen.len(), 4, "each sample named");
        let missing = raw_http()
            .get(format!(
                "{}/samples/9.png",
                base.as_str().trim_end_matches('/')
            ))
            .send()
            .await
            .unwrap();
        assert_eq!(missing.status(), 404);
    }
}
