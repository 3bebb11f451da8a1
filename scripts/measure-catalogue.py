#!/usr/bin/env python3
"""Measure a big catalogue in the dashboard: how long after the answer's last byte the list is
on screen, the peak RSS with it loaded, and whether keys are answered while it loads (the first
load, a type change, a reload).

    cargo build --release --locked
    python3 scripts/measure-catalogue.py --models 1000000            # target/release/gendash
    python3 scripts/measure-catalogue.py --models 100000 --catalogue /tmp/c.json path/to/gendash

The catalogue is made as measure-cpu.py's --models does (the embedded entries repeated with
numbered names; kept with --catalogue FILE: written once, reused after) and served by `gendash
serve --catalogue FILE`. The dashboard runs in a pseudo-terminal (measure-cpu.py's private
environment, screen and relay), talking to the service through a relay that notes when the
last byte of an answer passed. Then:

1. The first load: once the request is out, a key is typed into the filter every 0.25 s
   (`x`, then DEL) until "N models" is on the status bar. A key's latency is the time from
   writing it to the first output after it: the dashboard answering it. "list on screen" is
   the time from the answer's last byte (at the relay) to the count on the status bar.
2. `t` (type sd), the keys probed the same way until the answer has passed and the screen is
   quiet; then `t` `t` back to all types, and `r` (reload), probed the same way.
3. Peak RSS (VmHWM) after the first load and at the end; CPU (utime + stime) in all.

Every wait is bounded. Only the Python 3 standard library is used. Linux only (/proc).
"""

import argparse
import importlib.util
import os
import pty
import fcntl
import re
import selectors
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _load(name, file):
    spec = importlib.util.spec_from_file_location(name, os.path.join(REPO, "scripts", file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


mc = _load("measure_cpu", "measure-cpu.py")
PROBE_EVERY = 0.25
DEL = b"\x7f"


def log(msg):
    print(f"measure-catalogue: {msg}", file=sys.stderr, flush=True)


class AnswerRelay(mc.Relay):
    """The counting relay, also noting when bytes last came from the service and how many."""

    def __init__(self, upstream, sel):
        super().__init__(upstream, sel)
        self.last_down = 0.0
        self.down = 0

    def handle(self, sock):
        from_service = sock is not self.listener and sock not in self.tail
        before = time.monotonic()
        super().handle(sock)
        if from_service:
            self.last_down = before
            self.down += 1


def count_shown(text):
    m = re.search(r"(?<![0-9,])([1-9][0-9,]*) models\b", text)
    return int(m.group(1).replace(",", "")) if m else None


class Dash:
    def __init__(self, binary, env, opts, sel):
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", opts.rows, opts.cols, 0, 0))
        self.proc = subprocess.Popen([binary], stdin=slave, stdout=slave, stderr=slave, env=env,
                                     start_new_session=True, close_fds=True)
        os.close(slave)
        self.screen = mc.Screen(opts.cols, opts.rows)
        self.out = mc.PtyOutput(self.master, self.screen, sel, "vt220")
        self.sel = sel

    def key(self, data):
        """Writes `data`; returns ms until the first output after it (None: none in 5 s)."""
        last = self.out.read_at
        sent = time.monotonic()
        os.write(self.master, data)
        ok = mc.pump_until(self.sel, lambda: self.out.read_at > sent and self.out.read_at != last,
                           5.0)
        return (self.out.read_at - sent) * 1000.0 if ok else None

    def probe_until(self, done, timeout):
        """Types `x` and DEL in turn every PROBE_EVERY s until `done()`; their latencies."""
        lat, end, n = [], time.monotonic() + timeout, 0
        while not done() and time.monotonic() < end:
            lat.append(self.key(b"x" if n % 2 == 0 else DEL))
            n += 1
            mc.pump_until(self.sel, done, PROBE_EVERY)
        if n % 2 == 1:
            self.key(DEL)
        return lat

    def quiet(self, ms):
        """Pumps until no output came for `ms` (at most 60 s)."""
        mc.pump_until(self.sel, lambda: time.monotonic() - self.out.read_at > ms / 1000.0, 60.0)


def summary(lat):
    answered = [v for v in lat if v is not None]
    if not lat:
        return "no key typed (nothing to wait for)"
    missed = len(lat) - len(answered)
    med = statistics.median(answered) if answered else float("nan")
    return (f"{len(lat)} keys, median {med:.1f} ms, max {max(answered, default=float('nan')):.1f}"
            f" ms" + (f", {missed} unanswered within 5 s" if missed else ""))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("binary", nargs="?", default=os.path.join(REPO, "target/release/gendash"))
    p.add_argument("--models", type=int, default=1_000_000)
    p.add_argument("--catalogue", help="the catalogue file (written if missing)")
    p.add_argument("--cols", type=int, default=140)
    p.add_argument("--rows", type=int, default=45)
    p.add_argument("--timeout", type=float, default=300.0, help="bound on each load (300 s)")
    opts = p.parse_args()
    mc.SERVE_TIMEOUT = max(getattr(mc, "SERVE_TIMEOUT", 10), opts.timeout)
    root = tempfile.mkdtemp(prefix="measure-catalogue-")
    env = mc.private_env(root, os.environ.get("PATH", "/usr/bin:/bin"))
    catalogue = opts.catalogue or os.path.join(root, "catalogue.json")
    if not os.path.exists(catalogue):
        log(f"writing {opts.models:,} entries to {catalogue}")
        mc.write_catalogue(opts.binary, env, catalogue, opts.models)
    log("starting the service")
    serve, base, token = mc.start_service(opts.binary, env, catalogue)
    sel = selectors.DefaultSelector()
    relay = dash = None
    try:
        relay = AnswerRelay(addr_of(base), sel)
        path = re.sub(r"^http://[^/]+", "", base)
        env = dict(env, GENDASH_BASE_URL=f"http://127.0.0.1:{relay.port}{path}",
                   GENDASH_TOKEN=token)
        dash = Dash(opts.binary, env, opts, sel)
        started = time.monotonic()
        if not mc.pump_until(sel, lambda: "LoRA models" in dash.screen.text(), 10.0):
            raise mc.Failed("no first frame within 10 s")
        dash.key(b"/")
        n = opts.models
        shown_at = [None]

        def shown():
            if shown_at[0] is None and count_shown(dash.screen.text()) == n:
                shown_at[0] = time.monotonic()
            return shown_at[0] is not None

        lat = dash.probe_until(shown, opts.timeout)
        if not shown():
            raise mc.Failed(f"{n} models not on screen within {opts.timeout:g} s")
        after_last = shown_at[0] - relay.last_down
        print(f"first load: {n:,} models on screen {shown_at[0] - started:.2f} s after start, "
              f"{after_last:.2f} s after the answer's last byte; keys meanwhile: {summary(lat)}")
        dash.key(b"\x1b")
        dash.quiet(500)
        print(f"peak RSS after the first load: {mc.peak_rss_mib(dash.proc.pid):.1f} MiB")
        for label, keys in (("type sd", b"t"), ("back to all types", b"tt"), ("reload", b"r")):
            down0 = relay.down
            t0 = time.monotonic()
            dash.key(keys)
            dash.key(b"/")
            done_at = [None]

            # Loaded: the answer passed and the title no longer says "loading…".
            def settled():
                text = dash.screen.text()
                if done_at[0] is None and relay.down > down0 and "loading…" not in text \
                        and count_shown(text) is not None:
                    done_at[0] = time.monotonic()
                return done_at[0] is not None
            lat = dash.probe_until(settled, opts.timeout)
            dash.key(b"\x1b")
            dash.quiet(300)
            if done_at[0] is None:
                raise mc.Failed(f"{label}: not loaded within {opts.timeout:g} s")
            print(f"{label}: answer's last byte {relay.last_down - t0:.2f} s after the key, list "
                  f"on screen {done_at[0] - relay.last_down:.2f} s after it; keys meanwhile: "
                  f"{summary(lat)}; count shown {count_shown(dash.screen.text()):,}")
        rss = mc.peak_rss_mib(dash.proc.pid)
        cpu = mc.cpu_ticks(dash.proc.pid) * 1000.0 / os.sysconf("SC_CLK_TCK")
        print(f"peak RSS {rss:.1f} MiB; CPU {cpu:.0f} ms in all")
    finally:
        if dash is not None:
            if dash.proc.poll() is None:
                try:
                    os.write(dash.master, b"\x1bq")
                except OSError:
                    pass
                mc.pump_until(sel, lambda: dash.proc.poll() is not None, 10.0)
            mc.stop(dash.proc, signal.SIGTERM)
        if relay is not None:
            relay.close()
        mc.stop(serve, signal.SIGINT)


def addr_of(base):
    m = re.match(r"http://([^:/]+):(\d+)", base)
    return (m.group(1), int(m.group(2)))


if __name__ == "__main__":
    try:
        main()
    except mc.Failed as e:
        log(f"failed: {e}")
        sys.exit(1)
