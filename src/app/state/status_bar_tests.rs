//! What the status bar says: the connection's health, what the opener and the clipboard
//! answered.

use crate::app::test_support::*;
use crate::app::watch::end;

// ---- 3. connection health -------------------------------------------------------------------

/// What an error says about the service.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Says {
    /// Out of reach or unusable.
    Trouble,
    /// It answered (an unknown task, a 404): reachable.
    Answered,
    /// It answered 404 where the spec's routes are: the base URL's path looks wrong.
    WrongPath,
    /// Nothing: the request never reached it.
    Nothing,
}

/// The errors that mean the service is out of reach or unusable, and those that do not.
fn errors() -> Vec<(ApiError, Says)> {
    let origin = "http://127.0.0.1:8787".to_string();
    vec![
        (
            ApiError::Connect {
                origin: origin.clone(),
                detail: "refused".into(),
            },
            Says::Trouble,
        ),
        (
            ApiError::Tls {
                origin: origin.clone(),
                detail: "invalid peer certificate: UnknownIssuer".into(),
            },
            Says::Trouble,
        ),
        (
            ApiError::Timeout {
                origin: origin.clone(),
                after: Duration::from_secs(10),
            },
            Says::Trouble,
        ),
        (
            ApiError::Transport {
                origin,
                detail: "reset".into(),
            },
            Says::Trouble,
        ),
        (
            ApiError::Auth {
                status: 401,
                excerpt: "no".into(),
            },
            Says::Trouble,
        ),
        (
            ApiError::Decode {
                expected: "JSON",
                detail: String::new(),
            },
            Says::Trouble,
        ),
        (
            ApiError::TooLarge {
                limit: 1 << 20,
                setting: None,
            },
            Says::Trouble,
        ),
        (http(500), Says::Trouble),
        (http(502), Says::Trouble),
        (http(503), Says::Trouble),
        (http(429), Says::Trouble),
        (http(404), Says::Answered),
        (http(400), Says::Answered),
        (
            ApiError::Lookup {
                description: "no such task".into(),
            },
            Says::Answered,
        ),
        (
            ApiError::CrossOriginRedirect {
                to: "http://elsewhere".into(),
            },
            Says::Nothing,
        ),
        (ApiError::Invalid("bad ID".into()), Says::Nothing),
        (
            ApiError::WrongPath {
                method: "POST",
                url: "http://127.0.0.1:8787/lora/".into(),
                status: 404,
            },
            Says::WrongPath,
        ),
    ]
}

#[test]
fn errors_set_last_error_and_health_follows_what_they_say() {
    for (e, says) in errors() {
        let text = e.to_string();
        let msgs = [polled("w-1", Err(e.clone())), catalogue(1, Err(e.clone()))];
        for msg in msgs {
            let mut s = state();
            s.start();
            s.apply(msg);
            let expected = match says {
                Says::Trouble => Health::Trouble(text.clone()),
                Says::Answered => Health::Connected,
                Says::WrongPath => Health::WrongPath(text.clone()),
                Says::Nothing => Health::Unknown,
            };
            assert_eq!(s.health, expected, "{e:?}");
            assert_eq!(s.last_error.as_deref(), Some(text.as_str()), "{e:?}");
            assert!(s.dirty, "{e:?}");
        }
    }
}

#[test]
fn successes_connect_and_recover_from_trouble() {
    /// (earlier reports, the success, `last_error` after, `reconnected` said after)
    type Case = (Vec<Msg>, Msg, Option<String>, bool);
    let connect = ApiError::Connect {
        origin: "http://127.0.0.1:8787".into(),
        detail: "refused".into(),
    };
    let ok_catalogue = || catalogue(1, Ok(Catalogue::default()));
    let ok = || ok_poll("w-1", "IN_PROGRESS", 50);
    let cases: Vec<Case> = vec![
        (vec![], ok(), None, false),
        (vec![], ok_catalogue(), None, false),
        (vec![polled("w-1", Err(connect.clone()))], ok(), None, true),
        (
            vec![polled("w-1", Err(connect.clone()))],
            ok_catalogue(),
            None,
            true,
        ),
        (vec![catalogue(1, Err(http(503)))], ok(), None, true),
        // A missing task is no connection trouble: its error stays, nothing is announced.
        (
            vec![polled("w-1", Err(http(404)))],
            ok(),
            Some(http(404).to_string()),
            false,
        ),
    ];
    for (i, (before, success, last_error, reconnected)) in cases.into_iter().enumerate() {
        let mut s = state();
        s.start();
        for m in before {
            s.apply(m);
        }
        s.apply(success);
        let health = if reconnected {
            Health::Reconnected {
                until: NOW + NOTICE_SECONDS,
            }
        } else {
            Health::Connected
        };
        assert_eq!(s.health, health, "case {i}");
        assert_eq!(s.last_error, last_error, "case {i}");
        assert_eq!(
            super::tests::notice(&s),
            None,
            "case {i}: the health says it"
        );
    }
    // A stale catalogue (an older generation) proves nothing and changes nothing.
    let mut s = state();
    s.start();
    s.apply(catalogue(0, Ok(Catalogue::default())));
    assert_eq!(s.health, Health::Unknown);
}

// ---- O, the opener's answers, and how a copy went ------------------------------------------

/// `O` opens the selected task's saved file; without one it says which key downloads it, as
/// the keymap has it (rebound here); a file gone since says so too.
#[test]
fn o_opens_the_saved_file_or_names_the_key_that_saves_one() {
    let mut saved = entry("done-1", Some(("COMPLETED", 100)));
    saved.saved = Some("/dl/done-1.png".into());
    let mut s = state_with(
        vec![saved, entry("done-2", Some(("COMPLETED", 100)))],
        ui(false, false),
    );
    let keys = [(
        "download".to_string(),
        vec!["ctrl-d".parse().expect("a key")],
    )]
    .into();
    s.keymap = Keymap::configured(&keys).expect("keymap");
    s.update(Action::FocusNext);
    s.watch.select(0);
    assert_eq!(
        s.update(Action::OpenFile),
        [Cmd::OpenFile("/dl/done-1.png".into())]
    );
    s.apply(Msg::Opened(crate::msg::Opened::Missing(
        "/dl/done-1.png".into(),
    )));
    assert_eq!(
        notice(&s),
        Some("/dl/done-1.png is not there any more: ^D downloads it again")
    );
    s.watch.select(1);
    assert!(s.update(Action::OpenFile).is_empty());
    assert_eq!(
        notice(&s),
        Some("no file saved for done-2: ^D downloads it")
    );
}

/// The status bar says how a copy went once it went: a program that exited 0 copied it; OSC
/// 52 was only sent (through tmux, when inside it), after the program's failure if one failed.
#[test]
fn a_copy_is_said_the_way_it_was_made() {
    let mut s = state_with(
        vec![entry("done-1", Some(("COMPLETED", 100)))],
        ui(false, false),
    );
    s.update(Action::FocusNext);
    let cmds = s.update(Action::CopyName);
    let clip = crate::cmd::Clip::new("done-1", "task ID");
    assert_eq!(cmds, [Cmd::Copy(clip.clone())]);
    assert_eq!(notice(&s), None, "nothing claimed before it happened");
    let via = CopiedVia::Program("xclip".into());
    assert!(
        s.apply(Msg::Copied {
            clip: clip.clone(),
            via
        })
        .is_empty()
    );
    assert_eq!(notice(&s), Some("copied the task ID with xclip"));
    for (tmux, failed, said) in [
        (
            false,
            None,
            "sent the task ID to the terminal's clipboard (OSC 52)",
        ),
        (
            true,
            Some("xclip failed (exit status: 1)".to_string()),
            "xclip failed (exit status: 1); sent the task ID to the terminal's clipboard through tmux (OSC 52)",
        ),
    ] {
        let via = CopiedVia::Terminal { tmux, failed };
        let cmds = s.apply(Msg::Copied {
            clip: clip.clone(),
            via,
        });
        assert_eq!(
            cmds,
            [Cmd::CopyToTerminal {
                text: "done-1".into(),
                tmux
            }]
        );
        assert_eq!(notice(&s), Some(said));
    }
}

/// Nothing can open a link here (no display): it is copied instead, and the status bar shows
/// it whole, alone, then how it was copied.
#[test]
fn a_link_that_cannot_be_opened_is_shown_whole_and_copied() {
    let mut s = state();
    let url = format!("https://cdn.example/files/{}.png", "x".repeat(120));
    let cmds = s.apply(Msg::Opened(crate::msg::Opened::NoDisplay(url.clone())));
    let [Cmd::Copy(clip)] = cmds.as_slice() else {
        panic!("{cmds:?}")
    };
    assert_eq!(clip.text, url);
    let via = CopiedVia::Terminal {
        tmux: false,
        failed: None,
    };
    s.apply(Msg::Copied {
        clip: clip.clone(),
        via,
    });
    let n = s.notice.as_ref().expect("a notice");
    assert!(n.whole);
    assert_eq!(
        n.text,
        format!("{url} · no display to open it on · sent it to the terminal's clipboard (OSC 52)")
    );
}

/// Two dashboards on one data directory: only the one whose claim the watch list file took
/// announces a finished task and fetches its file; the other's row shows the file the first
/// saved once it reads the file again.
#[test]
fn only_the_dashboard_that_claims_a_finish_announces_and_fetches_it() {
    let mut first = state();
    let mut second = state();
    first.watch.auto_download = true;
    second.watch.auto_download = true;
    let won = finish(&mut first, "w-1", "COMPLETED", 100, true);
    let lost = finish(&mut second, "w-1", "COMPLETED", 100, false);
    assert_eq!(
        kinds(&won),
        [
            "Persist(Status)",
            "Persist(Claim)",
            "Download",
            // The last running task: `on_all_done` waits for its download; the notice once
            // its window closed.
            "Notify",
            "Bell"
        ]
    );
    assert_eq!(kinds(&lost), ["Persist(Status)", "Persist(Claim)"]);
    // Not claimed again by a later poll, nor by the next start's downloads.
    assert!(finish(&mut second, "w-1", "COMPLETED", 100, true).is_empty());
    assert!(end::start_downloads(&mut second.watch).cmds.is_empty());

    let key = TaskKey::new(TaskKind::Image, "w-1");
    first.apply(Msg::Download {
        key: key.clone(),
        event: DownloadEvent::Saved("/dl/w-1.png".into()),
    });
    let mut on_disk = first.watch.rows[0].entry.clone();
    on_disk.claimed_by = Some("the first".into());
    second.apply(Msg::WatchFile {
        entries: vec![on_disk].into(),
        applied: second.persist_sent,
    });
    assert_eq!(
        second.watch.rows[0].download,
        Some(DownloadView::Saved("/dl/w-1.png".into()))
    );
    assert_eq!(
        second.watch.rows[0].entry.saved.as_deref(),
        Some("/dl/w-1.png")
    );
}

/// With `auto_download`, `on_complete` waits for the download: it runs once it ended, with the
/// saved file, or with none and why when it failed; without, at once, with why.
#[test]
fn on_complete_runs_after_the_automatic_download_with_the_saved_file() {
    let finished_of = |cmds: &[Cmd]| {
        cmds.iter().find_map(|c| match c {
            Cmd::Finished(f) => Some((f.file.clone(), f.no_file.clone())),
            _ => None,
        })
    };
    let key = TaskKey::new(TaskKind::Image, "w-1");
    for (event, file, why) in [
        (
            DownloadEvent::Saved("/dl/w-1.png".into()),
            Some(std::path::PathBuf::from("/dl/w-1.png")),
            None,
        ),
        (
            DownloadEvent::Failed("HTTP 500".into()),
            None,
            Some("the download failed: HTTP 500".to_string()),
        ),
    ] {
        let mut s = state();
        s.watch.auto_download = true;
        let cmds = finish(&mut s, "w-1", "COMPLETED", 100, true);
        assert!(download_of(&cmds).is_some());
        assert_eq!(finished_of(&cmds), None, "not before the download ended");
        let progress = s.apply(Msg::Download {
            key: key.clone(),
            event: DownloadEvent::Progress {
                done: 10,
                total: Some(20),
            },
        });
        assert_eq!(finished_of(&progress), None, "not while it runs");
        let cmds = s.apply(Msg::Download {
            key: key.clone(),
            event,
        });
        assert_eq!(finished_of(&cmds), Some((file, why)));
    }
    let mut s = state();
    let cmds = finish(&mut s, "w-1", "COMPLETED", 100, true);
    assert_eq!(
        finished_of(&cmds),
        Some((None, Some("auto_download is off for it".to_string())))
    );

    // `D` pressed while the claim was on its way: the hook waits for that download too.
    let mut s = state();
    let cmds = s.apply(ok_poll("w-1", "COMPLETED", 100));
    assert!(cmds.contains(&Cmd::Persist(PersistOp::Claim(key.clone()))));
    s.update(Action::FocusNext);
    assert!(download_of(&s.update(Action::Download)).is_some());
    s.apply(Msg::Download {
        key: key.clone(),
        event: DownloadEvent::Progress {
            done: 1,
            total: None,
        },
    });
    let cmds = s.apply(Msg::Claimed {
        key: key.clone(),
        won: true,
    });
    assert_eq!(finished_of(&cmds), None, "not while D's download runs");
    let cmds = s.apply(Msg::Download {
        key,
        event: DownloadEvent::Saved("/dl/w-1.png".into()),
    });
    assert_eq!(finished_of(&cmds), Some((Some("/dl/w-1.png".into()), None)));
}
