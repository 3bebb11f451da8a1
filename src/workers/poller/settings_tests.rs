//! The config read again reaches a running poller (`PollCmd::Settings`): each task's next wait
//! follows the new cadence from its next answer on.

use super::*;
use crate::api::TaskKind;
use crate::api::types::{Envelope, default_failure_statuses};
use crate::cmd::PollSettings;
use rand::SeedableRng;
use std::sync::Mutex;

#[tokio::test(start_paused = true)]
async fn new_poll_settings_take_over_from_the_next_answer() {
    let (cmd_tx, cmd_rx) = mpsc::channel(8);
    let (msg_tx, mut msg_rx) = mpsc::channel(64);
    let calls = Arc::new(Mutex::new(Vec::<Instant>::new()));
    let seen = calls.clone();
    let fetch = move |k: TaskKey, (): ()| {
        seen.lock().expect("lock").push(Instant::now());
        async move {
            Ok(TaskResult {
                task_id: k.id,
                kind: TaskKind::Image,
                status: "IN_PROGRESS".into(),
                percent: 50,
                total_tasks: None,
                url_download: None,
                envelope: Envelope::default(),
                extra: None,
            })
        }
    };
    let poller = tokio::spawn(run(
        Schedule::new(Duration::from_secs(10), 8),
        cmd_rx,
        msg_tx,
        fetch,
        default_failure_statuses(),
        Box::leak(Box::default()),
        rand::rngs::StdRng::seed_from_u64(5),
    ));
    let task = TaskKey::new(TaskKind::Image, "t");
    cmd_tx.send(PollCmd::Watch(task, ())).await.expect("send");
    let mut answers = 0;
    while answers < 4 {
        match msg_rx.recv().await.expect("running") {
            Msg::Polled { .. } => answers += 1,
            _ => continue,
        }
        if answers == 1 {
            let every_second = PollSettings {
                interval: Duration::from_secs(1),
                max_interval: Duration::from_secs(1),
                adaptive: false,
                stall_after: Duration::from_secs(300),
                max_in_flight: 2,
            };
            cmd_tx
                .send(PollCmd::Settings(every_second))
                .await
                .expect("send");
        }
    }
    let times = calls.lock().expect("lock").clone();
    let gaps: Vec<Duration> = times.windows(2).map(|w| w[1] - w[0]).collect();
    // The wait set before the settings came stands; the ones after follow them.
    assert_eq!(gaps, [10, 1, 1].map(Duration::from_secs), "{times:?}");
    drop(cmd_tx);
    poller.await.expect("ends");
}

#[test]
fn a_lower_ceiling_lowers_the_limit_at_once() {
    let mut limiter = Limiter::new(8);
    limiter.start_at_ceiling();
    limiter.set_ceiling(3);
    assert_eq!((limiter.ceiling(), limiter.limit()), (3, 3));
    limiter.set_ceiling(0);
    assert_eq!(
        (limiter.ceiling(), limiter.limit()),
        (1, 1),
        "never below one"
    );
}
