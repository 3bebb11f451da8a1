//! A filter keystroke over a catalogue, end to end inside the dashboard as `scripts/light.py`'s
//! keys row types it (`watercolorlit` typed and erased, in a 140×45 terminal): the reducer asking
//! for the ranking, the ranking (in this thread: the worker's code without the hand-over), the
//! answer applied, and the frame drawn and encoded as the dashboard's backend writes it. Each
//! step is its own function, so `valgrind --tool=callgrind` gives each one's instructions:
//!
//! ```text
//! cargo bench --bench keystroke_frame --no-run
//! valgrind --tool=callgrind --callgrind-out-file=cg.out target/release/deps/keystroke_frame-* \
//!   CATALOGUE.json 3
//! callgrind_annotate --inclusive=yes cg.out | grep step_
//! ```
//!
//! CATALOGUE.json is a catalogue file as `gendash serve --catalogue` serves it (`scripts/
//! perf-compare.py` writes one while it runs; `million_keys.rs` reads the same). It prints each
//! step's median wall time per keystroke and the bytes a frame wrote.
#![allow(clippy::unwrap_used)]

use gendash::api::Listing;
use gendash::api::types::decode_catalogue_from;
use gendash::app::action::Action;
use gendash::app::state::{State, UiSettings};
use gendash::cmd::{Cmd, RankJob};
use gendash::filter::Ranker;
use gendash::msg::Msg;
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};
use ratatui_crossterm::CrosstermBackend;
use std::cell::Cell;
use std::io::{Read, Write};
use std::rc::Rc;
use std::time::{Duration, Instant};

const QUERY: &str = "watercolorlit";
const WIDTH: u16 = 140;
const HEIGHT: u16 = 45;

type Tui = Terminal<CrosstermBackend<Counting>>;

/// The terminal's output, counted and dropped.
struct Counting(Rc<Cell<usize>>);

impl Write for Counting {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.set(self.0.get() + buf.len());
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn loaded_state(listing: Listing) -> State {
    let mut s = State::new(gendash::app::state::Init {
        service_url: "http://127.0.0.1:8787/".into(),
        settings: UiSettings {
            bell: false,
            desktop_notifications: false,
            no_color: false,
            poll_interval: 2,
        },
        now: 1_800_000_000,
        ..gendash::app::state::Init::default()
    });
    s.update(Action::Resize {
        width: WIDTH,
        height: HEIGHT,
    });
    s.start();
    s.apply(Msg::Catalogue {
        generation: s.browser.generation,
        result: Ok(listing),
    });
    s
}

#[inline(never)]
fn step_reduce(s: &mut State, action: Action) -> Vec<Cmd> {
    s.update(action)
}

#[inline(never)]
fn step_rank(ranker: &mut Ranker, job: &RankJob) -> Msg {
    Msg::Ranked {
        generation: job.generation,
        matches: ranker.rank(&job.query, &job.text),
    }
}

#[inline(never)]
fn step_apply(s: &mut State, msg: Msg) {
    s.apply(msg);
}

/// Draws and encodes the frame; returns the bytes written.
#[inline(never)]
fn step_draw(s: &mut State, t: &mut Tui, written: &Cell<usize>) -> usize {
    t.draw(|f| {
        gendash::ui::render(s, f);
    })
    .unwrap();
    s.drawn();
    written.replace(0)
}

#[derive(Default)]
struct Times {
    reduce: Vec<Duration>,
    rank: Vec<Duration>,
    apply: Vec<Duration>,
    draw: Vec<Duration>,
    bytes: Vec<usize>,
}

fn median<T: Ord + Copy>(v: &mut [T]) -> T {
    v.sort_unstable();
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let Some(path) = args.first() else {
        eprintln!("usage: keystroke_frame CATALOGUE.json [ROUNDS [PAUSE_MS]]");
        return;
    };
    let rounds: usize = args.get(1).map_or(10, |r| r.parse().unwrap());
    // A pause before each key, as between a person's keystrokes: the frame then meets caches
    // that other programs used meanwhile (the pseudo-terminal figure's case), not warm ones.
    let pause = Duration::from_millis(args.get(2).map_or(0, |p| p.parse().unwrap()));
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let body = b"{\"data\":".chain(file).chain(&b"}"[..]);
    let listing = Listing::from(decode_catalogue_from(body).unwrap());
    let mut s = loaded_state(listing);
    let written = Rc::new(Cell::new(0));
    let backend = CrosstermBackend::new(Counting(written.clone()));
    let viewport = Viewport::Fixed(Rect::new(0, 0, WIDTH, HEIGHT));
    let mut t = Terminal::with_options(backend, TerminalOptions { viewport }).unwrap();
    step_draw(&mut s, &mut t, &written);
    s.update(Action::FocusFilter);
    step_draw(&mut s, &mut t, &written);
    let mut ranker = Ranker::new();
    let mut times = Times::default();
    for _ in 0..rounds {
        let keys = QUERY
            .chars()
            .map(Action::Type)
            .chain(QUERY.chars().map(|_| Action::Backspace));
        for action in keys {
            std::thread::sleep(pause);
            let t0 = Instant::now();
            let cmds = step_reduce(&mut s, action);
            times.reduce.push(t0.elapsed());
            let mut rank = Duration::ZERO;
            let mut apply = Duration::ZERO;
            for cmd in cmds {
                if let Cmd::Rank(job) = cmd {
                    let t0 = Instant::now();
                    let msg = step_rank(&mut ranker, &job);
                    rank += t0.elapsed();
                    let t0 = Instant::now();
                    step_apply(&mut s, msg);
                    apply += t0.elapsed();
                }
            }
            times.rank.push(rank);
            times.apply.push(apply);
            let t0 = Instant::now();
            times.bytes.push(step_draw(&mut s, &mut t, &written));
            times.draw.push(t0.elapsed());
        }
    }
    let us = |v: &mut Vec<Duration>| median(v).as_secs_f64() * 1e6;
    println!(
        "{} keystrokes over {} names, medians: reduce {:.1} µs, rank {:.1} µs, apply {:.1} µs, \
         draw {:.1} µs, {} bytes a frame",
        times.draw.len(),
        s.browser.entries.len(),
        us(&mut times.reduce),
        us(&mut times.rank),
        us(&mut times.apply),
        us(&mut times.draw),
        median(&mut times.bytes),
    );
}
