#!/usr/bin/env python3
"""Measure the archive view at scale (issue 20: 100,000 archived tasks open the view within
100 ms, and filter within 5 ms p95 per keystroke).

Build the release binary and the filler first; this script builds nothing:

    cargo build --release --locked --bin gendash --example archive_fill --features archive-examples
    python3 scripts/measure-archive.py                  # 100,000 tasks, 10 openings, 5 queries
    python3 scripts/measure-archive.py --count 10000 --opens 20 path/to/gendash

It makes a private data directory (GENDASH_DATA_DIR) holding an archive of --count tasks
written by `examples/archive_fill.rs`, starts `gendash serve` on loopback and the release
dashboard against it in a pseudo-terminal (140x45 unless --cols/--rows), waits for its first
frame and for the archiver's first read of the list (it reads it shortly after the start, so the
first opening finds it ready; --settle), then:

  open    presses Tab (the watch list has the keys) and `H`, and times the key to the frame
          that shows the list: the title's `Archive · 100,000 tasks` with a `fill-` row on
          screen; then Esc and `H` again, --opens times in all.
  filter  in the open view, `/`, then each query of --queries typed one key at a time; each
          keystroke is timed from the write to the frame that shows the query so far on the
          filter line (the list under it is drawn in the same frame), --pause apart (the
          dashboard draws at most one frame per 16 ms: keys typed faster than that share
          frames, which would time the frame pacing, not the filter). Ctrl-U clears the field
          between queries. The first keystroke of the first query with a `key:value` term
          pays once for the fields' text (dates formatted for 100,000 tasks).

The times include the pseudo-terminal's round trip and the frame's drawing: they are what a
user waits for. The figures are min / median / p95 / max. Only the Python 3 standard library
is used. Linux only. Loopback only. The whole run is bounded (--max-total).
"""

import argparse
import os
import re
import selectors
import shutil
import subprocess
import sys
import tempfile
import time

import importlib.util

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("harness", os.path.join(HERE, "harness.py"))
h = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(h)

log = h.logger("measure-archive")

DEFAULT_QUERIES = ["cat", "label:sunset", "status:failed", "fill-99", "!kind:video neon"]


def fill(filler, data_dir, count, files):
    t0 = time.monotonic()
    r = subprocess.run([filler, "--data-dir", data_dir, "--count", str(count), "--files", files],
                       capture_output=True, timeout=600, stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        raise h.Failed(f"archive_fill exited {r.returncode}: "
                       f"{r.stderr.decode(errors='replace').strip()}")
    log(f"archive of {count:,} tasks written in {time.monotonic() - t0:.1f} s")
    return r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace")


def figures(name, values):
    q = h.quantile
    return (f"{name:<28} n={len(values):<4} min {h.fmt_ms(min(values))}  "
            f"median {h.fmt_ms(q(values, 0.5))}  p95 {h.fmt_ms(q(values, 0.95))}  "
            f"max {h.fmt_ms(max(values))}")


def filter_line(text):
    """The archive's filter line: the screen's second row, inside the border."""
    rows = text.splitlines()
    return rows[1] if len(rows) > 1 else ""


class InsideLog:
    """The dashboard's own "input to frame" times, from its `-vv` log."""

    def __init__(self, path):
        self.path, self.offset = path, 0
        # The reducers' share of each frame read by `frames` ("handled … ms"), in order.
        self.handled = []

    def _new(self):
        try:
            with open(self.path, encoding="utf-8", errors="replace") as f:
                f.seek(self.offset)
                text = f.read()
                self.offset = f.tell()
        except FileNotFoundError:
            return ""
        return text

    def skip(self):
        text = self._new()
        if os.environ.get("MEASURE_ARCHIVE_LOG"):
            sys.stderr.write(text)

    def frames(self):
        """The times (s) of the frames logged since the last call."""
        text = self._new()
        if os.environ.get("MEASURE_ARCHIVE_LOG"):
            sys.stderr.write(text)
        found = re.findall(r"input to frame ([0-9.]+) ms: handled ([0-9.]+) ms", text)
        self.handled += [float(handled) / 1000.0 for _, handled in found]
        return [float(total) / 1000.0 for total, _ in found]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("binary", nargs="?", help="the gendash binary (target/release/gendash)")
    p.add_argument("--filler", help="the archive_fill example (target/release/examples/)")
    p.add_argument("--count", type=int, default=100_000, help="archived tasks (100000)")
    p.add_argument("--opens", type=int, default=10, help="openings timed (10)")
    p.add_argument("--queries", nargs="+", default=DEFAULT_QUERIES,
                   help="queries typed key by key")
    p.add_argument("--settle", type=float, default=3.0,
                   help="seconds after the first frame before the first `H` (3)")
    p.add_argument("--pause", type=float, default=0.1,
                   help="seconds between keystrokes (0.1): more than the dashboard's 16 ms "
                        "between frames, so no keystroke waits for the frame before it")
    p.add_argument("--config", nargs="*", default=[], metavar="LINE",
                   help="lines for the dashboard's config file, e.g. 'image_preview = \"off\"' "
                        "(to see what the picture preview costs a keystroke)")
    p.add_argument("--moves", type=int, default=40,
                   help="j/k presses timed as the control, a key that filters nothing (40)")
    p.add_argument("--cols", type=int, default=140)
    p.add_argument("--rows", type=int, default=45)
    p.add_argument("--max-total", type=float, default=900.0)
    a = p.parse_args()
    binary = h.resolve_binary(p, a.binary)
    filler = a.filler or os.path.join(h.REPO, "target", "release", "examples", "archive_fill")
    if not os.access(filler, os.X_OK):
        p.error(f"{filler} is not an executable; run `cargo build --release --locked "
                f"--example archive_fill --features archive-examples` first")
    h.bound_run(a.max_total, "measure-archive")
    root = tempfile.mkdtemp(prefix="gendash-archive-")
    service = dash = None
    try:
        env = h.private_env(root, os.environ.get("PATH", "/usr/bin:/bin"))
        data_dir = os.path.join(root, "data", "gendash")
        os.makedirs(data_dir, mode=0o700, exist_ok=True)
        env["GENDASH_DATA_DIR"] = data_dir
        if a.config:
            h.write_config(env, a.config)
        # `-vv` logs each input's time inside the dashboard ("input to frame … ms"), read back
        # after each keystroke to tell the dashboard's share from the pseudo-terminal's.
        log_path = os.path.join(root, "gendash.log")
        env["GENDASH_LOG_FILE"] = log_path
        inside = InsideLog(log_path)
        service = h.Service(binary, env)
        # The tasks' download URLs are the service's files: a selected row's preview fetches a
        # real picture over loopback, as a user's archive would from the service.
        filled = fill(filler, data_dir, a.count, service.base.rstrip("/") + "/files")
        env = dict(env, GENDASH_BASE_URL=service.base.rstrip("/"), GENDASH_TOKEN=service.token)
        sel = selectors.DefaultSelector()
        dash = h.Dashboard(binary, env, sel, cols=a.cols, rows=a.rows, argv=("-vv",))
        dash.wait_for(lambda t: "models" in t, 15, "the first frame")
        h.pump_for(sel, a.settle)
        os.write(dash.master, b"\t")
        h.pump_for(sel, 0.3)
        title = f"Archive · {a.count:,} tasks"
        shown = lambda t: title in t and "fill-" in t
        closed = lambda t: "Archive ·" not in t
        opens = []
        for _ in range(a.opens):
            opens.append(dash.key_latency(b"H", shown, timeout=10))
            h.pump_for(sel, 0.2)
            dash.key_latency(b"\x1b", closed, timeout=10)
            h.pump_for(sel, 0.2)
        dash.key_latency(b"H", shown, timeout=10)
        h.pump_for(sel, 0.2)
        # The control: a key that filters nothing (the selection moves down, then up: two rows
        # and the detail change). What it takes is this machine's and the terminal's floor.
        moves, moves_inside = [], []
        for n in range(a.moves):
            before = dash.text()
            inside.skip()
            moves.append(dash.key_latency(b"j" if n % 2 == 0 else b"k",
                                          lambda s, before=before: s != before, timeout=10))
            moves_inside += inside.frames()
            h.pump_for(sel, a.pause)
        keys, keys_inside, per_query = [], [], []
        inside.handled = []
        for query in a.queries:
            os.write(dash.master, b"/\x15")
            h.pump_for(sel, 0.3)
            these = []
            for n in range(1, len(query) + 1):
                typed = query[:n]
                inside.skip()
                t = dash.key_latency(query[n - 1].encode(),
                                     lambda s, typed=typed: f"/ {typed}▏" in filter_line(s),
                                     timeout=10)
                these.append(t)
                keys_inside += inside.frames()
                h.pump_for(sel, a.pause)
            h.pump_for(sel, 0.2)
            line = next((r for r in dash.text().splitlines() if "Archive ·" in r), "")
            per_query.append((query, these, line.strip("┌─┐ ")))
            keys += these
            os.write(dash.master, b"\r")
            h.pump_for(sel, 0.2)
        keys_handled = inside.handled
        rss, huge = dash.rss_mib(), dash.huge_mib()
        os.write(dash.master, b"\x1b")
        h.pump_for(sel, 0.2)
        code = dash.quit()
        dash = None
        print(f"archive of {a.count:,} tasks, release binary, {a.cols}x{a.rows} pty "
              f"(RSS {rss:.0f} MiB with the view open, {huge:.0f} MiB of it on huge pages; "
              f"exit status {code})")
        for line in filled.strip().splitlines():
            print(f"  archive_fill: {line}")
        print(figures("open (H to the list drawn)", opens))
        print(figures("filter, per keystroke", keys))
        print(figures("  inside the dashboard", keys_inside))
        if keys_handled:
            print(figures("    of which the reducer", keys_handled))
        if moves:
            print(figures("control: j/k (no filtering)", moves))
        if moves_inside:
            print(figures("  inside the dashboard", moves_inside))
        for query, these, title_line in per_query:
            print(f"  {query!r:<22} {' '.join(f'{t * 1000:.1f}' for t in these)} ms  "
                  f"→ {title_line}")
        ok_open = h.quantile(opens, 0.5) <= 0.100
        ok_keys = h.quantile(keys, 0.95) <= 0.005
        print(f"targets: open within 100 ms: {'met' if ok_open else 'NOT met'} (median); "
              f"filter within 5 ms p95: {'met' if ok_keys else 'NOT met'}")
        return 0
    except h.Failed as e:
        print(f"measure-archive: {e}", file=sys.stderr)
        return 1
    finally:
        if dash is not None:
            dash.quit()
        if service is not None:
            service.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
