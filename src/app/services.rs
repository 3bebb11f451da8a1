//! The services the watch list's tasks belong to: which are configured, what to call them,
//! and which one a task is polled at. An entry remembers the base URL of the service it was
//! added for; entries saved before that (none recorded) belong to the current service.

use std::collections::BTreeMap;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Services {
    /// The service in force, as saved in entries (`service_key` of its base URL).
    pub current: String,
    /// Every configured service (the current one, the top level's and each profile's) with
    /// its name: the profile's, else the host.
    pub names: BTreeMap<String, String>,
    /// Configured services whose client could not be made, with why.
    pub unusable: BTreeMap<String, String>,
}

impl Services {
    /// Only the current service, named by its host.
    pub fn single(current: &str) -> Self {
        let mut names = BTreeMap::new();
        names.insert(current.to_string(), host_label(current));
        Services {
            current: current.to_string(),
            names,
            unusable: BTreeMap::new(),
        }
    }

    /// The service an entry belongs to.
    pub fn of<'a>(&'a self, saved: Option<&'a str>) -> &'a str {
        saved.unwrap_or(&self.current)
    }

    /// Whether tasks of `service` can be polled.
    pub fn usable(&self, service: &str) -> bool {
        (service == self.current || self.names.contains_key(service))
            && !self.unusable.contains_key(service)
    }

    /// What the poller is told: `None` for the current service.
    pub fn route(&self, service: &str) -> Option<String> {
        (service != self.current).then(|| service.to_string())
    }

    /// The name shown for `service`: its profile's, else its host.
    pub fn name(&self, service: &str) -> String {
        self.names
            .get(service)
            .cloned()
            .unwrap_or_else(|| host_label(service))
    }

    /// Why tasks of `service` are not polled, if they are not.
    pub fn why_not(&self, service: &str) -> Option<String> {
        if let Some(e) = self.unusable.get(service) {
            return Some(format!("{service} is configured but unusable: {e}"));
        }
        (!self.usable(service)).then(|| {
            format!(
                "{service} is not a configured service (neither the top level nor a profile has this base_url)"
            )
        })
    }
}

/// The short name of a service: its host and port, else the text as it is.
pub fn host_label(base_url: &str) -> String {
    url::Url::parse(base_url)
        .ok()
        .and_then(|u| {
            u.host_str().map(|h| match u.port() {
                Some(p) => format!("{h}:{p}"),
                None => h.to_string(),
            })
        })
        .unwrap_or_else(|| base_url.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_without_a_service_belong_to_the_current_one() {
        let mut s = Services::single("http://a:1");
        s.names.insert("http://b:2".into(), "staging".into());
        assert_eq!(s.of(None), "http://a:1");
        assert_eq!(s.route(s.of(None)), None);
        assert_eq!(s.route("http://b:2").as_deref(), Some("http://b:2"));
        assert!(s.usable("http://b:2"));
        assert!(!s.usable("http://c:3"));
        assert_eq!(s.name("http://b:2"), "staging");
        assert_eq!(s.name("http://a:1"), "a:1");
        assert_eq!(s.name("http://c:3/api"), "c:3");
        assert!(s.why_not("http://c:3").is_some());
        s.unusable.insert("http://b:2".into(), "no token".into());
        assert!(!s.usable("http://b:2"));
        assert!(
            s.why_not("http://b:2")
                .is_some_and(|w| w.contains("no token"))
        );
    }
}
