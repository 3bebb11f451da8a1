//! The filter's keystrokes over a big catalogue, ranked as the dashboard's ranking worker ranks
//! them: the first typing round of a query (later rounds reuse the rankings kept), each key's
//! wall time, and the CPU time of the keys that narrow the most (by default `wa` and `wat`, the
//! million's slowest), so that a change is judged by figures the machine's load moves little.
//!
//! ```text
//! cargo bench --bench million_keys -- CATALOGUE.json [REPEATS] [KEYS]
//! ```
//!
//! CATALOGUE.json is a catalogue file as `gendash serve --catalogue` serves it (a JSON array of
//! entries: `scripts/perf-compare.py --lean --models 1000000` writes one); it is decoded as the
//! dashboard decodes an answer, so the entries lie in memory as they would. KEYS (default `2,3`)
//! are the query lengths measured. With `GENDASH_PERF_CTL=FIFO` the bench writes `enable` and
//! `disable` to a `perf stat --control fifo:FIFO --delay=-1` around them, so perf counts only
//! those rankings:
//!
//! ```text
//! mkfifo /tmp/ctl; GENDASH_PERF_CTL=/tmp/ctl perf stat -e instructions,task-clock \
//!   --control fifo:/tmp/ctl --delay=-1 target/release/deps/million_keys-* CATALOGUE.json
//! ```
#![allow(clippy::unwrap_used)]

use gendash::api::types::decode_catalogue_from;
use gendash::api::{Listing, SearchText};
use gendash::filter::Ranker;
use std::io::{Read, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

const QUERY: &str = "watercolorlit";

/// The process's CPU time (user + system, all threads, ended ones included), in clock ticks.
fn cpu_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command's closing parenthesis; utime and stime are the 12th and 13th.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    field(11) + field(12)
}

/// `perf stat`'s control fifo, when one is given.
struct PerfControl(Option<std::fs::File>);

impl PerfControl {
    fn open() -> Self {
        PerfControl(
            std::env::var_os("GENDASH_PERF_CTL")
                .map(|p| std::fs::OpenOptions::new().write(true).open(p).unwrap()),
        )
    }

    fn say(&mut self, what: &str) {
        if let Some(f) = &mut self.0 {
            writeln!(f, "{what}").unwrap();
            f.flush().unwrap();
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let Some(path) = args.first() else {
        eprintln!("usage: million_keys CATALOGUE.json [REPEATS] [KEYS, e.g. 2,3]");
        return;
    };
    let repeats: usize = args.get(1).map_or(5, |r| r.parse().unwrap());
    let measured: Vec<usize> = args.get(2).map_or_else(
        || vec![2, 3],
        |k| k.split(',').map(|n| n.parse().unwrap()).collect(),
    );
    let started = Instant::now();
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let body = b"{\"data\":".chain(file).chain(&b"}"[..]);
    let listing = Listing::from(decode_catalogue_from(body).unwrap());
    // As the dashboard holds it (names in one block past `NAMES_TOGETHER_FROM` entries), or,
    // with GENDASH_BENCH_PLAIN set, as read from the entries themselves.
    let text = if std::env::var_os("GENDASH_BENCH_PLAIN").is_some() {
        Arc::new(SearchText::new(listing.entries.clone()))
    } else {
        listing.text.clone()
    };
    eprintln!(
        "decoded {} entries in {:.1} s, names in one block: {}",
        text.len(),
        started.elapsed().as_secs_f64(),
        text.names_together()
    );
    let mut perf = PerfControl::open();
    let mut walls = vec![Vec::new(); QUERY.len()];
    let mut counts = vec![0; QUERY.len()];
    let (mut ticks, mut measured_wall) = (0, Duration::ZERO);
    for _ in 0..repeats {
        let mut ranker = Ranker::new();
        for len in 1..=QUERY.len() {
            let counted = measured.contains(&len);
            if counted {
                perf.say("enable");
            }
            let before = cpu_ticks();
            let t = Instant::now();
            let matches = ranker.rank(&QUERY[..len], &text);
            let wall = t.elapsed();
            if counted {
                ticks += cpu_ticks() - before;
                measured_wall += wall;
                perf.say("disable");
            }
            walls[len - 1].push(wall);
            counts[len - 1] = matches.len();
        }
    }
    println!("key            matches   wall median   wall min  ({repeats} repeats)");
    for (len, w) in walls.iter_mut().enumerate() {
        w.sort_unstable();
        println!(
            "{:<13} {:>9}   {:>8.2} ms {:>8.2} ms{}",
            &QUERY[..=len],
            counts[len],
            w[w.len() / 2].as_secs_f64() * 1000.0,
            w[0].as_secs_f64() * 1000.0,
            if measured.contains(&(len + 1)) {
                "  *"
            } else {
                ""
            }
        );
    }
    let per = (repeats * measured.len()) as f64;
    println!(
        "* measured: CPU {:.1} ms per ranking (utime+stime, 10 ms ticks), wall {:.1} ms",
        ticks as f64 * 10.0 / per,
        measured_wall.as_secs_f64() * 1000.0 / per
    );
}
