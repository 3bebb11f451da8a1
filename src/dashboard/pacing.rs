//! The frame's pace: a key's change is drawn a 60 Hz frame after the last, what only the
//! workers' routine reports changed at a slower pace, and what waits in the channel is applied
//! before the one frame that shows it all.

use crate::app::state::State;
use crate::cmd::Cmd;
use crate::msg::Msg;
use std::time::Duration;
use tokio::sync::mpsc;

/// At most this many worker reports are handled before the screen is drawn again.
pub(super) const DRAIN_BATCH: usize = 256;
/// At most one frame per this long (~60 a second): a burst of reports costs one frame.
pub(super) const FRAME: Duration = Duration::from_millis(16);
/// What only the workers' routine reports changed (poll answers, the load, the request log,
/// downloads under way) is drawn at most this often. A list of 1,000 tasks at 2 s brings
/// hundreds of answers a second, each moving a percent; frames at `FRAME` were most of the
/// dashboard's CPU, at 100 ms still a quarter of it with adaptive polling, and at 250 ms a
/// fifth (issue 31: 0.085-0.10 ms per poll against the Python service, 0.076 at 500 ms). A
/// row changes once per answer, at most every `poll_interval` (2 s by default), and nobody
/// sees when an answer came: shown up to half a second later, every change of a row polled
/// every 0.5 s or slower is still shown, in step with the others.
/// Keys, resizes, signals, the clock's tick (the ages step once a second, on time) and every
/// other report (a ranking, a catalogue, a preview) are drawn at `FRAME`.
const BACKGROUND_FRAME: Duration = Duration::from_millis(500);

/// The last frame drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LastFrame {
    /// None yet: the first is drawn at once.
    None,
    /// Drawn then, showing the latest ranking asked for.
    Shown(tokio::time::Instant),
    /// Drawn then while a ranking was out, its list marked "filtering…": it stands in for the
    /// frame that shows the ranking, which is drawn as soon as the ranking is back. Paced a
    /// frame after this one, a key whose ranking took 18 ms was drawn at 32 ms (issue 31: a
    /// million names' first keys, 35 ms where the ranking took 15-17).
    StandIn(tokio::time::Instant),
}

impl LastFrame {
    /// The frame just drawn at `at`, while a ranking was out (`ranking`) or not.
    pub(super) fn drawn(at: tokio::time::Instant, ranking: bool) -> Self {
        if ranking {
            LastFrame::StandIn(at)
        } else {
            LastFrame::Shown(at)
        }
    }
}

/// When the next frame may be drawn: `FRAME` after the last when something not routine waits
/// (a key above all), `BACKGROUND_FRAME` after it when only routine reports changed anything;
/// at once before the first, or when the ranking a stand-in frame waited for is back. While a
/// ranking is out (since `ranking_since`), a frame waits for it up to `FRAME`: it is usually
/// back within a millisecond or two, and the query is then drawn once, over its matches,
/// rather than over the previous ones and again a frame later.
pub(super) fn next_frame_at(
    last: LastFrame,
    urgent: bool,
    ranking_since: Option<tokio::time::Instant>,
) -> tokio::time::Instant {
    let pace = if urgent { FRAME } else { BACKGROUND_FRAME };
    let paced = match (last, ranking_since) {
        (LastFrame::None, _) | (LastFrame::StandIn(_), None) => tokio::time::Instant::now(),
        (LastFrame::Shown(t) | LastFrame::StandIn(t), _) => t + pace,
    };
    ranking_since.map_or(paced, |since| paced.max(since + FRAME))
}

/// The clock's tick: drawn at `FRAME`, so the ages step once a second, on time (see
/// `BACKGROUND_FRAME`); once a second, it adds at most a frame.
pub(super) fn tick(state: &mut State, now: u64, urgent: &mut bool) -> Vec<Cmd> {
    *urgent = true;
    state.apply(Msg::Tick(now))
}

/// Applies `first` and what else is waiting (at most `DRAIN_BATCH`), so what follows (a frame,
/// plain mode's lines) is made once for all of them. Sets `urgent` unless each was routine
/// (see `BACKGROUND_FRAME`).
pub(super) fn apply_waiting(
    state: &mut State,
    first: Msg,
    msgs: &mut mpsc::Receiver<Msg>,
    urgent: &mut bool,
) -> Vec<Cmd> {
    *urgent |= !routine(&first);
    let mut cmds = state.apply(first);
    for _ in 0..DRAIN_BATCH {
        match msgs.try_recv() {
            Ok(m) => {
                *urgent |= !routine(&m);
                cmds.extend(state.apply(m));
            }
            Err(_) => break,
        }
    }
    cmds
}

/// The workers' routine reports, whose changes wait for the next `BACKGROUND_FRAME`: nobody
/// waits for them after a key.
fn routine(msg: &Msg) -> bool {
    matches!(
        msg,
        Msg::Polled { .. }
            | Msg::PollLoad(_)
            | Msg::Tick(_)
            | Msg::WatchFile { .. }
            | Msg::WatchSaved { .. }
            | Msg::Request(_)
            | Msg::Download { .. }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key's frame comes a 60 Hz frame after the last; what only polls changed waits for
    /// the background pace; the clock's tick is drawn at once (its ages step on time).
    #[test]
    fn keys_are_drawn_at_once_and_background_changes_at_the_background_pace() {
        let last = tokio::time::Instant::now();
        let shown = LastFrame::Shown(last);
        assert_eq!(next_frame_at(shown, true, None), last + FRAME);
        assert_eq!(next_frame_at(shown, false, None), last + BACKGROUND_FRAME);
        assert!(next_frame_at(LastFrame::None, false, None) <= tokio::time::Instant::now());
        assert_eq!(BACKGROUND_FRAME, Duration::from_millis(500));
        let mut state = State::new(crate::app::state::Init::default());
        let mut urgent = false;
        tick(&mut state, 1_700_000_000, &mut urgent);
        assert!(urgent, "the ages step on time");
        assert_eq!(state.now, 1_700_000_000);
    }

    /// A frame waits up to `FRAME` for a ranking out; drawn without it (a stand-in), the
    /// ranking's own frame follows as soon as it is back, not a frame later; while it is
    /// still out, the stand-in is paced as any frame.
    #[test]
    fn a_ranking_is_waited_for_a_frame_and_drawn_at_once_after_its_stand_in() {
        let t0 = tokio::time::Instant::now();
        let long_ago = LastFrame::Shown(t0);
        let key = t0 + Duration::from_secs(1);
        assert_eq!(next_frame_at(long_ago, true, Some(key)), key + FRAME);
        assert_eq!(LastFrame::drawn(key, true), LastFrame::StandIn(key));
        assert_eq!(LastFrame::drawn(key, false), LastFrame::Shown(key));
        // The stand-in, drawn at `key + FRAME`:
        let stand_in = LastFrame::drawn(key + FRAME, true);
        let back = next_frame_at(stand_in, true, None);
        assert!(
            back <= tokio::time::Instant::now(),
            "the ranking waited a frame"
        );
        assert_eq!(
            next_frame_at(stand_in, true, Some(key)),
            key + FRAME + FRAME
        );
    }
}
