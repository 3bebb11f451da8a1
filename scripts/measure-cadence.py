#!/usr/bin/env python3
"""Measure gendash's polling cadence: requests per task and how soon a finished task is seen.

Build the release binary first; this script builds nothing:

    cargo build --release --locked
    python3 scripts/measure-cadence.py                          # today's cadence, 40 tasks
    python3 scripts/measure-cadence.py --adaptive off on        # fixed and adaptive, side by side
    python3 scripts/measure-cadence.py --tasks 100 --min-duration 60 --max-duration 600 \\
        --adaptive off on path/to/gendash                       # the long run

For each mode asked (`--adaptive`, default `unset`) it starts a fresh `gendash serve` on
127.0.0.1, adds N `timed-<D>-<i>` tasks to a private watch list (durations spread evenly from
--min-duration to --max-duration seconds, to the millisecond; a timed task runs D seconds of the service's clock
from its first lookup, whatever the polling, then answers COMPLETED), and runs the release
dashboard in a pseudo-terminal with `poll_interval` from --poll-interval and, for `on`/`off`,
`adaptive_polling = true/false` in its config (`unset` writes no such key: the binary of today
refuses it). It waits until the service has answered every task COMPLETED (bounded), quits the
dashboard with `q`, and reads the service's counts (`GET /_gendash/stats`):

- requests per task: every task-result request the service answered for that task;
- completion-seen delay: when the service first answered the task COMPLETED minus when the
  task's time ran out, both on the service's clock (ms), so the dashboard's own reading of the
  answer is the only thing not counted (under a millisecond on loopback).

It prints, per mode, the median and p95 (and max) of both, the total, and what a fixed cadence
costs in theory (D / poll_interval per task), as a Markdown table.

Only the Python 3 standard library is used. Linux only (/proc). Loopback only.
"""

import argparse
import os
import selectors
import shutil
import signal
import sys
import tempfile
import time

import harness as h

log = h.logger("measure-cadence")


def durations(n, lo, hi):
    """N durations spread evenly over [lo, hi), each off the whole seconds by a different
    fraction (golden-ratio steps, to the millisecond), so completions do not line up with a
    cadence of whole seconds."""
    return [round(lo + (hi - lo) * (i + (i * 0.6180339887) % 1.0) / n, 3) for i in range(n)]


def run_mode(binary, opts, mode, root, sel):
    env = h.private_env(os.path.join(root, mode), opts.path)
    h.write_config(env, h.config_lines(opts.poll_interval, mode, opts.max_concurrent_polls))
    ds = durations(opts.tasks, opts.min_duration, opts.max_duration)
    ids = [f"timed-{d:.3f}-{mode}-{i}" for i, d in enumerate(ds)]
    h.add_tasks(binary, env, ids)
    extra = ["--latency", opts.latency] if opts.latency else []
    svc = h.Service(binary, env, extra)
    dash = None
    try:
        env = dict(env, GENDASH_BASE_URL=svc.base, GENDASH_TOKEN=svc.token)
        dash = h.Dashboard(binary, env, sel)
        dash.wait_for(h.tasks_shown(len(ids)), opts.ready_timeout, "the watch list")
        log(f"  {mode}: {len(ids)} tasks on screen; waiting for every one to be answered "
            f"COMPLETED (at most {opts.max_duration + opts.grace:g} s)")
        end = time.monotonic() + opts.max_duration + opts.grace
        stats = svc.stats()
        while time.monotonic() < end:
            h.pump_for(sel, 1.0)
            if not dash.alive():
                raise h.Failed(f"the dashboard exited (status {dash.proc.poll()})")
            stats = svc.stats()
            seen = sum(1 for i in ids
                       if stats["tasks"].get(i, {}).get("finished_answered_ms") is not None)
            if seen == len(ids):
                break
        code = dash.quit()
        dash = None
        if code != 0:
            raise h.Failed(f"the dashboard did not quit cleanly on `q` (exit status {code})")
    finally:
        if dash is not None:
            dash.quit()
        svc.stop()
    requests, delays, missed = [], [], []
    theory = 0.0
    for i, d in zip(ids, ds):
        t = stats["tasks"].get(i)
        if t is None:
            missed.append(i)
            continue
        requests.append(t["requests"])
        theory += d / opts.poll_interval + 1
        if t.get("finished_answered_ms") is None:
            missed.append(i)
        else:
            delays.append((t["finished_answered_ms"] - t["finished_ms"]) / 1000.0)
    return {
        "mode": mode, "requests": requests, "delays": delays, "missed": missed,
        "theory": theory, "tasks": len(ids),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("binary", nargs="?", default=None,
                   help="the gendash binary (default: target/release/gendash in the repository)")
    h.add_dashboard_options(p, adaptive_runs=True)
    p.add_argument("--tasks", type=int, default=40, help="timed tasks (40)")
    p.add_argument("--min-duration", type=int, default=10,
                   help="shortest task, seconds of the service's clock (10)")
    p.add_argument("--max-duration", type=int, default=60,
                   help="longest task, seconds (60); the run lasts about this long per mode")
    p.add_argument("--latency", default=None,
                   help="gendash serve --latency, e.g. 20ms (default: none)")
    p.add_argument("--grace", type=float, default=45.0,
                   help="seconds after the longest task to wait for the last completions (45)")
    p.add_argument("--ready-timeout", type=float, default=30.0,
                   help="longest wait for the watch list on screen (30)")
    opts = p.parse_args()
    if opts.tasks < 1 or opts.poll_interval <= 0 or not (
            0 <= opts.min_duration <= opts.max_duration):
        p.error("--tasks must be positive, --poll-interval too, and "
                "0 <= --min-duration <= --max-duration")
    binary = h.resolve_binary(p, opts.binary)
    opts.path = os.environ.get("PATH", "/usr/bin:/bin")
    per_mode = opts.max_duration + opts.grace + opts.ready_timeout + 2 * h.QUIT_TIMEOUT + 60
    h.bound_run(per_mode * len(opts.adaptive), "the run")

    root = tempfile.mkdtemp(prefix="gendash-cadence-")
    sel = selectors.DefaultSelector()
    results, failures = [], 0
    try:
        for mode in opts.adaptive:
            log(f"mode adaptive_polling {mode}: {opts.tasks} tasks of {opts.min_duration}–"
                f"{opts.max_duration} s, poll_interval {opts.poll_interval:g} s")
            try:
                results.append(run_mode(binary, opts, mode, root, sel))
            except h.Failed as e:
                failures += 1
                log(f"mode {mode} FAILED: {e}")
                if "exceeded its" in str(e):
                    break
    finally:
        signal.alarm(0)
        sel.close()
        shutil.rmtree(root, ignore_errors=True)
    if not results:
        return 1

    label = {"unset": "the binary's default", "on": "adaptive_polling = true",
             "off": "adaptive_polling = false"}
    print("| cadence | tasks | requests | per task: median | p95 | fixed cadence in theory "
          "| completion seen after: median | p95 | max | not seen |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        req, dl = r["requests"], r["delays"]
        print(f"| {label[r['mode']]} | {r['tasks']} | {sum(req)} | {h.quantile(req, 0.5)} "
              f"| {h.quantile(req, 0.95)} | {r['theory']:.0f} "
              f"| {h.fmt_s(h.quantile(dl, 0.5))} | {h.fmt_s(h.quantile(dl, 0.95))} "
              f"| {h.fmt_s(max(dl) if dl else None)} | {len(r['missed'])} |")
    print()
    print(f"Measured by `scripts/measure-cadence.py` with {os.path.relpath(binary, h.REPO)}: "
          f"{opts.tasks} `timed-` tasks of {opts.min_duration}–{opts.max_duration} s, "
          f"poll_interval = {opts.poll_interval:g} s"
          + (f", service latency {opts.latency}" if opts.latency else "")
          + f"; counts from the service (`GET /_gendash/stats`); {os.cpu_count()} CPUs, "
          f"{h.cpu.cpu_model()}.")
    missed = sum(len(r["missed"]) for r in results)
    return 1 if failures or missed else 0


if __name__ == "__main__":
    sys.exit(main())
