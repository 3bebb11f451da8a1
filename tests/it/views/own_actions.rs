//! The user's actions on screen at 80 and 220 columns: a run on the status bar until it ends
//! (with the row it skipped said), the question of an action that asks first, and the help
//! listing the action under the watch list with its key and command line.

use super::{Action, Keymap, TaskKind, draw, loaded, task};
use gendash::store::config::{OwnAction, Scope};
use std::sync::Arc;

fn upscale(confirm: bool) -> OwnAction {
    OwnAction {
        name: "upscale".into(),
        key: "ctrl-u".parse().unwrap(),
        scopes: vec![Scope::Watch],
        command: vec!["upscale".into(), "--in".into(), "{file}".into()],
        confirm,
    }
}

/// Two tasks on the watch list (the first saved), the watch pane focused, both marked, the
/// action pressed.
fn pressed(width: u16, height: u16, confirm: bool) -> gendash::app::state::State {
    let mut saved = task("sunset-1", TaskKind::Image);
    saved.saved = Some("/dl/sunset-1.png".into());
    let mut s = loaded(width, height, vec![saved, task("dusk-2", TaskKind::Image)]);
    s.keymap = Keymap::default().with_actions(&[upscale(confirm)]).unwrap();
    s.update(Action::FocusNext);
    s.update(Action::ToggleMark);
    s.update(Action::ToggleMark);
    s.update(Action::RunOwn(Arc::new(upscale(confirm))));
    s
}

#[test]
fn a_running_action_and_its_question_at_80_and_220_columns() {
    for (width, height, name) in [(80, 24, "80x24"), (220, 50, "220x50")] {
        let s = pressed(width, height, false);
        let t = draw(&s);
        insta::assert_snapshot!(format!("running_{name}"), t.backend());
        let status: String = {
            let buf = t.backend().buffer();
            let y = s.areas.status.y;
            (0..width).map(|x| buf[(x, y)].symbol()).collect()
        };
        assert!(status.contains("running upscale on sunset-1"), "{status}");

        let s = pressed(width, height, true);
        let t = draw(&s);
        insta::assert_snapshot!(format!("asks_{name}"), t.backend());
        let screen = crate::common::buffer_text(t.backend().buffer());
        assert!(screen.contains("Run the action?"), "{screen}");
        assert!(screen.contains("run upscale on sunset-1?"), "{screen}");
    }
}

#[test]
fn the_help_lists_the_action_with_its_key_and_command() {
    for (width, height, name) in [(80, 24, "help_80x24"), (220, 50, "help_220x50")] {
        let mut s = pressed(width, height, false);
        s.update(Action::ToggleHelp);
        // Down to the watch list's keys, where the action is listed last.
        let lines = s.keymap.help_lines_at(usize::from(s.areas.help.width - 2));
        let at = lines
            .iter()
            .position(|l| l.text().contains("upscale --in {file}"))
            .expect("listed");
        for _ in 0..at.saturating_sub(3) {
            s.update(Action::Down);
        }
        let t = draw(&s);
        insta::assert_snapshot!(name, t.backend());
        let screen = crate::common::buffer_text(t.backend().buffer());
        assert!(screen.contains("^U"), "{screen}");
        assert!(screen.contains("upscale --in {file}"), "{screen}");
    }
}
