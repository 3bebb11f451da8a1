#!/usr/bin/env python3
"""Two (or more) builds of the dashboard polling side by side: an A/B of the CPU per poll that
the machine's drift cannot bias.

This machine's speed moves by a third from one minute to the next, and a single build's CPU per
poll moves with it by ±7 % from one `measure-cpu.py` run to the next, more than most changes
do. Here every binary runs at once, each in its own 140x45 pseudo-terminal with its own private
home and --tasks `hold-*` tasks (adaptive polling off: every task asked every poll_interval),
all against one service: scripts/python_service.py (keep-alive HTTP/1.1 from Python's standard
library, headers and body in two writes, progress moving) or, with --service reference, one
`gendash serve` each. Once all are ready and settled, the CPU (utime + stime from /proc) of
each is read over the same --seconds windows, --windows times; the polls of a window are
tasks × window ÷ poll_interval (each task is asked every interval; `measure-cpu.py` counts
them and finds the same to within 1 %).

    python3 scripts/ab-poll.py [--tasks 1000] [--seconds 10] [--windows 6] OLD NEW

Prints each binary's CPU per poll per window, then its median and mean.
Only the Python 3 standard library is used; Linux only.
"""

import argparse
import importlib.util
import os
import selectors
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("measure_cpu", os.path.join(HERE, "measure-cpu.py"))
mc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mc)


class Dash:
    """One binary's dashboard: its home, its pseudo-terminal, its process."""

    def __init__(self, binary, root, opts, sel, service):
        self.binary = binary
        self.env = mc.private_env(root, opts.path)
        config_dir = os.path.join(self.env["XDG_CONFIG_HOME"], "gendash")
        os.makedirs(config_dir, mode=0o700, exist_ok=True)
        with open(os.path.join(config_dir, "config.toml"), "w") as f:
            f.write(f"poll_interval = {opts.poll_interval:g}\nadaptive_polling = false\n")
        ids = [f"hold-{i}" for i in range(1, opts.tasks + 1)]
        for k in range(0, opts.tasks, 500):
            mc.run_cli(binary, ["watch", "add", *ids[k : k + 500]], self.env)
        self.serve = None
        if service is None:
            self.serve, base, token = mc.start_service(binary, self.env)
        else:
            base, token = service
        env = dict(self.env, GENDASH_BASE_URL=base, GENDASH_TOKEN=token)
        import fcntl, pty, struct, termios  # noqa: E401
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", opts.rows, opts.cols, 0, 0))
        self.proc = subprocess.Popen([binary], stdin=slave, stdout=slave, stderr=slave, env=env,
                                     start_new_session=True, close_fds=True)
        os.close(slave)
        self.master = master
        self.screen = mc.Screen(opts.cols, opts.rows)
        self.out = mc.PtyOutput(master, self.screen, sel, "vt220")
        self.ready = mc.tasks_shown(opts.tasks, running=opts.tasks)

    def is_ready(self):
        return self.proc.poll() is None and self.ready(self.screen.text())

    def close(self, sel):
        if self.proc.poll() is None:
            try:
                os.write(self.master, b"q")
            except OSError:
                pass
            mc.pump_until(sel, lambda: self.proc.poll() is not None, mc.QUIT_TIMEOUT)
        mc.stop(self.proc, signal.SIGTERM)
        if self.serve:
            mc.stop(self.serve, signal.SIGINT)
        if not self.out.closed:
            sel.unregister(self.master)
        os.close(self.master)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("binaries", nargs="+")
    p.add_argument("--tasks", type=int, default=1000)
    p.add_argument("--poll-interval", type=float, default=2.0)
    p.add_argument("--seconds", type=float, default=10.0, help="each window (10)")
    p.add_argument("--windows", type=int, default=6)
    p.add_argument("--settle", type=float, default=3.0)
    p.add_argument("--service", choices=["python", "reference"], default="python")
    opts = p.parse_args()
    opts.cols, opts.rows, opts.path = 140, 45, os.environ.get("PATH", "/usr/bin:/bin")
    signal.alarm(int(120 + opts.windows * opts.seconds * 2))
    sel = selectors.DefaultSelector()
    dashes, python = [], None
    with tempfile.TemporaryDirectory(prefix="gendash-ab-poll-") as root:
        try:
            service = None
            if opts.service == "python":
                env = mc.private_env(os.path.join(root, "service"), opts.path)
                python, base, token = mc.start_python_service(env)
                service = (base, token)
            for i, binary in enumerate(opts.binaries):
                dashes.append(Dash(binary, os.path.join(root, f"d{i}"), opts, sel, service))
            if not mc.pump_until(sel, lambda: all(d.is_ready() for d in dashes), 120):
                sys.exit("not every dashboard showed its tasks running within 120 s")
            for d in dashes:
                d.out.screen = None  # only drained from here on
            mc.pump_for(sel, opts.settle)
            per_poll = {d.binary: [] for d in dashes}
            polls = opts.tasks * opts.seconds / opts.poll_interval
            for _ in range(opts.windows):
                before = [mc.cpu_ticks(d.proc.pid) for d in dashes]
                t0 = time.monotonic()
                mc.pump_for(sel, opts.seconds)
                wall = time.monotonic() - t0
                after = [mc.cpu_ticks(d.proc.pid) for d in dashes]
                for d, a, b in zip(dashes, before, after):
                    ms = (b - a) * 1000.0 / mc.CLK_TCK
                    per_poll[d.binary].append(ms / (polls * wall / opts.seconds))
                print("  " + "  ".join(f"{per_poll[d.binary][-1]:.4f}" for d in dashes),
                      flush=True)
        finally:
            for d in dashes:
                d.close(sel)
            if python:
                mc.stop(python, signal.SIGINT)
    print(f"CPU per poll, {opts.tasks} tasks every {opts.poll_interval:g} s against "
          f"{opts.service}, {opts.windows} windows of {opts.seconds:g} s side by side:")
    for binary, xs in per_poll.items():
        print(f"  {binary}: median {statistics.median(xs):.4f} ms, "
              f"mean {statistics.mean(xs):.4f} ms")


if __name__ == "__main__":
    main()
