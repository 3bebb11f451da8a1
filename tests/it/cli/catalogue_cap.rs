//! `max_catalogue_mib`: the catalogue's body cap is a setting. A catalogue just over it is
//! refused with an error that names the setting; the default admits it. Over loopback, against
//! the reference service serving a catalogue of a chosen size.

use super::commands::{run_in, split};
use crate::common::{self, TOKEN, client, service_with};
use gendash::api::client::{CATALOGUE_CAP, CatalogueCap};
use gendash::api::{ApiError, Secret};
use gendash::server::Running;
use gendash::server::{Options, served_catalogue};
use gendash::store::config::CATALOGUE_CAP_KEY;

const MIB: u64 = 1024 * 1024;

/// The reference service serving `n` entries: the embedded ones, repeated with numbered names.
async fn serving(n: usize) -> Running {
    let embedded = served_catalogue::embedded();
    let catalogue = (0..n)
        .map(|i| {
            let mut e = embedded[i % embedded.len()].clone();
            e.model = format!("{}_{}", e.model, i / embedded.len());
            e
        })
        .collect();
    service_with(Options {
        catalogue,
        ..Options::new(Secret::new(TOKEN))
    })
    .await
}

/// The catalogue's size on the wire, read without gendash's client.
async fn served_bytes(svc: &Running) -> u64 {
    let body = common::raw_http()
        .post(svc.base_url().join("lora/").unwrap())
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    body.len() as u64
}

#[tokio::test]
async fn a_cap_one_byte_under_the_catalogue_refuses_it_and_names_the_setting() {
    let svc = serving(1000).await;
    let size = served_bytes(&svc).await;
    let capped = |bytes| {
        client(&svc.base_url()).with_catalogue_cap(CatalogueCap {
            bytes,
            setting: Some(CATALOGUE_CAP_KEY),
        })
    };
    let e = capped(size - 1).list_loras(None, None).await.unwrap_err();
    assert_eq!(
        e,
        ApiError::TooLarge {
            limit: size - 1,
            setting: Some("max_catalogue_mib"),
        }
    );
    assert!(
        e.to_string()
            .ends_with("; raise the `max_catalogue_mib` setting to accept more"),
        "{e}"
    );
    let exact = capped(size).list_loras(None, None).await.unwrap();
    assert_eq!(exact.entries.len(), 1000);
    let default = client(&svc.base_url())
        .list_loras(None, None)
        .await
        .unwrap();
    assert_eq!(default.entries.len(), 1000);
}

#[tokio::test]
async fn models_over_max_catalogue_mib_is_refused_naming_it_and_the_default_admits_it() {
    // Just over 1 MiB on the wire (about 360 bytes an entry).
    let svc = serving(3000).await;
    let size = served_bytes(&svc).await;
    assert!((MIB + 1..2 * MIB).contains(&size), "{size}");
    let home = tempfile::tempdir().unwrap();
    let base = svc.base_url();

    common::write_config(home.path(), "max_catalogue_mib = 1\n");
    let (code, out, err) = split(&run_in(home.path(), &base, TOKEN, &["models", "--json"]).await);
    assert_ne!(code, 0, "{out}");
    assert!(
        err.contains(&format!(
            "response too large: more than {MIB} bytes; raise the `max_catalogue_mib` setting"
        )),
        "{err}"
    );

    // The default (no config) admits it, as does a cap of 2 MiB.
    for config in ["", "max_catalogue_mib = 2\n"] {
        common::write_config(home.path(), config);
        let (code, out, err) =
            split(&run_in(home.path(), &base, TOKEN, &["models", "--json"]).await);
        assert_eq!(code, 0, "{config}: {err}");
        let listed: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
        assert_eq!(listed.len(), 3000, "{config}");
    }
}

#[test]
fn the_default_cap_admits_a_million_entries_of_the_reference_catalogue() {
    // Each entry as the reference service serves it, plus its comma: a million of the largest
    // of them (with a seven-digit number in the name) fit under the default cap.
    let largest = served_catalogue::embedded()
        .iter()
        .map(|e| served_catalogue::wire(e).len() as u64 + "_999999".len() as u64 + 1)
        .max()
        .unwrap();
    assert!(
        1_000_000 * largest + 64 < CATALOGUE_CAP,
        "{largest} bytes an entry: a million take {} MiB",
        1_000_000 * largest / MIB
    );
}
