#!/usr/bin/env python3
"""Two (or more) builds of the dashboard typed key by key in turn: an A/B of the filter
keystroke that the machine's drift cannot bias.

This machine's speed moves by a third from one minute to the next, so two builds measured one
after the other (`perf-compare.py --keys-only` twice) differ by more than most changes do. Here
every binary runs at once, each in its own 140x45 pseudo-terminal against one `gendash serve
--catalogue` of --models names (made as perf-compare.py makes it), and each key of the query
(`watercolorlit` typed and erased, --rounds times) goes to every binary in turn, fzf 0.74 too
when --fzf is given, so all of them meet the same minute. A key's time is perf-compare.py's:
from the write to the last output byte before 50 ms of quiet, once the screen shows the key's
result. Prints each one's median, p95 and mean.

    python3 scripts/ab-keys.py [--rounds 10] [--models 100000] [--fzf FZF] OLD NEW

The builds' order changes every key (A B, then B A), so neither always types second.
Only the Python 3 standard library is used; Linux only.
"""

import argparse
import contextlib
import importlib.util
import os
import signal
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
_spec = importlib.util.spec_from_file_location("perf_compare", os.path.join(HERE, "perf-compare.py"))
pc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pc)
mc = pc.mc

QUERY = "watercolorlit"
QUIET_S = 0.05
KEY_TIMEOUT_S = 2.0
READY_TIMEOUT_S = 120.0
MAX_TOTAL_S = 1800


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("binaries", nargs="+", help="gendash release binaries (the first serves)")
    p.add_argument("--rounds", type=int, default=10, help="times the query is typed and erased")
    p.add_argument("--models", type=int, default=100000)
    p.add_argument("--fzf", help="fzf 0.74 to type beside them (its median is the reference)")
    opts = p.parse_args()
    if opts.rounds < 1 or opts.models < 1:
        p.error("--rounds and --models must be positive")
    for b in opts.binaries + ([opts.fzf] if opts.fzf else []):
        if not os.access(b, os.X_OK):
            p.error(f"{b}: not an executable file")

    def alarm(*_):
        raise pc.Failed(f"still running after {MAX_TOTAL_S} s")

    signal.signal(signal.SIGALRM, alarm)
    signal.alarm(MAX_TOTAL_S)
    tty_opts = argparse.Namespace(cols=140, rows=45)
    root = tempfile.mkdtemp(prefix="gendash-ab-")
    env = mc.private_env(os.path.join(root, "env"), os.environ.get("PATH", "/usr/bin:/bin"))
    print(f"writing a {opts.models}-entry catalogue", file=sys.stderr)
    catalogue, names_file = pc.make_catalogue(opts.binaries[0], env, opts.models)
    typists = []  # (label, tty, settled)
    with contextlib.ExitStack() as stack:
        base, token = pc.start_service(opts.binaries[0], env, stack, catalogue)
        for i, binary in enumerate(opts.binaries):
            tty = pc.Tty([binary], dict(env, GENDASH_BASE_URL=base, GENDASH_TOKEN=token),
                         tty_opts)
            stack.callback(tty.close, [b"\x1b", b"q"])
            pc.wait_for_catalogue(tty, opts.models, READY_TIMEOUT_S)
            tty.quiet(0.5, 5.0)
            settled = pc.GendashSettled(opts.models)
            if not tty.key(b"/", settled(""), QUIET_S, 5.0)[1]:
                raise pc.Failed(f"{binary}: `/` did not focus the filter")
            typists.append((f"{chr(ord('A') + i)} {binary}", tty, settled))
        if opts.fzf:
            names = stack.enter_context(open(names_file, "rb"))
            tty = pc.Tty([opts.fzf, "--no-mouse"], env, tty_opts, stdin=names)
            stack.callback(tty.close, [b"\x1b"])
            settled = pc.FzfSettled(opts.models)
            if not tty.wait_for(lambda: settled("")(tty), READY_TIMEOUT_S):
                raise pc.Failed("fzf did not read every name")
            tty.quiet(0.5, 5.0)
            typists.append((f"fzf {opts.fzf}", tty, settled))
        times = {label: [] for label, _, _ in typists}
        unsettled = dict.fromkeys(times, 0)
        for n, (data, query) in enumerate(pc.keystrokes(QUERY, opts.rounds)):
            turn = typists if n % 2 == 0 else typists[::-1]
            for label, tty, settled in turn:
                tty.quiet(QUIET_S, KEY_TIMEOUT_S)
                took, ok = tty.key(data, settled(query), QUIET_S, KEY_TIMEOUT_S)
                if tty.proc.poll() is not None:
                    raise pc.Failed(f"{label} exited while typing")
                if took is None or not ok:
                    unsettled[label] += 1
                else:
                    times[label].append(took * 1000.0)
    keys = 2 * len(QUERY) * opts.rounds
    print(f"{keys} keys each over {opts.models:,} names, in turn:")
    for label, t in times.items():
        if not t:
            print(f"  {label}: no key settled")
            continue
        t.sort()
        print(f"  {label}: median {statistics.median(t):.3f} ms, p95 "
              f"{t[max(0, -(-95 * len(t) // 100) - 1)]:.2f} ms, mean {statistics.fmean(t):.3f} ms"
              + (f" ({unsettled[label]} unsettled)" if unsettled[label] else ""))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (pc.Failed, mc.Failed) as e:
        print(f"ab-keys.py: {e}", file=sys.stderr)
        sys.exit(1)
