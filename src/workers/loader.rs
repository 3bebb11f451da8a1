//! The catalogue: loaded from the current service, one request in flight (a newer one replaces
//! it), transient failures reported and retried with backoff until the service answers. The
//! copy last loaded for each filter is kept on disk and shown meanwhile when asked.

use super::writes::Writes;
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
        } = request;
        if let Some(old) = self.in_flight.take() {
            old.abort();
        }
        let key = Key::new(&self.service_key, lora_type, cate.as_deref());
        let mut lookup = None;
        if cached && let Some(cache) = self.cache.clone() {
            let (key, msgs) = (key.clone(), self.msgs.clone());
            lookup = Some(tokio::task::spawn_blocking(move || {
                let _ = msgs.blocking_send(Msg::CachedCatalogue {
                    generation,
                    cached: cache.load_nearest(&key).map(Into::into),
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
            loop {
                let result = client.list_loras(lora_type, cate.as_deref()).await;
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
