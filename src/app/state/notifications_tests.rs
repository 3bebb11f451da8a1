//! Bells and notifications through the state: what a finish or a stall sends, as `bell`,
//! `desktop_notifications` and the notification policy say.

use crate::app::test_support::*;

struct BellCase {
    bell: bool,
    desktop: bool,
    /// The last known status saved on disk, if any.
    disk: Option<(&'static str, u8)>,
    /// Polls before the one checked, then the one checked.
    polls: &'static [(&'static str, u8)],
    cmds: &'static [&'static str],
}

fn bell_cases() -> Vec<BellCase> {
    let mut cases = Vec::new();
    let running = Some(("IN_PROGRESS", 40));
    // The finish is claimed in the watch list file first; the claim won, it is announced once
    // the notification window closed (the task was the last running one: `on_all_done`).
    for (bell, desktop, cmds) in [
        // `Finished` (for on_complete) whatever the bell and notifications say.
        (
            true,
            true,
            &[
                "Persist(Status)",
                "Persist(Claim)",
                "Finished",
                "AllDone",
                "Notify",
                "Bell",
            ][..],
        ),
        (
            true,
            false,
            &[
                "Persist(Status)",
                "Persist(Claim)",
                "Finished",
                "AllDone",
                "Bell",
            ][..],
        ),
        (
            false,
            true,
            &[
                "Persist(Status)",
                "Persist(Claim)",
                "Finished",
                "AllDone",
                "Notify",
            ][..],
        ),
        (
            false,
            false,
            &["Persist(Status)", "Persist(Claim)", "Finished", "AllDone"][..],
        ),
    ] {
        let case =
            |disk: Option<(&'static str, u8)>, polls: &'static [(&'static str, u8)]| BellCase {
                bell,
                desktop,
                disk,
                polls,
                cmds,
            };
        // Seen running (on disk, or by an earlier poll), then finished.
        cases.push(case(running, &[("COMPLETED", 100)]));
        cases.push(case(running, &[("FAILED", 40)]));
        cases.push(case(None, &[("IN_PROGRESS", 10), ("COMPLETED", 100)]));
        let quiet = |disk: Option<(&'static str, u8)>,
                     polls: &'static [(&'static str, u8)],
                     cmds: &'static [&'static str]| BellCase {
            bell,
            desktop,
            disk,
            polls,
            cmds,
        };
        // Progress is not a finish.
        cases.push(quiet(running, &[("IN_PROGRESS", 60)], &["Persist(Status)"]));
        // Already final when first seen: never polled before, or final on disk.
        cases.push(quiet(None, &[("COMPLETED", 100)], &["Persist(Status)"]));
        cases.push(quiet(None, &[("FAILED", 0)], &["Persist(Status)"]));
        cases.push(quiet(Some(("COMPLETED", 100)), &[("COMPLETED", 100)], &[]));
        // Finished once: a repeated final status is not announced again.
        cases.push(quiet(
            running,
            &[("COMPLETED", 100), ("COMPLETED", 100)],
            &[],
        ));
    }
    cases
}

#[test]
fn finishing_rings_and_notifies_as_configured() {
    let cases = bell_cases();
    for c in &cases {
        let mut s = state_with(vec![entry("t-1", c.disk)], ui(c.bell, c.desktop));
        let (last, earlier) = c.polls.split_last().expect("a poll");
        for (i, (status, percent)) in earlier.iter().enumerate() {
            s.now = NOW + i as u64;
            s.apply(ok_poll("t-1", status, *percent));
        }
        s.now = NOW + 100;
        let cmds = finish(&mut s, "t-1", last.0, last.1, true);
        assert_eq!(
            kinds(&cmds),
            c.cmds,
            "bell {} desktop {} disk {:?} polls {:?}",
            c.bell,
            c.desktop,
            c.disk,
            c.polls
        );
    }
    assert_eq!(cases.len(), 32);

    // What the notification says.
    let mut s = state();
    let cmds = finish(&mut s, "w-1", "COMPLETED", 100, true);
    assert_eq!(
        cmds[4],
        Cmd::Notify {
            title: "gendash: task completed".into(),
            body: "image w-1 — COMPLETED".into(),
        }
    );
    let mut s = state();
    let cmds = finish(&mut s, "w-1", "EXPIRED", 40, true);
    assert!(matches!(&cmds[4], Cmd::Notify { title, .. } if title == "gendash: task failed"));
}

/// The notification policy through the state: finishes within the window make one notice and
/// one bell; `off` neither; `batch` one when the last finishes; a stall is told once.
#[test]
fn the_policy_decides_notices_and_bells() {
    use crate::app::watch::notify::WINDOW;
    use crate::store::config::NotifyPolicy;
    let running = Some(("IN_PROGRESS", 40));
    let three = || {
        state_with(
            vec![
                entry("a", running),
                entry("b", running),
                entry("c", running),
            ],
            ui(true, true),
        )
    };
    let count = |cmds: &[Cmd], kind: &str| kinds(cmds).iter().filter(|k| **k == kind).count();
    for (policy, notices, says) in [
        (NotifyPolicy::Each, 1, Some("2 completed, 1 failed")),
        (NotifyPolicy::Batch, 1, Some("all 3 done · 1 failed")),
        (NotifyPolicy::Failures, 1, Some("image c — FAILED")),
        (NotifyPolicy::Off, 0, None),
    ] {
        let mut s = three();
        s.notifier.settings.policy = policy;
        let mut cmds = Vec::new();
        s.now = NOW + 100;
        cmds.extend(finish_unticked(&mut s, "a", "COMPLETED", 100, true));
        cmds.extend(s.apply(Msg::Tick(NOW + 101)));
        cmds.extend(finish_unticked(&mut s, "b", "COMPLETED", 100, true));
        cmds.extend(finish_unticked(&mut s, "c", "FAILED", 40, true));
        for t in NOW + 102..NOW + 100 + 3 * WINDOW {
            cmds.extend(s.apply(Msg::Tick(t)));
        }
        assert_eq!(count(&cmds, "Notify"), notices, "{policy:?}: {cmds:?}");
        assert_eq!(
            count(&cmds, "Bell"),
            notices,
            "{policy:?}: one bell a notice"
        );
        assert_eq!(count(&cmds, "AllDone"), 1, "{policy:?}: on_all_done once");
        let body = cmds.iter().find_map(|c| match c {
            Cmd::Notify { body, .. } => Some(body.as_str()),
            _ => None,
        });
        assert_eq!(body, says, "{policy:?}");
    }

    // A finish claimed by the other dashboard is not told here, nor rung.
    let mut s = three();
    let cmds = finish(&mut s, "a", "COMPLETED", 100, false);
    assert_eq!(count(&cmds, "Notify") + count(&cmds, "Bell"), 0, "{cmds:?}");

    // A stall: told once, with its bell, not again while it stays stalled.
    let mut s = state_with(vec![entry("s", running)], ui(true, true));
    s.apply(ok_poll("s", "IN_PROGRESS", 40));
    let stall_after = s.watch.stall_after;
    let mut cmds = Vec::new();
    for t in (NOW..NOW + 2 * stall_after).step_by(7) {
        cmds.extend(s.apply(Msg::Tick(t)));
    }
    assert_eq!(kinds(&cmds), ["Notify", "Bell"], "{cmds:?}");
    assert!(
        matches!(&cmds[0], Cmd::Notify { title, body } if title == "gendash: task stalled"
            && body == "image s — stalled at 40%"),
        "{cmds:?}"
    );
}
