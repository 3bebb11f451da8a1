//! Which service each task is asked of. Every poll and download command passes through one
//! router task, in order, which hands the poller (or the downloader) the client of the task's
//! own service: the current one, or another configured one made on first use. A token is
//! never sent to a service it was not configured for.

use super::downloads;
use crate::api::Client;
use crate::api::download::Downloader;
use crate::cmd::{DownloadJob, PollCmd};
use crate::msg::Msg;
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Makes the client of a configured service other than the current one, from its base URL
/// as saved in the watch list; the error says why it cannot (no such profile, no token).
/// It may run a token command, so it is called off the async threads.
pub type Resolve = Arc<dyn Fn(&str) -> Result<Client, Unreachable> + Send + Sync>;

/// Why a task's service cannot be asked; told to the App once per service.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Unreachable {
    /// The dashboard knows only the current service (the demo).
    #[error("not a configured service")]
    NotConfigured,
    #[error("neither the top level nor a profile has the base_url {0}")]
    NoOwner(String),
    /// The settings or the client of the level that owns it (`the top level`,
    /// ``profile `w` ``) could not be made: that level's own error, in its words.
    #[error("{whose}: {reason}")]
    Owner { whose: String, reason: String },
    #[error("cannot make its client: {0}")]
    Worker(String),
    /// Its downloader could not be made: the client's error, in its words.
    #[error("{0}")]
    Downloader(String),
}

/// A command that needs the task's service.
#[derive(Debug)]
pub enum Routed {
    Poll(PollCmd<Option<String>>),
    Download(DownloadJob),
}

/// What the router hands on: a poll command with its client, or a download with its
/// downloader.
pub struct Router {
    pub current: Client,
    pub current_downloader: Downloader,
    pub resolve: Option<Resolve>,
    /// Told of each service found unusable, for the saver's rule of a run's end.
    pub pollable: super::pollable::Pollable,
    /// Each task's client is shared, not copied: 10,000 tasks held 10,000 copies of the
    /// client (its base URL and token) in the poller.
    pub polls: mpsc::Sender<PollCmd<Arc<Client>>>,
    pub msgs: mpsc::Sender<Msg>,
}

/// The App's handle on the router. Its queue is unbounded: the App may not wait, and must not
/// drop a command (a watch list of 10,000 tasks sends 10,000 at start); what it holds is
/// bounded by the watch list and the user's keys. Dropping the handle stops the router.
pub struct Handle {
    cmds: mpsc::UnboundedSender<Routed>,
    task: JoinHandle<()>,
}

/// Routes with `router`, handing each download to `downloads`.
pub fn spawn(router: Router, downloads: downloads::Handle) -> Handle {
    let (cmds, queue) = mpsc::unbounded_channel();
    let task = tokio::spawn(router.run(queue, move |dl, job| downloads.start(dl, job)));
    Handle { cmds, task }
}

impl Handle {
    /// A poll command (`Cmd::Watch`, `Unwatch`, `PollNow`, `Prefer`), for the task's service.
    pub fn poll(&self, cmd: PollCmd<Option<String>>) {
        // Fails only when the router is gone (the App is closing).
        let _ = self.cmds.send(Routed::Poll(cmd));
    }

    /// A download (`Cmd::Download`), with its service's downloader.
    pub fn download(&self, job: DownloadJob) {
        let _ = self.cmds.send(Routed::Download(job));
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Router {
    /// Routes until the command channel closes; `download` starts a download.
    pub async fn run(
        self,
        mut cmds: mpsc::UnboundedReceiver<Routed>,
        download: impl Fn(Downloader, DownloadJob),
    ) {
        let mut known: HashMap<String, Result<(Arc<Client>, Downloader), Unreachable>> =
            HashMap::new();
        let current = Arc::new(self.current.clone());
        while let Some(cmd) = cmds.recv().await {
            match cmd {
                Routed::Poll(PollCmd::Watch(key, service)) => {
                    let client = match service {
                        None => Some(Arc::clone(&current)),
                        Some(s) => self.reach(&mut known, s).await.map(|(c, _)| c),
                    };
                    if let Some(client) = client
                        && self.polls.send(PollCmd::Watch(key, client)).await.is_err()
                    {
                        return;
                    }
                }
                Routed::Poll(PollCmd::Unwatch(k)) => self.forward(PollCmd::Unwatch(k)).await,
                Routed::Poll(PollCmd::PollNow(k)) => self.forward(PollCmd::PollNow(k)).await,
                Routed::Poll(PollCmd::Prefer(ks)) => self.forward(PollCmd::Prefer(ks)).await,
                Routed::Poll(PollCmd::Settings(s)) => self.forward(PollCmd::Settings(s)).await,
                Routed::Download(job) => {
                    let dl = match job.service.clone() {
                        None => Some(self.current_downloader.clone()),
                        Some(s) => self.reach(&mut known, s).await.map(|(_, d)| d),
                    };
                    if let Some(dl) = dl {
                        download(dl, job);
                    }
                }
            }
        }
    }

    async fn forward(&self, cmd: PollCmd<Arc<Client>>) {
        let _ = self.polls.send(cmd).await;
    }

    /// The client and downloader of `service`, made once; a service that cannot be reached
    /// is reported to the App the first time.
    async fn reach(
        &self,
        known: &mut HashMap<String, Result<(Arc<Client>, Downloader), Unreachable>>,
        service: String,
    ) -> Option<(Arc<Client>, Downloader)> {
        if let Some(k) = known.get(&service) {
            return k.as_ref().ok().cloned();
        }
        let made = match &self.resolve {
            None => Err(Unreachable::NotConfigured),
            Some(resolve) => {
                let (resolve, s) = (resolve.clone(), service.clone());
                tokio::task::spawn_blocking(move || resolve(&s))
                    .await
                    .unwrap_or_else(|e| Err(Unreachable::Worker(e.to_string())))
                    .and_then(|c| {
                        let dl = Downloader::for_service(&c)
                            .map_err(|e| Unreachable::Downloader(e.to_string()))?;
                        Ok((Arc::new(c), dl))
                    })
            }
        };
        if let Err(error) = &made {
            self.pollable.unusable(&service);
            let _ = self
                .msgs
                .send(Msg::ServiceUnusable {
                    service: service.clone(),
                    error: error.to_string(),
                })
                .await;
        }
        let reached = made.as_ref().ok().cloned();
        known.insert(service, made);
        reached
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::TaskKind;
    use crate::cmd::TaskKey;

    /// A watch list of 10,000 tasks sends 10,000 watch commands at once, before the router
    /// runs: every one reaches the poller, however small its queue, with its service's one
    /// client.
    #[tokio::test]
    async fn every_command_sent_at_once_reaches_the_poller() {
        let client = crate::workers::closed_port_client();
        let (polls, mut poll_rx) = mpsc::channel(16);
        let (msgs, _msg_rx) = mpsc::channel(16);
        let router = Router {
            current_downloader: Downloader::for_service(&client).expect("downloader"),
            current: client,
            resolve: None,
            pollable: crate::workers::pollable::Pollable::new("http://127.0.0.1:9", []),
            polls,
            msgs,
        };
        let (tx, rx) = mpsc::unbounded_channel();
        for i in 0..10_000 {
            let key = TaskKey::new(TaskKind::Image, format!("t-{i}"));
            tx.send(Routed::Poll(PollCmd::Watch(key, None)))
                .expect("the router's queue takes every command");
        }
        drop(tx);
        let routing = tokio::spawn(router.run(rx, |_, _| {}));
        let mut seen = 0;
        let mut first: Option<Arc<Client>> = None;
        while let Some(cmd) = poll_rx.recv().await {
            let PollCmd::Watch(_, client) = cmd else {
                panic!("a watch command became another");
            };
            // One client for the service, shared by its tasks, not a copy each.
            let first = first.get_or_insert_with(|| Arc::clone(&client));
            assert!(
                Arc::ptr_eq(first, &client),
                "task {seen} got a copy of the client"
            );
            seen += 1;
        }
        routing.await.expect("the router ends with its queue");
        assert_eq!(seen, 10_000);
    }

    /// A configured service whose client cannot be made is told to the App and to the
    /// saver's `Pollable`: its tasks no longer keep a run going.
    #[tokio::test]
    async fn a_service_found_unusable_is_not_polled_from_then_on() {
        let client = crate::workers::closed_port_client();
        let pollable =
            crate::workers::pollable::Pollable::new("http://127.0.0.1:9", ["http://b:2".into()]);
        let (polls, _poll_rx) = mpsc::channel(16);
        let (msgs, mut msg_rx) = mpsc::channel(16);
        let router = Router {
            current_downloader: Downloader::for_service(&client).expect("downloader"),
            current: client,
            resolve: None,
            pollable: pollable.clone(),
            polls,
            msgs,
        };
        assert!(pollable.polls(Some("http://b:2")));
        let (tx, rx) = mpsc::unbounded_channel();
        let key = TaskKey::new(TaskKind::Image, "t-1");
        tx.send(Routed::Poll(PollCmd::Watch(key, Some("http://b:2".into()))))
            .expect("send");
        drop(tx);
        router.run(rx, |_, _| {}).await;
        assert!(matches!(
            msg_rx.try_recv(),
            Ok(Msg::ServiceUnusable { service, .. }) if service == "http://b:2"
        ));
        assert!(!pollable.polls(Some("http://b:2")));
    }
}
