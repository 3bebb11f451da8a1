//! The session's services followed by a reload: a profile added to the file is named, and its
//! client can be made, once the file is read again.

use super::*;
use crate::app::state::{Init, State};

fn client_for(settings: &Settings) -> Result<Client, crate::api::ApiError> {
    Client::new(&crate::api::ClientOptions {
        base_url: settings.base_url.clone().expect("a base URL"),
        token: Secret::new("t"),
        request_timeout: settings.request_timeout,
        allow_insecure_http: false,
    })
}

#[test]
fn a_profile_added_to_the_file_is_named_and_reached_after_a_reload() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("config.toml");
    let first = "base_url = \"http://127.0.0.1:1/\"\ntoken = \"t\"\n";
    std::fs::write(&path, first).expect("write");
    let overrides = Overrides {
        config: Some(path.clone()),
        ..Overrides::default()
    };
    let settings = config::resolve(&overrides, &|_| None).expect("reads");
    let Ok(mut session) = for_settings(settings, overrides, false, client_for) else {
        panic!("the session")
    };
    let resolve = session.resolve.clone().expect("a clients' maker");
    assert!(resolve("http://127.0.0.1:2").is_err(), "not configured yet");
    let mut state = State::new(Init::default());
    std::fs::write(
        &path,
        format!("{first}[profiles.lab]\nbase_url = \"http://127.0.0.1:2/\"\ntoken = \"u\"\n"),
    )
    .expect("write");
    let cmds = session.reload.reload(&mut state);
    assert!(
        cmds.contains(&crate::cmd::Cmd::Services(vec![
            "http://127.0.0.1:1".into(),
            "http://127.0.0.1:2".into()
        ])),
        "{cmds:?}"
    );
    assert_eq!(state.watch.services.name("http://127.0.0.1:2"), "lab");
    assert!(resolve("http://127.0.0.1:2").is_ok(), "its client is made");
}
