"""Shared by scripts/measure-cadence.py, scripts/measure-throughput.py and scripts/soak.py: the
release binary's dashboard in a pseudo-terminal against `gendash serve` with its measuring
switches (`--latency`, `--capacity`), and the service's request counts (`GET /_gendash/stats`,
docs/reference-service.md).

The pseudo-terminal, the screen model, the counting relay, /proc readings and the private
environment are scripts/measure-cpu.py's, loaded from that file (its name has a hyphen, so it is
loaded by path). Only the Python 3 standard library is used. Linux only (/proc). Loopback only.
"""

import fcntl
import importlib.util
import json
import math
import os
import pty
import re
import select
import signal
import socket
import struct
import subprocess
import sys
import termios
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

_spec = importlib.util.spec_from_file_location("measure_cpu", os.path.join(HERE, "measure-cpu.py"))
cpu = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cpu)

Failed = cpu.Failed
Screen = cpu.Screen
PtyOutput = cpu.PtyOutput
private_env = cpu.private_env
stop = cpu.stop
run_cli = cpu.run_cli
pump = cpu.pump
pump_for = cpu.pump_for
pump_until = cpu.pump_until
tasks_shown = cpu.tasks_shown
models_loaded = cpu.models_loaded
cpu_ticks = cpu.cpu_ticks
CLK_TCK = cpu.CLK_TCK
QUIT_TIMEOUT = cpu.QUIT_TIMEOUT
SERVE_TIMEOUT = cpu.SERVE_TIMEOUT


def logger(name):
    def log(msg):
        print(f"{name}: {msg}", file=sys.stderr, flush=True)
    return log


def resolve_binary(parser, binary):
    binary = os.path.abspath(binary or os.path.join(REPO, "target", "release", "gendash"))
    if not os.access(binary, os.X_OK):
        parser.error(f"{binary} is not an executable; run `cargo build --release --locked` first")
    return binary


def bound_run(seconds, what):
    """Raises Failed if the whole run takes longer than `seconds`."""
    seconds = int(seconds) + 1

    def alarm(_sig, _frame):
        raise Failed(f"{what} exceeded its {seconds} s bound")

    signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)


# --- the service ----------------------------------------------------------------------------


class Service:
    """`gendash serve` on a free loopback port with `extra` arguments (`--latency 50ms`,
    `--capacity 100`), and its request counts."""

    def __init__(self, binary, env, extra=()):
        self.proc = subprocess.Popen(
            [binary, "serve", "--addr", "127.0.0.1:0", *extra],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        buf, lines = b"", []
        end = time.monotonic() + SERVE_TIMEOUT
        self.base = self.token = None
        while time.monotonic() < end and self.base is None:
            r, _, _ = select.select([self.proc.stdout], [], [], 0.1)
            if r:
                chunk = os.read(self.proc.stdout.fileno(), 4096)
                if not chunk:
                    break
                buf += chunk
                *done, buf = buf.split(b"\n")
                lines += [d.decode(errors="replace") for d in done]
                for line in lines:
                    m = re.search(r"export GENDASH_BASE_URL=(\S+) GENDASH_TOKEN=([^\s;]+)", line)
                    if m:
                        self.base, self.token = m.group(1), m.group(2)
            elif self.proc.poll() is not None:
                break
        if self.base is None:
            err = b""
            if self.proc.poll() is not None:
                err = self.proc.stderr.read()
            stop(self.proc, signal.SIGINT)
            raise Failed(f"`gendash serve {' '.join(extra)}` did not start: {lines!r} "
                         f"{err.decode(errors='replace').strip()}")
        if not self.base.endswith("/"):
            self.base += "/"
        self.extra = list(extra)

    def address(self):
        host, port = re.match(r"http://([^:/]+):(\d+)", self.base).groups()
        return host, int(port)

    def stats(self):
        """`GET /_gendash/stats`: what the service has answered so far."""
        req = urllib.request.Request(self.base + "_gendash/stats",
                                     headers={"Authorization": f"Bearer {self.token}"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.load(r)

    def stop(self):
        stop(self.proc, signal.SIGINT)


# --- the dashboard --------------------------------------------------------------------------


def write_config(env, lines):
    """The private config file, with `lines` (`key = value`)."""
    config_dir = os.path.join(env["XDG_CONFIG_HOME"], "gendash")
    os.makedirs(config_dir, mode=0o700, exist_ok=True)
    path = os.path.join(config_dir, "config.toml")
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write("".join(f"{line}\n" for line in lines))
    return path


def add_dashboard_options(p, adaptive_runs=False):
    """The dashboard's config options every measurement takes: `--poll-interval`,
    `--adaptive` (several runs side by side when `adaptive_runs`) and `--max-concurrent-polls`."""
    p.add_argument("--poll-interval", type=float, default=2.0,
                   help="poll_interval in the dashboard's config, seconds (2)")
    what = ("adaptive_polling in the config: on, off, or unset (no key written: the binary's "
            "default, on; the only choice for a binary older than the key)")
    if adaptive_runs:
        p.add_argument("--adaptive", nargs="+", choices=["unset", "on", "off"],
                       default=["unset"],
                       help=what + "; several run one after the other, side by side in the "
                                   "table (default: unset)")
    else:
        p.add_argument("--adaptive", choices=["unset", "on", "off"], default="unset",
                       help=what + " (default: unset)")
    p.add_argument("--max-concurrent-polls", type=int, default=None,
                   help="max_concurrent_polls in the config (default: not written)")


def config_lines(poll_interval, adaptive, max_concurrent_polls=None, more=()):
    """The config for a run. `adaptive` is "on", "off" or "unset": the binary of today knows no
    `adaptive_polling` key (an unknown key is an error), so it is written only when asked."""
    lines = [f"poll_interval = {poll_interval:g}"]
    if adaptive == "on":
        lines.append("adaptive_polling = true")
    elif adaptive == "off":
        lines.append("adaptive_polling = false")
    if max_concurrent_polls:
        lines.append(f"max_concurrent_polls = {max_concurrent_polls}")
    return lines + list(more)


def add_tasks(binary, env, ids):
    """`gendash watch add` of every ID (500 per call), before the service is known: the entries
    adopt the service the dashboard is started with."""
    for k in range(0, len(ids), 500):
        run_cli(binary, ["watch", "add", *ids[k : k + 500]], env)


def watch_list(binary, env):
    """`gendash watch list --json`: the watch list file as the CLI reads it."""
    r = subprocess.run([binary, "watch", "list", "--json"], env=env, capture_output=True,
                       timeout=cpu.CLI_TIMEOUT, stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        raise Failed(f"`gendash watch list --json` exited {r.returncode}: "
                     f"{r.stderr.decode(errors='replace').strip()}")
    out = r.stdout.decode()
    text = out.strip()
    if text.startswith("["):
        return json.loads(text)
    return [json.loads(line) for line in out.splitlines() if line.strip()]


class Dashboard:
    """The dashboard in a pseudo-terminal (`cols` x `rows`), its output read continuously into
    a Screen by the selector `sel`."""

    def __init__(self, binary, env, sel, cols=140, rows=45, argv=()):
        self.sel = sel
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.proc = subprocess.Popen([binary, *argv], stdin=slave, stdout=slave, stderr=slave,
                                     env=env, start_new_session=True, close_fds=True)
        os.close(slave)
        self.master = master
        self.screen = Screen(cols, rows)
        self.out = PtyOutput(master, self.screen, sel)
        self.started = time.monotonic()

    def text(self):
        return self.screen.text()

    def alive(self):
        return self.proc.poll() is None and not self.out.closed

    def wait_for(self, cond, timeout, what):
        ok = pump_until(self.sel, lambda: not self.alive() or cond(self.text()), timeout)
        if not ok or not self.alive():
            last = "\n".join(r.rstrip() for r in self.text().splitlines() if r.strip())
            raise Failed(f"{what} not seen within {timeout:g} s (exit status "
                         f"{self.proc.poll()}); screen:\n{last}")
        return time.monotonic()

    def key_latency(self, key, shown, timeout=5.0, quiet=0.05):
        """Writes `key` and returns the seconds until the output chunk that made `shown(screen
        text)` hold was read. While waiting, the output is only read and kept with its times
        (until `quiet` seconds pass without any); it is parsed afterwards, chunk by chunk, so
        this script's own (pure Python) emulation of the screen is not in the figure. Should
        the answer come later than that, the wait goes on parsing as it reads, and the figure
        then includes the parsing (it can only be too high, never too low)."""
        chunks = []
        self.out.recording = chunks
        t0 = time.monotonic()
        os.write(self.master, key)
        end = t0 + timeout
        try:
            pump_until(self.sel, lambda: not self.alive() or time.monotonic() >= end
                       or (chunks and time.monotonic() - chunks[-1][0] >= quiet), timeout)
        finally:
            self.out.recording = None
        at = None
        for read_at, data in chunks:
            self.screen.feed(data)
            if at is None and shown(self.text()):
                at = read_at
        if at is not None:
            return at - t0
        return self.wait_for(shown, max(end - time.monotonic(), 0.1),
                             f"the answer to {key!r}") - t0

    def rss_mib(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
        return float("nan")

    def huge_mib(self):
        """How much of the resident memory is on transparent huge pages (the allocator's)."""
        try:
            with open(f"/proc/{self.proc.pid}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("AnonHugePages:"):
                        return int(line.split()[1]) / 1024.0
        except OSError:
            pass
        return float("nan")

    def quit(self):
        """`q`, then a bounded wait; returns the exit status."""
        if self.proc.poll() is None:
            try:
                os.write(self.master, b"q")
            except OSError:
                pass
            pump_until(self.sel, lambda: self.proc.poll() is not None, QUIT_TIMEOUT)
        code = stop(self.proc, signal.SIGTERM)
        if not self.out.closed:
            self.sel.unregister(self.master)
        os.close(self.master)
        return code


# --- a relay that times answers ---------------------------------------------------------------


class TimingRelay(cpu.Relay):
    """measure-cpu's counting relay, also timing each task-result request from its request line
    to the first bytes of its answer (HTTP/1.1 keeps one request in flight per connection)."""

    def __init__(self, upstream, sel):
        super().__init__(upstream, sel)
        self.sent = {}
        self.samples = []
        self.recording = True

    def handle(self, sock):
        if sock is not self.listener and sock in self.peer:
            from_client = sock in self.tail
            if from_client:
                try:
                    data = sock.recv(262144, socket.MSG_PEEK)
                except (BlockingIOError, InterruptedError, OSError):
                    data = b""
                if self.MARK in data:
                    self.sent[sock] = time.monotonic()
            else:
                client = self.peer.get(sock)
                t0 = self.sent.pop(client, None)
                if t0 is not None and self.recording:
                    self.samples.append(time.monotonic() - t0)
        super().handle(sock)

    def drop(self, sock):
        self.sent.pop(sock, None)
        self.sent.pop(self.peer.get(sock), None)
        super().drop(sock)


# --- figures --------------------------------------------------------------------------------


def quantile(values, q):
    """The q-quantile (0..1) by the nearest-rank method; None for no values."""
    if not values:
        return None
    s = sorted(values)
    k = max(0, min(len(s) - 1, math.ceil(q * len(s)) - 1))
    return s[k]


def fmt_s(v, digits=2):
    return "—" if v is None else f"{v:.{digits}f} s"


def fmt_ms(v):
    return "—" if v is None else f"{v * 1000:.1f} ms"
