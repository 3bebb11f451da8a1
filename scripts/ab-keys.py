#!/usr/bin/env python3
"""Two (or more) builds of the dashboard typed key by key in turn: an A/B of the filter
keystroke that the machine's drift cannot bias.

This machine's speed moves by a third from one minute to the next, so two builds measured one
after the other (`perf-compare.py --keys-only` twice) differ by more than most changes do. Here
every binary runs at once, each in its own 140x45 pseudo-terminal against one `gendash serve
--catalogue` of --models names (made as perf-compare.py makes it), and each key of the query
(`watercolorlit` typed and erased, --rounds times) goes to every binary in turn, fzf 0.74 too
when --fzf is given, so all of them meet the same minute (perf-compare.py's `type_in_turn`,
which its fzf comparison uses too). A key's time is perf-compare.py's: from the write to the
last output byte before 50 ms of quiet, once the screen shows the key's result. Prints each
one's median, p95 and mean.

    python3 scripts/ab-keys.py [--rounds 10] [--models 100000] [--fzf FZF] OLD NEW

The order changes every key (A B, then B A), so none always types first.
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
    # perf-compare.py's options for its pseudo-terminals and keys.
    pc_opts = argparse.Namespace(cols=140, rows=45, models=opts.models, query=QUERY,
                                 quiet_ms=QUIET_S * 1000.0, key_timeout=KEY_TIMEOUT_S,
                                 ready_timeout=READY_TIMEOUT_S)
    root = tempfile.mkdtemp(prefix="gendash-ab-")
    env = mc.private_env(os.path.join(root, "env"), os.environ.get("PATH", "/usr/bin:/bin"))
    print(f"writing a {opts.models}-entry catalogue", file=sys.stderr)
    catalogue, names_file = pc.make_catalogue(opts.binaries[0], env, opts.models)
    labels = [f"{chr(ord('A') + i)} {b}" for i, b in enumerate(opts.binaries)]
    with contextlib.ExitStack() as stack:
        base, token = pc.start_service(opts.binaries[0], env, stack, catalogue)
        typists = [pc.gendash_ready(b, base, token, env, pc_opts, stack)
                   for b in opts.binaries]
        if opts.fzf:
            typists.append(pc.fzf_ready(opts.fzf, names_file, env, pc_opts, stack))
            labels.append(f"fzf {opts.fzf}")
        results = pc.type_in_turn(typists, pc.keystrokes(QUERY, opts.rounds), pc_opts)
    keys = 2 * len(QUERY) * opts.rounds
    print(f"{keys} keys each over {opts.models:,} names, in turn:")
    for label, (t, unsettled, silent, _) in zip(labels, results):
        if not t:
            print(f"  {label}: no key answered")
            continue
        t = sorted(t)
        print(f"  {label}: median {statistics.median(t):.3f} ms, p95 "
              f"{t[max(0, -(-95 * len(t) // 100) - 1)]:.2f} ms, mean {statistics.fmean(t):.3f} ms"
              + (f" ({unsettled} unsettled, {silent} silent)" if unsettled or silent else ""))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (pc.Failed, mc.Failed) as e:
        print(f"ab-keys.py: {e}", file=sys.stderr)
        sys.exit(1)
