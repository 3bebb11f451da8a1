//! Which services this dashboard can poll: the current one and the other configured ones,
//! less those whose client could not be made. A task of any other service goes nowhere, so it
//! does not keep the watch list's run going (the App's rows say `no service` for the same).
//! Built at set-up from the settings' services; the router adds the unusable ones it finds.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, PoisonError};

#[derive(Debug, Clone)]
pub struct Pollable {
    /// The service in force (`service_key` of its base URL): an entry with no service
    /// recorded belongs to it.
    current: String,
    /// Every other configured service, shared by the clones (a reloaded config changes it).
    configured: Arc<Mutex<BTreeSet<String>>>,
    /// Configured services whose client could not be made, shared with the router.
    unusable: Arc<Mutex<BTreeSet<String>>>,
}

impl Pollable {
    pub fn new(current: &str, configured: impl IntoIterator<Item = String>) -> Self {
        Pollable {
            current: current.to_string(),
            configured: Arc::new(Mutex::new(configured.into_iter().collect())),
            unusable: Arc::default(),
        }
    }

    /// Whether tasks of `service` (as an entry saves it) can be polled.
    pub fn polls(&self, service: Option<&str>) -> bool {
        let service = service.unwrap_or(&self.current);
        (service == self.current
            || self
                .configured
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .contains(service))
            && !self
                .unusable
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .contains(service)
    }

    /// The configured services as the config read again names them (the current one
    /// stays), for every clone.
    pub fn configure(&self, configured: impl IntoIterator<Item = String>) {
        *self
            .configured
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = configured.into_iter().collect();
    }

    /// `service`'s client could not be made: its tasks are not polled from now on.
    pub fn unusable(&self, service: &str) {
        self.unusable
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(service.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_current_and_configured_services_are_polled_until_found_unusable() {
        let p = Pollable::new("http://a:1", ["http://b:2".to_string()]);
        assert!(p.polls(None));
        assert!(p.polls(Some("http://a:1")));
        assert!(p.polls(Some("http://b:2")));
        assert!(!p.polls(Some("http://c:3")));
        p.clone().unusable("http://b:2");
        assert!(
            !p.polls(Some("http://b:2")),
            "the router's clone tells the saver's"
        );
    }

    #[test]
    fn a_reloaded_config_changes_what_every_clone_polls() {
        let p = Pollable::new("http://a:1", ["http://b:2".to_string()]);
        let saver = p.clone();
        p.configure(["http://c:3".to_string()]);
        assert!(saver.polls(Some("http://c:3")), "a profile added");
        assert!(!saver.polls(Some("http://b:2")), "a profile gone");
        assert!(saver.polls(None), "the current one stays");
    }
}
