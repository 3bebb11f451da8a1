#!/usr/bin/env python3
"""Measure how many polls gendash holds against a slow service and against one of limited capacity.

Build the release binary first; this script builds nothing:

    cargo build --release --locked
    python3 scripts/measure-throughput.py                     # every scenario, 30 s windows
    python3 scripts/measure-throughput.py --scenario latency --seconds 60 --adaptive off
    python3 scripts/measure-throughput.py --scenario capacity --capacity 100 path/to/gendash

Scenarios (each on a fresh `gendash serve` on 127.0.0.1 and a private home):

  latency   `gendash serve --latency 50ms` (--latency): every answer takes 50 ms. N `hold-<i>`
            tasks (1,000; they stay IN_PROGRESS forever) at `poll_interval` 2 s, so N / 2 polls
            a second are due. Reports the polls per second the service answered over the
            window (target of issue 19: at least 450 with 1,000 tasks and adaptive_polling off).
  capacity  `gendash serve --capacity 100` (--capacity): beyond 100 requests a second the
            service answers 429 with Retry-After. The same N tasks. Reports the requests per
            second served (200) and refused (429, and per minute), and the answer latency the
            dashboard sees (median, p95) against the unloaded one: the same service with
            --unloaded-tasks tasks (10) first.
  slow      plain `gendash serve`, the same N tasks of which --slow-tasks (50) answer in 2 s
            (`slow-2000-hold-<i>`). Reports the polls per second the healthy tasks get against
            the N - 50 / poll_interval due (issue 19: slow lookups must not starve the rest).

The dashboard runs in a 140x45 pseudo-terminal with the config `poll_interval`
(--poll-interval), and `adaptive_polling` only with --adaptive on|off (the binary of today
refuses the key: `unset`, the default, writes nothing), `max_concurrent_polls` only with
--max-concurrent-polls. Once every task is on screen, the service has been asked about every
task once and a settle time has passed, the service's counts (`GET /_gendash/stats`) are read
at the start and the end of the window; the answer latency is timed by a relay in this script between the dashboard and the service, from
a request line to the first bytes of its answer.

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

log = h.logger("measure-throughput")


def window(binary, opts, sel, root, name, serve_args, tasks, relay_latency=False, slow=0):
    """One dashboard run: N hold tasks (the last `slow` of them answering in 2 s) against
    `gendash serve SERVE_ARGS`; returns the counts over the window and the relay's latency
    samples."""
    env = h.private_env(os.path.join(root, name), opts.path)
    h.write_config(env, h.config_lines(opts.poll_interval, opts.adaptive,
                                       opts.max_concurrent_polls))
    ids = [f"hold-{name}-{i}" for i in range(tasks - slow)]
    healthy = list(ids)
    ids += [f"slow-2000-hold-{name}-{i}" for i in range(slow)]
    h.add_tasks(binary, env, ids)
    svc = h.Service(binary, env, serve_args)
    relay = dash = None
    try:
        base = svc.base
        if relay_latency:
            relay = h.TimingRelay(svc.address(), sel)
            base = f"http://127.0.0.1:{relay.port}/"
        env = dict(env, GENDASH_BASE_URL=base, GENDASH_TOKEN=svc.token)
        dash = h.Dashboard(binary, env, sel)
        ready_by = time.monotonic() + opts.ready_timeout
        dash.wait_for(h.tasks_shown(tasks), opts.ready_timeout, f"{tasks} tasks")
        # Every task asked at least once (answered or refused), as the service counts.
        while len(svc.stats()["tasks"]) < tasks:
            if time.monotonic() > ready_by:
                raise h.Failed(f"not every task was asked within {opts.ready_timeout:g} s")
            h.pump_for(sel, 0.5)
        h.pump_for(sel, opts.settle)
        if relay:
            relay.samples.clear()
        s0, t0, c0 = svc.stats(), time.monotonic(), h.cpu_ticks(dash.proc.pid)
        h.pump_for(sel, opts.seconds)
        s1, t1, c1 = svc.stats(), time.monotonic(), h.cpu_ticks(dash.proc.pid)
        if not dash.alive():
            raise h.Failed(f"the dashboard exited during the window ({dash.proc.poll()})")
        samples = list(relay.samples) if relay else []
        code = dash.quit()
        dash = None
        if code != 0:
            raise h.Failed(f"the dashboard did not quit cleanly on `q` (exit status {code})")
    finally:
        if dash is not None:
            dash.quit()
        if relay:
            relay.close()
        svc.stop()
    wall = t1 - t0
    status = lambda s, k: s["by_status"].get(k, 0)  # noqa: E731
    asked = lambda s, i: s["tasks"].get(i, {}).get("requests", 0)  # noqa: E731
    return {
        "wall": wall,
        "requests": s1["requests"] - s0["requests"],
        "ok": status(s1, "200") - status(s0, "200"),
        "refused": s1["refused"] - s0["refused"],
        "samples": samples,
        "cpu_ms": (c1 - c0) * 1000.0 / h.CLK_TCK,
        "healthy": sum(asked(s1, i) - asked(s0, i) for i in healthy),
        "healthy_tasks": len(healthy),
    }


def scenario_latency(binary, opts, sel, root):
    w = window(binary, opts, sel, root, "latency", ["--latency", opts.latency], opts.tasks)
    due = opts.tasks / opts.poll_interval
    rate = w["requests"] / w["wall"]
    return [
        ("service latency", opts.latency),
        ("polls due per second", f"{due:.0f}"),
        ("polls answered per second", f"**{rate:.0f}** ({w['requests']} in {w['wall']:.1f} s)"),
        ("dashboard CPU per poll", f"{w['cpu_ms'] / max(1, w['requests']):.3f} ms"),
    ]


def scenario_capacity(binary, opts, sel, root):
    args = ["--capacity", str(opts.capacity)]
    unloaded = window(binary, opts, sel, root, "unloaded", args, opts.unloaded_tasks, True)
    w = window(binary, opts, sel, root, "capacity", args, opts.tasks, True)
    per_s = lambda n: n / w["wall"]  # noqa: E731
    lat = lambda r, q: h.quantile(r["samples"], q)  # noqa: E731
    return [
        ("service capacity", f"{opts.capacity} requests/s"),
        ("polls due per second", f"{opts.tasks / opts.poll_interval:.0f}"),
        ("requests per second (all answers)", f"**{per_s(w['requests']):.0f}**"),
        ("served per second (200)", f"{per_s(w['ok']):.0f}"),
        ("refused (429) per minute", f"**{per_s(w['refused']) * 60:.0f}** "
                                     f"({w['refused']} in {w['wall']:.1f} s)"),
        ("answer latency, median / p95", f"{h.fmt_ms(lat(w, 0.5))} / {h.fmt_ms(lat(w, 0.95))} "
                                         f"({len(w['samples'])} answers timed)"),
        (f"unloaded ({opts.unloaded_tasks} tasks), median / p95",
         f"{h.fmt_ms(lat(unloaded, 0.5))} / {h.fmt_ms(lat(unloaded, 0.95))}"),
    ]


def scenario_slow(binary, opts, sel, root):
    w = window(binary, opts, sel, root, "slow", [], opts.tasks, slow=opts.slow_tasks)
    due = w["healthy_tasks"] / opts.poll_interval
    return [
        ("tasks answering in 2 s", f"{opts.slow_tasks} of {opts.tasks}"),
        ("healthy polls due per second", f"{due:.0f}"),
        ("healthy polls answered per second",
         f"**{w['healthy'] / w['wall']:.0f}** ({w['healthy']} in {w['wall']:.1f} s)"),
        ("all polls answered per second", f"{w['requests'] / w['wall']:.0f}"),
    ]


SCENARIOS = {"latency": scenario_latency, "capacity": scenario_capacity, "slow": scenario_slow}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("binary", nargs="?", default=None,
                   help="the gendash binary (default: target/release/gendash in the repository)")
    p.add_argument("--scenario", nargs="+", choices=list(SCENARIOS), default=list(SCENARIOS),
                   help="scenarios to run (default: all three)")
    p.add_argument("--tasks", type=int, default=1000, help="hold- tasks (1000)")
    h.add_dashboard_options(p)
    p.add_argument("--latency", default="50ms", help="the latency scenario's --latency (50ms)")
    p.add_argument("--capacity", type=int, default=100,
                   help="the capacity scenario's --capacity, requests/s (100)")
    p.add_argument("--slow-tasks", type=int, default=50,
                   help="tasks of the slow scenario answering in 2 s (`slow-2000-hold-`) (50)")
    p.add_argument("--unloaded-tasks", type=int, default=10,
                   help="tasks of the unloaded run the latency is compared with (10)")
    p.add_argument("--seconds", type=float, default=30.0, help="measurement window (30)")
    p.add_argument("--settle", type=float, default=5.0,
                   help="seconds between every task on screen and the window (5)")
    p.add_argument("--ready-timeout", type=float, default=60.0,
                   help="longest wait for every task on screen (60)")
    opts = p.parse_args()
    if opts.tasks < 1 or opts.poll_interval <= 0 or opts.seconds <= 0 or opts.capacity < 1:
        p.error("--tasks, --poll-interval, --seconds and --capacity must be positive")
    binary = h.resolve_binary(p, opts.binary)
    opts.path = os.environ.get("PATH", "/usr/bin:/bin")
    per_run = opts.ready_timeout + opts.settle + opts.seconds + 2 * h.QUIT_TIMEOUT + 60
    h.bound_run(per_run * 4 + 60 * (1 + opts.tasks // 500), "the run")

    root = tempfile.mkdtemp(prefix="gendash-throughput-")
    sel = selectors.DefaultSelector()
    rows, failures = [], 0
    try:
        for name in opts.scenario:
            log(f"scenario {name}: {opts.tasks} tasks, {opts.seconds:g} s window")
            try:
                rows.append((name, SCENARIOS[name](binary, opts, sel, root)))
            except h.Failed as e:
                failures += 1
                log(f"scenario {name} FAILED: {e}")
                if "exceeded its" in str(e):
                    break
    finally:
        signal.alarm(0)
        sel.close()
        shutil.rmtree(root, ignore_errors=True)
    if not rows:
        return 1
    print("| scenario | what | measured |")
    print("|---|---|---|")
    for name, figures in rows:
        for what, value in figures:
            print(f"| {name} | {what} | {value} |")
    print()
    print(f"Measured by `scripts/measure-throughput.py` with {os.path.relpath(binary, h.REPO)}: "
          f"{opts.tasks} `hold-` tasks, poll_interval = {opts.poll_interval:g} s, "
          f"adaptive_polling {opts.adaptive}"
          + (f", max_concurrent_polls = {opts.max_concurrent_polls}"
             if opts.max_concurrent_polls else "")
          + f", {opts.seconds:g} s windows; counts from the service (`GET /_gendash/stats`); "
          f"{os.cpu_count()} CPUs, {h.cpu.cpu_model()}.")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
