#!/usr/bin/env python3
"""The gallery (`P`) with many results: peak memory and how soon a key is answered while its
thumbnails load.

The release binary's dashboard runs in a pseudo-terminal against `gendash serve` with
`--results` finished image tasks (`sim-1-gNNNN`). Once all are done, the gallery is opened; then
End and Home are pressed in turn (each answered by a screen of other tiles, whose thumbnails
the worker starts on at once, so every key lands while thumbnails load), and each key's latency
is timed (harness.Dashboard.key_latency: from the write to the output that showed it). Then every
screen of the gallery is paged through, each until no tile says "loading…" (10 s at most: this
script's screen model does not draw sixel, so with --terminal sixel every screen waits the 10 s),
and the dashboard's peak resident set (VmHWM) read. Thumbnails kept on disk are counted at the end (their cap bounds
them).

    cargo build --release --locked
    python3 scripts/measure-gallery.py                       # 1,000 results, 140x45, half-blocks
    python3 scripts/measure-gallery.py --terminal sixel --cols 220 --rows 50

Only the Python 3 standard library is used. Linux only (/proc). Loopback only.
"""

import argparse
import os
import re
import selectors
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

log = harness.logger("measure-gallery")


def caption(i):
    return f"sim-1-g{i:04d}"


def peak_rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def kept_thumbnails(env):
    d = os.path.join(env["XDG_CACHE_HOME"], "gendash", "previews", "thumbnails")
    try:
        files = [os.path.join(d, f) for f in os.listdir(d) if f.endswith(".png")]
    except OSError:
        return 0, 0
    return len(files), sum(os.path.getsize(f) for f in files)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--binary", help="the gendash binary (target/release/gendash)")
    p.add_argument("--results", type=int, default=1000, help="finished image tasks (1000)")
    p.add_argument("--cols", type=int, default=140)
    p.add_argument("--rows", type=int, default=45)
    p.add_argument("--terminal", choices=["vt220", "sixel"], default="vt220",
                   help="how the pseudo-terminal answers: vt220 (half-blocks) or sixel")
    p.add_argument("--keys", type=int, default=20, help="End/Home presses timed (20)")
    opts = p.parse_args()
    binary = harness.resolve_binary(p, opts.binary)
    harness.bound_run(900, "the measurement")
    n = opts.results
    with tempfile.TemporaryDirectory(prefix="gendash-gallery-") as root:
        env = harness.private_env(root, os.environ.get("PATH", "/usr/bin:/bin"))
        harness.write_config(env, ["poll_interval = 0.5", "bell = false",
                                   "desktop_notifications = false"])
        harness.add_tasks(binary, env, [caption(i) for i in range(1, n + 1)])
        service = harness.Service(binary, env)
        sel = selectors.DefaultSelector()
        dash = None
        try:
            env = dict(env, GENDASH_BASE_URL=service.base, GENDASH_TOKEN=service.token)
            dash = harness.Dashboard(binary, env, sel, cols=opts.cols, rows=opts.rows)
            dash.out.terminal = opts.terminal
            done = f"{n:,} done"
            dash.wait_for(lambda t: done in t, 120, f"{n:,} tasks done")
            rss_list = peak_rss_mib(dash.proc.pid)
            os.write(dash.master, b"\t")
            harness.pump_for(sel, 0.3)
            latencies = [dash.key_latency(b"P", lambda t: "Gallery ·" in t)]
            first, last = caption(1), caption(n)
            for k in range(opts.keys):
                key, want = (b"G", last) if k % 2 == 0 else (b"g", first)
                latencies.append(dash.key_latency(key, lambda t, w=want: w in t))
            # Every screen, each waited for: every thumbnail is made once.
            pages = 0
            os.write(dash.master, b"g")
            dash.wait_for(lambda t: first in t, 10, "the first screen")
            shown, failed, waits, timed_out = set(), 0, [], 0
            while last not in shown and pages < n:
                # Each screen's thumbnails all come before the next (5 s at most a screen).
                t0 = time.monotonic()
                came = harness.pump_until(sel, lambda: "loading…" not in dash.text(), 10.0)
                waits.append(time.monotonic() - t0)
                timed_out += not came
                shown |= set(re.findall(r"sim-1-g\d{4}", dash.text()))
                failed += dash.text().count("no picture")
                if pages == 0 and failed:
                    log("a tile without a picture: " + " | ".join(
                        line.strip() for line in dash.text().splitlines() if "no picture" in line
                        or "(" in line)[:400])
                os.write(dash.master, b"\x1b[6~")  # PageDown
                # The next screen is drawn: a caption not seen yet (none after the last).
                harness.pump_until(sel, lambda: last in shown or any(
                    c not in shown for c in re.findall(r"sim-1-g\d{4}", dash.text())), 5.0)
                pages += 1
            harness.pump_for(sel, 2.0)
            peak = peak_rss_mib(dash.proc.pid)
        finally:
            if dash is not None:
                dash.quit()
            service.stop()
        count, size = kept_thumbnails(env)
    lat_ms = sorted(x * 1000 for x in latencies)
    print(f"gallery of {n:,} finished image results at {opts.cols}x{opts.rows}, "
          f"terminal {opts.terminal}, {binary}")
    print(f"  peak RSS (VmHWM): {peak:.1f} MiB after paging through all {pages} screens "
          f"({rss_list:.1f} MiB with the list only, before the gallery)")
    print(f"  key latency while thumbnails load ({len(lat_ms)} keys: P, then End/Home): "
          f"median {statistics.median(lat_ms):.1f} ms, max {lat_ms[-1]:.1f} ms")
    print(f"  each screen's thumbnails came in {statistics.median(waits):.2f} s (median), "
          f"{max(waits):.2f} s at most; {timed_out} screens not whole within 10 s")
    print(f"  thumbnails kept on disk: {count} files, {size / 1e6:.1f} MB; tiles that said "
          f"\"no picture\": {failed}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except harness.Failed as e:
        log(f"FAILED: {e}")
        sys.exit(1)
