//! Speed targets, measured (never asserted in tests):
//! - a keystroke in the fuzzy filter over 100,000 catalogue names, to the re-ranked list;
//! - one full frame with 100,000 entries loaded and 1,000 watched tasks, drawn on a blank screen
//!   (every cell written), one frame after a keystroke, and an unchanged frame (nothing written);
//! - decoding a 100,000-entry catalogue; one poll round trip over loopback.
//!
//! Besides criterion's statistics, `keystroke_percentiles` prints the median and p95 of single
//! keystrokes, the numbers docs/performance.md reports: before (every name re-ranked on the UI
//! loop) and now (the ranking on its worker, narrowing and reusing earlier rankings over both
//! cores).
#![allow(clippy::unwrap_used)]

use criterion::{BatchSize, Criterion, criterion_group};
use gendash::api::types::{Envelope, decode_catalogue, decode_task, default_failure_statuses};
use gendash::api::{Catalogue, LoraEntry, SearchText, TaskKind, TaskResult};
use gendash::app::action::Action;
use gendash::app::state::{State, UiSettings};
use gendash::cmd::{Cmd, RankJob, TaskKey};
use gendash::filter::{FuzzyFilter, Ranker};
use gendash::msg::Msg;
use gendash::store::watchlist::WatchEntry;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};
use ratatui_crossterm::CrosstermBackend;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

const WORDS: &[&str] = &[
    "anime",
    "cyber",
    "samurai",
    "elf",
    "ranger",
    "space",
    "pilot",
    "witch",
    "knight",
    "street",
    "pirate",
    "robot",
    "desert",
    "watercolor",
    "ink",
    "wash",
    "pixel",
    "art",
    "ukiyo",
    "nouveau",
    "vaporwave",
    "oil",
    "charcoal",
    "lowpoly",
    "clay",
    "floating",
    "islands",
    "neon",
    "rain",
    "clockwork",
    "crystal",
    "cave",
    "ruins",
    "solarpunk",
];

fn names(n: usize) -> Vec<String> {
    // Deterministic, varied names like a real catalogue's.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..n)
        .map(|i| {
            let mut parts = Vec::new();
            for _ in 0..3 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                parts.push(WORDS[(x % WORDS.len() as u64) as usize]);
            }
            format!("{}_v{}", parts.join("_"), i % 97)
        })
        .collect()
}

fn catalogue(n: usize) -> Catalogue {
    let entries = names(n)
        .into_iter()
        .map(|name| {
            let meta = serde_json::json!({"source": format!("https://lora-hub.example.com/models/{name}"), "type": "sdxl", "category": "style", "author": "bench"});
            LoraEntry::new(name, meta.as_object().unwrap())
        })
        .collect();
    Catalogue {
        entries,
        skipped: 0,
    }
}

fn loaded_state(n: usize, watched: usize) -> State {
    let statuses = default_failure_statuses();
    let watch = (0..watched)
        .map(|i| {
            WatchEntry::new(
                format!("task-{i:05}"),
                if i % 3 == 0 {
                    TaskKind::Video
                } else {
                    TaskKind::Image
                },
            )
        })
        .collect();
    let mut s = State::new(gendash::app::state::Init {
        service_url: "http://127.0.0.1:8787/".into(),
        categories: Vec::new(),
        watch,
        failure_statuses: statuses,
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
        width: 200,
        height: 60,
    });
    s.start();
    s.apply(Msg::Catalogue {
        generation: s.browser.generation,
        result: Ok(catalogue(n).into()),
    });
    for i in 0..watched {
        let status = ["IN_PROGRESS", "COMPLETED", "FAILED", "QUEUED"][i % 4];
        let kind = if i % 3 == 0 {
            TaskKind::Video
        } else {
            TaskKind::Image
        };
        let id = format!("task-{i:05}");
        let result = TaskResult {
            task_id: id.clone(),
            kind,
            status: status.into(),
            percent: (i % 101) as u8,
            total_tasks: Some(1),
            url_download: None,
            envelope: Envelope::default(),
            extra: None,
        };
        s.apply(Msg::Polled {
            key: TaskKey::new(kind, id),
            result: Ok(result),
            retry_in: None,
            next: None,
        });
    }
    s
}

const QUERY: &str = "watercolorink";

/// The keystrokes of one round: `QUERY` typed key by key, then erased.
fn round() -> impl Iterator<Item = Action> {
    QUERY
        .chars()
        .map(Action::Type)
        .chain(QUERY.chars().map(|_| Action::Backspace))
}

/// What one keystroke cost, split by where it runs.
struct Keystroke {
    /// The reducer asking for a ranking, then applying the answer: the UI loop's share.
    ui: Duration,
    /// The ranking itself, on the ranking worker (zero when the query became empty).
    ranking: Duration,
}

/// One keystroke as the dashboard handles it, the ranking done in this thread (the worker's
/// code path without the hand-over between threads).
fn keystroke(s: &mut State, ranker: &mut Ranker, action: Action) -> Keystroke {
    let t = Instant::now();
    let cmds = s.update(action);
    let mut ui = t.elapsed();
    let mut ranking = Duration::ZERO;
    for cmd in cmds {
        if let Cmd::Rank(RankJob {
            generation,
            query,
            text,
        }) = cmd
        {
            let t = Instant::now();
            let matches = ranker.rank(&query, &text);
            ranking += t.elapsed();
            let t = Instant::now();
            s.apply(Msg::Ranked {
                generation,
                matches,
            });
            ui += t.elapsed();
        }
    }
    black_box(s.browser.matches.first());
    Keystroke { ui, ranking }
}

/// Types `QUERY` key by key into the filter, then erases it.
fn type_and_erase(s: &mut State, ranker: &mut Ranker) -> Vec<Keystroke> {
    s.update(Action::FocusFilter);
    let times = round().map(|a| keystroke(s, ranker, a)).collect();
    s.update(Action::Cancel);
    times
}

/// Before: the reducer ranked every name again on the UI loop, one thread, every keystroke.
fn full_rankings(names: &[String], rounds: usize) -> Vec<Duration> {
    let mut f = FuzzyFilter::new();
    let mut query = String::new();
    let mut times = Vec::new();
    for _ in 0..rounds {
        for action in round() {
            match action {
                Action::Type(c) => query.push(c),
                _ => {
                    query.pop();
                }
            }
            let t = Instant::now();
            let matches: Vec<u32> = f
                .rank(&query, names.iter().map(String::as_str))
                .into_iter()
                .map(|r| r.index)
                .collect();
            black_box(matches.first());
            times.push(t.elapsed());
        }
    }
    times
}

fn print_percentiles(what: &str, mut times: Vec<Duration>) {
    times.sort();
    let pct = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize].as_secs_f64() * 1e3;
    println!(
        "  {what:<62} median {:.3} ms, p95 {:.3} ms, max {:.3} ms",
        pct(0.5),
        pct(0.95),
        pct(1.0)
    );
}

fn keystroke_percentiles() {
    const ROUNDS: usize = 10;
    let mut s = loaded_state(100_000, 0);
    println!(
        "filter keystrokes over 100,000 names: \"{QUERY}\" typed and erased {ROUNDS} times ({} keystrokes)",
        ROUNDS * 2 * QUERY.len()
    );
    print_percentiles(
        "before: every name re-ranked on the UI loop",
        full_rankings(&names(100_000), ROUNDS),
    );
    let mut ranker = Ranker::new();
    let session: Vec<Keystroke> = (0..ROUNDS)
        .flat_map(|_| type_and_erase(&mut s, &mut ranker))
        .collect();
    print_percentiles(
        "ranking on the worker, one ranker for the session",
        session.iter().map(|k| k.ranking).collect(),
    );
    print_percentiles(
        "  of which the typed keys",
        session
            .chunks(2 * QUERY.len())
            .flat_map(|round| &round[..QUERY.len()])
            .map(|k| k.ranking)
            .collect(),
    );
    // A new ranker each round: every round's first key ranks all the names, as after a reload.
    print_percentiles(
        "ranking on the worker, a new ranker each round",
        (0..ROUNDS)
            .flat_map(|_| type_and_erase(&mut s, &mut Ranker::new()))
            .map(|k| k.ranking)
            .collect(),
    );
    print_percentiles(
        "the UI loop's share (ask for the ranking, apply the answer)",
        session.iter().map(|k| k.ui).collect(),
    );
}

fn filter(c: &mut Criterion) {
    let mut s = loaded_state(100_000, 0);
    let mut ranker = Ranker::new();
    c.bench_function(
        "filter: type and erase 13 keys over 100k names (26 keystrokes, ranked as on the worker)",
        |b| b.iter(|| type_and_erase(&mut s, &mut ranker)),
    );
    s.update(Action::FocusFilter);
    c.bench_function(
        "filter: the UI loop's part of a keystroke over 100k names (a ranking asked for)",
        |b| {
            b.iter(|| {
                s.update(Action::Type('w'));
                s.update(Action::Backspace)
            });
        },
    );
    s.update(Action::Cancel);
    let mut f = FuzzyFilter::new();
    let names = names(100_000);
    c.bench_function(
        "filter: rank 100k names, fresh 3-letter query, one thread",
        |b| {
            b.iter(|| {
                f.rank(black_box("wcl"), names.iter().map(String::as_str))
                    .len()
            });
        },
    );
    let shared = Arc::new(SearchText::from_names(names.iter().map(String::as_str)));
    c.bench_function(
        "filter: rank 100k names, fresh 3-letter query, the ranker (all cores)",
        |b| {
            b.iter_batched_ref(
                Ranker::new,
                |r| r.rank(black_box("wcl"), &shared).len(),
                BatchSize::SmallInput,
            );
        },
    );
}

/// A field and operator query: metadata prefix, a negated field, a name alternative.
const FIELD_QUERY: &str = "author:^mak !license:mit ^pixel | ink$";

/// `n` entries whose metadata varies as a real catalogue's: a dozen authors, a few licenses
/// and base models.
fn entries_with_metadata(n: usize) -> Vec<LoraEntry> {
    const AUTHORS: &[&str] = &[
        "maker1",
        "brushwork",
        "nightshade",
        "c0smos",
        "Maker2",
        "pixelsmith",
        "inkwell",
        "makoto",
        "vapor",
        "clayhands",
        "lumen",
        "ruinous",
    ];
    const LICENSES: &[&str] = &["MIT", "Apache-2.0", "CreativeML Open RAIL-M", "openrail++"];
    const BASES: &[&str] = &["SD 1.5", "SD 2.1", "SDXL 1.0", "Pony", "Illustrious"];
    names(n)
        .into_iter()
        .enumerate()
        .map(|(i, name)| {
            let meta = serde_json::json!({
                "source": format!("https://lora-hub.example.com/models/{name}"),
                "type": "sdxl", "category": "style",
                "author": AUTHORS[i % AUTHORS.len()],
                "base_model": BASES[i % BASES.len()],
                "license": LICENSES[(i / 3) % LICENSES.len()],
                "trigger_words": ["one", "two"],
            });
            LoraEntry::new(name, meta.as_object().unwrap())
        })
        .collect()
}

fn filter_fields(c: &mut Criterion) {
    let entries: Arc<[LoraEntry]> = entries_with_metadata(100_000).into();
    c.bench_function(
        "filter: build the search text of 100k entries with metadata (once per load)",
        |b| {
            b.iter_batched(
                || SearchText::new(entries.clone()),
                |text| text.fields().keys().count(),
                BatchSize::LargeInput,
            );
        },
    );
    let text = Arc::new(SearchText::new(entries.clone()));
    text.fields();
    c.bench_function(
        "filter: rank 100k entries, field+operator query, the ranker (all cores)",
        |b| {
            b.iter_batched_ref(
                Ranker::new,
                |r| r.rank(black_box(FIELD_QUERY), &text).len(),
                BatchSize::SmallInput,
            );
        },
    );
    let mut f = FuzzyFilter::new();
    c.bench_function(
        "filter: rank 100k entries, field+operator query, one thread",
        |b| b.iter(|| f.rank_text(black_box(FIELD_QUERY), &text).len()),
    );
    // Typed key by key then erased: narrowing where the query provably matches no more.
    let mut ranker = Ranker::new();
    c.bench_function(
        "filter: type and erase the field+operator query over 100k entries (ranked as on the worker)",
        |b| {
            b.iter(|| {
                let mut q = String::new();
                for ch in FIELD_QUERY.chars() {
                    q.push(ch);
                    black_box(ranker.rank(&q, &text).len());
                }
                while q.pop().is_some() {
                    if !q.is_empty() {
                        black_box(ranker.rank(&q, &text).len());
                    }
                }
            });
        },
    );
}

const WIDTH: u16 = 200;
const HEIGHT: u16 = 60;

/// A terminal whose screen and back buffer are blank, as after start-up, a resize or `Ctrl-L`.
fn blank_terminal() -> Terminal<TestBackend> {
    Terminal::new(TestBackend::new(WIDTH, HEIGHT)).unwrap()
}

/// Draws `s` into a blank terminal per iteration (made outside the timing), so every iteration
/// renders the widgets and the diff writes every non-blank cell to the backend.
fn bench_blank_frame(c: &mut Criterion, name: &str, s: &State) {
    c.bench_function(name, |b| {
        b.iter_batched_ref(
            blank_terminal,
            |t| {
                t.draw(|f| {
                    gendash::ui::render(s, f);
                })
                .unwrap()
                .area
            },
            BatchSize::SmallInput,
        );
    });
}

fn render(c: &mut Criterion) {
    let mut s = loaded_state(100_000, 1_000);
    bench_blank_frame(
        c,
        "render: full frame on a blank screen, 100k models + 1k tasks, browser focused",
        &s,
    );

    // The same frame encoded by the backend the dashboard uses: escape sequences into a Vec.
    c.bench_function(
        "render: full frame on a blank screen, crossterm bytes, browser focused",
        |b| {
            b.iter_batched_ref(
                || {
                    let backend = CrosstermBackend::new(Vec::with_capacity(1 << 18));
                    let viewport = Viewport::Fixed(Rect::new(0, 0, WIDTH, HEIGHT));
                    Terminal::with_options(backend, TerminalOptions { viewport }).unwrap()
                },
                |t| {
                    t.draw(|f| {
                        gendash::ui::render(&s, f);
                    })
                    .unwrap()
                    .area
                },
                BatchSize::SmallInput,
            );
        },
    );

    // Two states one keystroke apart (the selection moved one row): drawing them in turn into
    // one terminal makes every iteration's diff write the cells that changed, as a key press does.
    let mut moved = loaded_state(100_000, 1_000);
    moved.update(Action::Down);
    let frame = |s: &State| {
        let mut t = blank_terminal();
        t.draw(|f| {
            gendash::ui::render(s, f);
        })
        .unwrap();
        t.backend().buffer().clone()
    };
    assert!(
        !frame(&s).diff(&frame(&moved)).is_empty(),
        "the two states must draw different frames"
    );
    let mut t = blank_terminal();
    let mut flip = false;
    c.bench_function(
        "render: changed frame, selection moved one row, 100k models + 1k tasks",
        |b| {
            b.iter(|| {
                flip = !flip;
                let state = if flip { &moved } else { &s };
                t.draw(|f| {
                    gendash::ui::render(state, f);
                })
                .unwrap()
                .area
            });
        },
    );
    drop(moved);

    // The same state redrawn: the widgets are rendered again, but the diff finds nothing to write.
    bench_redraw(
        c,
        "render: unchanged frame redrawn (nothing written), 100k models + 1k tasks",
        &mut t,
        &s,
    );

    s.update(Action::FocusFilter);
    for ch in "wtr".chars() {
        s.update(Action::Type(ch));
    }
    bench_blank_frame(
        c,
        "render: full frame on a blank screen, filtered with highlights",
        &s,
    );
    s.update(Action::Cancel);
    s.update(Action::FocusNext);
    s.update(Action::Bottom);
    bench_blank_frame(
        c,
        "render: full frame on a blank screen, watch list scrolled to the end",
        &s,
    );
}

/// The watch pane focused, the same frame redrawn: what the list's size costs a frame (its
/// title, columns and status bar read every row; the rows drawn are a screenful).
fn render_watch(c: &mut Criterion) {
    for tasks in [1_000, 10_000] {
        let mut w = loaded_state(1_000, tasks);
        w.update(Action::FocusNext);
        bench_redraw(
            c,
            &format!("render: unchanged frame redrawn, watch focused, {tasks} tasks"),
            &mut blank_terminal(),
            &w,
        );
    }
}

/// Draws `s` into `t` per iteration, the terminal kept: after the first, the diff writes nothing.
fn bench_redraw(c: &mut Criterion, name: &str, t: &mut Terminal<TestBackend>, s: &State) {
    c.bench_function(name, |b| {
        b.iter(|| {
            t.draw(|f| {
                gendash::ui::render(s, f);
            })
            .unwrap()
            .area
        });
    });
}

fn decode(c: &mut Criterion) {
    let cat = catalogue(100_000);
    let body = serde_json::to_vec(&serde_json::json!({"data": cat.entries})).unwrap();
    c.bench_function("decode: 100k-entry catalogue (sanitised)", |b| {
        b.iter(|| decode_catalogue(black_box(&body)).unwrap().entries.len());
    });
}

fn poll(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (svc, client) = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let token = gendash::api::Secret::new("bench");
        let svc =
            gendash::server::start(listener, gendash::server::Options::new(token.clone())).unwrap();
        let client = gendash::api::Client::new(&gendash::api::ClientOptions {
            base_url: svc.base_url(),
            token,
            request_timeout: Duration::from_secs(5),
            allow_insecure_http: false,
        })
        .unwrap();
        (svc, client)
    });
    c.bench_function("poll: one task-result round trip over loopback", |b| {
        b.iter(|| {
            rt.block_on(client.task_result(TaskKind::Image, "demo-image-done"))
                .unwrap()
                .percent
        });
    });
    drop(svc);
}

/// One poll answer as the dashboard handles it: the body decoded, the reducer applied, and the
/// frame drawn, with 100,000 models and 1,000 watched tasks loaded. The answer is for a row on
/// screen whose percent moves every time, so every iteration really redraws (the worst case:
/// an answer that changes nothing shown draws nothing).
fn poll_pipeline(c: &mut Criterion) {
    let mut s = loaded_state(100_000, 1_000);
    let mut t = blank_terminal();
    let id = "task-00001";
    let bodies: Vec<Vec<u8>> = (0..2)
        .map(|p| {
            serde_json::to_vec(&serde_json::json!({
                "data": {"data": {"task_id": id, "status": "IN_PROGRESS", "percent": 40 + p,
                                  "url_download": "", "total_tasks": 1},
                         "is_success": true},
                "start_time": "2026-11-22T08:00:00Z", "status": "ok"
            }))
            .unwrap()
        })
        .collect();
    let mut n = 0usize;
    c.bench_function(
        "poll pipeline: decode + reduce + frame per answer (100k models, 1k tasks)",
        |b| {
            b.iter(|| {
                n += 1;
                let result = decode_task(&bodies[n % 2], TaskKind::Image, id);
                s.apply(Msg::Polled {
                    key: TaskKey::new(TaskKind::Image, id),
                    result,
                    retry_in: None,
                    next: None,
                });
                assert!(s.dirty, "the answer changed a row on screen");
                t.draw(|f| {
                    gendash::ui::render(&s, f);
                })
                .unwrap();
                s.dirty = false;
            });
        },
    );
}

criterion_group!(
    benches,
    filter,
    filter_fields,
    render,
    render_watch,
    decode,
    poll,
    poll_pipeline
);

fn main() {
    keystroke_percentiles();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
