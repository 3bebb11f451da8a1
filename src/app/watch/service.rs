//! The service each row's task belongs to: the services configured (a row whose service
//! cannot be polled stops being polled), and entries that remember none adopted by the
//! service in force.

use super::Watch;
use crate::app::effects::Effects;
use crate::app::services::Services;
use crate::cmd::{Cmd, PersistOp, PollCmd};

/// Sets the services (at start, and when one turns out unusable); rows of a service that
/// cannot be polled stop being polled.
pub fn set(watch: &mut Watch, services: Services) -> Effects {
    watch.services = services;
    let mut cmds = Vec::new();
    let mut changed = false;
    for r in &mut watch.rows {
        let service = watch.services.of(r.entry.service.as_deref());
        let no_service = !watch.services.usable(service);
        if no_service && !r.no_service {
            cmds.push(Cmd::Poll(PollCmd::Unwatch(r.key())));
        }
        changed |= no_service != r.no_service;
        r.no_service = no_service;
    }
    Effects::cmds(cmds).redraw_if(changed)
}

/// Entries that remember no service belong to the current one, from now on in the file.
pub fn adopt(watch: &mut Watch) -> Effects {
    let current = watch.services.current.clone();
    if current.is_empty() || watch.rows.iter().all(|r| r.entry.service.is_some()) {
        return Effects::none();
    }
    for r in watch.rows.iter_mut().filter(|r| r.entry.service.is_none()) {
        r.entry.service = Some(current.clone());
    }
    Effects::cmds(vec![Cmd::Persist(PersistOp::Adopt(current))])
}
