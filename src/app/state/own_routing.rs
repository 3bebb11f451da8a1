//! The user's actions' keys, routed from the state to `own_actions` (which knows nothing of
//! the state), and the yes/no question's answer between an action's and a file's.

use super::State;
use crate::app::action::Action;
use crate::app::effects::Effects;
use crate::app::{confirm, own_actions};
use crate::store::config::OwnAction;

impl State {
    /// An action's key (or the palette's Enter on it), where the keys are.
    pub(super) fn run_own(&mut self, own: &OwnAction) -> Effects {
        own_actions::pressed(
            own,
            own_actions::Here {
                mode: self.mode(),
                browser: &self.browser,
                watch: &self.watch,
                archive: &self.archive,
                popup: &mut self.popup,
                running: &mut self.own_actions,
            },
        )
    }

    /// A yes/no question's answer: an action's, else the file's (see `confirm`).
    pub(super) fn update_confirm(&mut self, action: &Action) -> Effects {
        let yes = match action {
            Action::Submit => true,
            Action::Cancel => false,
            _ => return Effects::none(),
        };
        own_actions::answer(&mut self.popup, &mut self.own_actions, yes).unwrap_or_else(|| {
            confirm::update(
                &mut self.popup,
                &mut self.watch,
                &mut self.archive,
                action,
                &self.keymap,
            )
        })
    }
}
