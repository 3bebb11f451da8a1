//! The catalogue: loaded from the current service, one request in flight (a newer one replaces
//! it), transient failures reported and retried with backoff until the service answers. The
//! copy last loaded for each filter is kept on disk and shown meanwhile when asked.

use super::writes::Writes;
use crate::api::types::Interner;
use crate::api::{ApiError, Client, Listing};
use crate::cmd::CatalogueRequest;
use crate::msg::Msg;
use crate::store::catalogue_cache::{CatalogueCache, Key};
use rand::SeedableRng;
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// The App's handle on the catalogue loader; dropping it abandons the load in flight.
pub struct Handle {
    client: Client,
    /// The current service as saved (its base URL without the trailing slash).
    service_key: String,
    /// Where the catalogue last loaded for each filter is kept; `None` keeps none.
    cache: Option<CatalogueCache>,
    /// Held while a cached catalogue is written: one writer at a time per process.
    cache_writes: Arc<std::sync::Mutex<()>>,
    msgs: mpsc::Sender<Msg>,
    in_flight: Option<JoinHandle<()>>,
    /// The cached copies being written, held so that a quit waits for them.
    writes: Writes,
}

/// The loader of `client`'s catalogue; it loads when asked (`Handle::fetch`).
pub fn spawn(
    client: Client,
    cache: Option<CatalogueCache>,
    msgs: mpsc::Sender<Msg>,
    writes: Writes,
) -> Handle {
    Handle {
        service_key: crate::store::watchlist::service_key(client.base_url()),
        client,
        cache,
        cache_writes: Arc::default(),
        msgs,
        in_flight: None,
        writes,
    }
}

impl Handle {
    /// Loads the catalogue (`Cmd::FetchCatalogue`); a newer request replaces one still in
    /// flight. With `cached`, the copy cached for these filters is read on a blocking thread
    /// and reported meanwhile; a fresh list is written to the cache on a blocking thread.
    pub fn fetch(&mut self, request: CatalogueRequest) {
        let CatalogueRequest {
            generation,
            lora_type,
            cate,
            cached,
            earlier,
        } = request;
        if let Some(old) = self.in_flight.take() {
            old.abort();
        }
        let key = Key::new(&self.service_key, lora_type, cate.as_deref());
        let mut lookup = None;
        if cached && let Some(cache) = self.cache.clone() {
            let (key, msgs, earlier) = (key.clone(), self.msgs.clone(), earlier.clone());
            lookup = Some(tokio::task::spawn_blocking(move || {
                let cached = cache.load_nearest_sharing(&key, &earlier);
                drop(earlier);
                let _ = msgs.blocking_send(Msg::CachedCatalogue {
                    generation,
                    cached: cached.map(Into::into),
                });
            }));
        }
        let (client, msgs, writes) = (self.client.clone(), self.msgs.clone(), self.writes.clone());
        let cache = self
            .cache
            .clone()
            .map(|c| (c, key, self.cache_writes.clone()));
        self.in_flight = Some(tokio::spawn(async move {
            let mut rng = rand::rngs::StdRng::from_os_rng();
            let mut failures = 0;
            // Shared by the first answer only: a retry after a failure does not hold the
            // earlier list in memory meanwhile.
            let mut earlier = Some(earlier);
            loop {
                let interner = earlier
                    .take()
                    .map_or_else(Interner::default, Interner::sharing);
                let result = client
                    .list_loras_sharing(lora_type, cate.as_deref(), interner)
                    .await;
                let retry = match &result {
                    Err(e) if e.is_retryable() => {
                        failures += 1;
                        Some(crate::api::backoff::retry_delay(
                            failures,
                            e.retry_after(),
                            &mut rng,
                        ))
                    }
                    _ => None,
                };
                if let (Ok(_), Some((cache, key, lock))) = (&result, &cache) {
                    let (cache, key, lock) = (cache.clone(), key.clone(), lock.clone());
                    let msgs = msgs.clone();
                    // Copying and writing a big catalogue is blocking work: never on the UI loop.
                    // The file is written first, so the entries are handed on, neither copied nor
                    // held again as bytes (either added 45-60 MiB to the peak with 100,000
                    // entries); it is synced and put in place after.
                    writes.spawn(move || {
                        let Ok(catalogue) = result else { return };
                        let _one_writer = lock.lock();
                        let now = crate::store::watchlist::unix_now();
                        let staged = cache.stage(&key, &catalogue, now);
                        let _ = msgs.blocking_send(Msg::Catalogue {
                            generation,
                            result: Ok(catalogue.into()),
                        });
                        if let Err(e) = staged.and_then(crate::store::atomic::AtomicFile::commit) {
                            tracing::warn!(
                                "cannot cache the catalogue in {}: {e}",
                                cache.dir().display()
                            );
                        }
                    });
                    return;
                }
                // What the cache holds is told first: a failure then knows whether anything
                // can be shown instead.
                if let Some(read) = lookup.take() {
                    let _ = read.await;
                }
                let result = match result {
                    // Made ready on a blocking thread: the UI loop only swaps it in.
                    Ok(c) => tokio::task::spawn_blocking(move || Listing::from(c))
                        .await
                        .map_err(|e| {
                            ApiError::Invalid(format!("listing the catalogue failed: {e}"))
                        }),
                    Err(e) => Err(e),
                };
                if msgs
                    .send(Msg::Catalogue { generation, result })
                    .await
                    .is_err()
                {
                    return;
                }
                match retry {
                    Some(delay) => tokio::time::sleep(delay).await,
                    None => return,
                }
            }
        }));
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        if let Some(load) = self.in_flight.take() {
            load.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{ClientOptions, LoraEntry};
    use std::time::Duration;

    const WAIT: Duration = Duration::from_secs(20);

    async fn listed(rx: &mut mpsc::Receiver<Msg>, wanted: u64) -> Listing {
        loop {
            match tokio::time::timeout(WAIT, rx.recv()).await {
                Ok(Some(Msg::Catalogue { generation, result })) if generation == wanted => {
                    return result.expect("listed");
                }
                Ok(Some(_)) => {}
                other => panic!("expected the catalogue, got {other:?}"),
            }
        }
    }

    /// A service that answers each of `times` requests with `body`, one connection each.
    async fn answering(body: String, times: usize) -> url::Url {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bound");
        let url = format!("http://{}/", listener.local_addr().expect("addr"));
        tokio::spawn(async move {
            for _ in 0..times {
                let Ok((mut socket, _)) = listener.accept().await else {
                    return;
                };
                let mut request = Vec::new();
                let mut buf = [0; 4096];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(body.as_bytes()).await;
            }
        });
        url::Url::parse(&url).expect("url")
    }

    /// A reload through the loader, and the copy it cached read back, hold one copy of what
    /// they list unchanged: the list shown's own entries.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_reload_and_a_cached_copy_share_the_entries_of_the_list_shown() {
        let data: Vec<serde_json::Value> = (0..200)
            .map(|i| serde_json::json!({"model": format!("m{i}"), "metadata": {"source": format!("https://x.example/{i}"), "n": i}}))
            .collect();
        let client = Client::new(&ClientOptions {
            base_url: answering(serde_json::json!({ "data": data }).to_string(), 4).await,
            token: crate::api::Secret::new("t"),
            request_timeout: Duration::from_secs(10),
            allow_insecure_http: true,
        })
        .expect("client");
        let dir = tempfile::tempdir().expect("dir");
        let cache = CatalogueCache::new(dir.path().to_path_buf());
        let (tx, mut rx) = mpsc::channel(8);
        let writes = Writes::default();
        let mut loader = spawn(client, Some(cache), tx, writes.clone());
        let request = |generation, earlier| CatalogueRequest {
            generation,
            lora_type: None,
            cate: None,
            cached: false,
            earlier,
        };
        loader.fetch(request(1, Arc::new([])));
        let first = listed(&mut rx, 1).await;
        assert_eq!(first.entries.len(), 200);
        loader.fetch(request(2, first.entries.clone()));
        let again = listed(&mut rx, 2).await;
        assert_eq!(again.entries, first.entries);
        let shared = |a: &[LoraEntry], b: &[LoraEntry]| a.iter().zip(b).all(|(x, y)| x.shares(y));
        assert!(shared(&again.entries, &first.entries));
        // Without the list shown, the same answer is decoded into entries of its own.
        loader.fetch(request(3, Arc::new([])));
        let own = listed(&mut rx, 3).await;
        assert_eq!(own.entries, first.entries);
        assert!(
            !own.entries
                .iter()
                .zip(first.entries.iter())
                .any(|(x, y)| x.shares(y))
        );
        // The copy cached meanwhile, read back, is the list shown's entries too.
        writes.finish(WAIT).await;
        loader.fetch(CatalogueRequest {
            cached: true,
            ..request(4, first.entries.clone())
        });
        let cached = loop {
            match tokio::time::timeout(WAIT, rx.recv()).await {
                Ok(Some(Msg::CachedCatalogue {
                    generation: 4,
                    cached,
                })) => break cached,
                Ok(Some(_)) => {}
                other => panic!("expected the cached copy, got {other:?}"),
            }
        };
        let cached = cached.expect("cached").catalogue.entries;
        assert!(cached.len() == 200 && shared(&cached, &first.entries));
    }
}
