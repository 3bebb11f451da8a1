//! Times each archive filter keystroke as the dashboard handles it, without a pseudo-terminal:
//! the key resolved by the keymap, the reducers, then one frame drawn by ratatui into a
//! crossterm backend that writes to memory (the bytes a terminal would be sent).
//!
//! `cargo run --release --locked --features archive-examples --example archive_frames -- DIR [ROUNDS] [PAUSE_MS]` reads the
//! archive in DIR (made by `examples/archive_fill.rs`), opens the view at 140x45, and types the
//! measurement script's queries, `ROUNDS` times (3), `PAUSE_MS` apart (100, a typist's pace). It
//! prints the median and p95 of the reducers, the frame, and both, and the bytes per frame.
//! After each keystroke's frame, as the dashboard does, the rest of the list is read and its
//! count drawn (not timed).
mod common;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use gendash::app::init::Init;
use gendash::app::state::State;
use gendash::msg::{ArchiveReport, Msg};
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};
use ratatui_crossterm::CrosstermBackend;
use std::cell::Cell;
use std::io::Write;
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Counts the bytes a terminal would be sent.
struct Counted(Rc<Cell<usize>>);

impl Write for Counted {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.set(self.0.get() + buf.len());
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn press(state: &mut State, code: KeyCode) {
    let key = KeyEvent::new(code, KeyModifiers::NONE);
    if let Some(action) = state.keymap.resolve(&state.contexts(), &key) {
        state.update(action);
    }
}

fn quantiles(name: &str, unit: &str, mut v: Vec<f64>) {
    v.sort_by(f64::total_cmp);
    let at = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    println!(
        "{name:<14} n={} median {:.2} {unit}, p95 {:.2} {unit}, max {:.2} {unit}",
        v.len(),
        at(0.5),
        at(0.95),
        at(1.0)
    );
}

fn main() -> ExitCode {
    let (tasks, rounds, pause) = match common::archive_and_rounds("archive_frames", 100) {
        Ok(got) => got,
        Err(code) => return code,
    };
    let area = Rect::new(0, 0, 140, 45);
    let sent = Rc::new(Cell::new(0));
    let backend = CrosstermBackend::new(Counted(Rc::clone(&sent)));
    let Ok(mut term) = Terminal::with_options(
        backend,
        TerminalOptions {
            viewport: Viewport::Fixed(area),
        },
    ) else {
        eprintln!("archive_frames: no terminal");
        return ExitCode::FAILURE;
    };
    let table = Arc::new(gendash::msg::search_table(&tasks, 0));
    let (mut reduce, mut draw, mut both, mut bytes) = (vec![], vec![], vec![], vec![]);
    for _ in 0..rounds {
        let mut state = State::new(Init::default());
        state.update(gendash::app::action::Action::Resize {
            width: area.width,
            height: area.height,
        });
        press(&mut state, KeyCode::Tab);
        press(&mut state, KeyCode::Char('H'));
        state.apply(Msg::Archive(ArchiveReport::Listed(
            Arc::clone(&tasks),
            Arc::clone(&table),
        )));
        let _ = term.draw(|f| {
            gendash::ui::render(&state, f);
        });
        for q in common::QUERIES {
            press(&mut state, KeyCode::Char('/'));
            for c in q.chars() {
                std::thread::sleep(Duration::from_millis(pause));
                let t = Instant::now();
                press(&mut state, KeyCode::Char(c));
                let r = t.elapsed();
                sent.set(0);
                let _ = term.draw(|f| {
                    gendash::ui::render(&state, f);
                });
                let all = t.elapsed();
                reduce.push(r.as_secs_f64() * 1e3);
                draw.push(all.saturating_sub(r).as_secs_f64() * 1e3);
                both.push(all.as_secs_f64() * 1e3);
                bytes.push(sent.get() as f64 / 1e3);
                // As the dashboard does after a frame: the rest of the list, then its count.
                state.settle();
                let _ = term.draw(|f| {
                    gendash::ui::render(&state, f);
                });
            }
            press(&mut state, KeyCode::Enter);
            press(&mut state, KeyCode::Char('/'));
            state.update(gendash::app::action::Action::Paste(String::new()));
            for _ in 0..q.len() {
                press(&mut state, KeyCode::Backspace);
            }
            press(&mut state, KeyCode::Enter);
            let _ = term.draw(|f| {
                gendash::ui::render(&state, f);
            });
        }
    }
    quantiles("reducers", "ms", reduce);
    quantiles("frame", "ms", draw);
    quantiles("key to frame", "ms", both);
    quantiles("frame's bytes", "KB", bytes);
    ExitCode::SUCCESS
}
