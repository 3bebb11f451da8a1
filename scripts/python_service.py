#!/usr/bin/env python3
"""A minimal Generation Service in Python's standard library, to measure gendash against.

    python3 scripts/python_service.py --addr 127.0.0.1:0 [--models N] [--latency-ms X] [--token T]

It prints `listening on http://127.0.0.1:PORT` once it accepts connections (PORT is the real
one when --addr asks for port 0) and serves until interrupted (SIGINT or SIGTERM).

It is independent of gendash's own reference service (`gendash serve`) on purpose: an
`http.server.BaseHTTPRequestHandler` with `protocol_version = "HTTP/1.1"` under a
`ThreadingHTTPServer` (a thread per connection, connections kept alive), answering as such
servers usually do: the status line and headers go out in one write (`end_headers` flushes
them), the body in a second one (`wfile.write`). A client that handles that badly (a wake-up
per read, Nagle against delayed ACKs) shows it here and not against `gendash serve`, which
writes an answer at once.

The operations of the spec (/work/shared/spec/generation-service.md), closely enough for
measuring:

- `POST /lora/?type=sd|sdxl&cate=C`: `{"data": [{"model", "metadata"}, ...]}`, a generated
  catalogue of --models entries (320 by default), alternately `sd` and `sdxl`, in eight
  categories (`metadata.type`, `metadata.category`), filtered by `type` and `cate` when given.
- `POST /ai/image_generation/{id}` and `POST /ai/video_generation/{id}`: the envelope of spec 2.3
  with `status: IN_PROGRESS` for every ID, its percent moving one step on every lookup of that
  ID (0 to 99, then round again: the task never completes), as a running task does; or with
  --progress fixed, 50 % always (what `gendash serve` answers for a `hold-` task).
- Every operation needs `Authorization: Bearer <token>` (--token, default `python-service`);
  otherwise `401` with a JSON body. Other methods than POST get `405`, other paths `404`.
- `GET /_gendash/stats` (with the token): `{"now_ms", "requests", "refused": 0, "by_status",
  "tasks": {id: {"requests"}}}`, the counts of the reference service's stats route that a
  measuring script needs (`requests` counts answers of the three operations, 401s included).

--latency-ms X delays every answer of the three operations X milliseconds (a sleep in the
connection's own thread, so answers in flight wait side by side).

Only the Python 3 standard library is used. Listens where --addr says (loopback for tests).
"""

import argparse
import datetime
import json
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

CATEGORIES = ("character", "style", "concept", "clothing", "background", "photography",
              "poses", "tools")
TYPES = ("sd", "sdxl")
# A bound on the task IDs whose lookups are remembered (the reference service's too).
MAX_TASKS = 100_000
# A request body is read to keep the connection in step; none of the spec's has one.
MAX_BODY = 1 << 20


def catalogue(n):
    """`n` generated LoRA entries, each with the type and category the filters use."""
    entries = []
    for i in range(n):
        kind, cate = TYPES[i % 2], CATEGORIES[(i // 2) % len(CATEGORIES)]
        entries.append({
            "model": f"py_lora_{i}",
            "metadata": {
                "source": f"https://lora-hub.example.com/models/{i}/py-lora-{i}",
                "type": kind,
                "category": cate,
                "author": f"author{i % 97}",
                "base_model": "SD 1.5" if kind == "sd" else "SDXL 1.0",
                "version": f"1.{i % 10}",
                "trigger_words": [f"word{i % 13}", f"word{i % 7}"],
            },
        })
    return entries


class State:
    """What the handlers share: the catalogue's bodies, per-task lookups, the counts."""

    def __init__(self, models, token, latency_s, progress):
        self.entries = catalogue(models)
        self.token = token
        self.latency_s = latency_s
        self.progress = progress
        self.lock = threading.Lock()
        self.bodies = {}  # (type, cate) -> encoded catalogue body
        self.lookups = {}  # task ID -> lookups so far
        self.requests = 0
        self.by_status = {}
        self.started = time.monotonic()

    def catalogue_body(self, kind, cate):
        key = (kind, cate)
        with self.lock:
            body = self.bodies.get(key)
        if body is None:
            data = [e for e in self.entries
                    if (kind is None or e["metadata"]["type"] == kind)
                    and (cate is None or e["metadata"]["category"] == cate)]
            body = json.dumps({"data": data}, separators=(",", ":")).encode()
            with self.lock:
                self.bodies[key] = body
        return body

    def lookup(self, task_id):
        """The percent to answer for this lookup of `task_id`."""
        with self.lock:
            seen = self.lookups.get(task_id)
            if seen is None and len(self.lookups) >= MAX_TASKS:
                seen = 0  # not remembered: its progress does not move
            else:
                self.lookups[task_id] = (seen or 0) + 1
        if self.progress == "fixed":
            return 50
        return (seen or 0) % 100

    def count(self, status):
        with self.lock:
            self.requests += 1
            self.by_status[str(status)] = self.by_status.get(str(status), 0) + 1

    def stats(self):
        with self.lock:
            return {
                "now_ms": int((time.monotonic() - self.started) * 1000),
                "requests": self.requests,
                "refused": 0,
                "by_status": dict(self.by_status),
                "tasks": {k: {"requests": v} for k, v in self.lookups.items()},
            }


def timestamp(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime(
        "%Y-%m-%d %H:%M:%S.%f")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "python-service/1"
    state = None  # set by main()

    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass  # one line per request would cost more than the answer

    def answer(self, code, body, extra=()):
        """Headers in one write, the body in another: BaseHTTPRequestHandler's usual way."""
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length < 0 or length > MAX_BODY:
            self.close_connection = True
            return False
        if length:
            self.rfile.read(length)
        return True

    def authorised(self):
        return self.headers.get("Authorization", "") == f"Bearer {self.state.token}"

    def unauthorised(self):
        message = "missing or invalid bearer token"
        body = json.dumps({"errors": [{"code": "unauthorized", "message": message}],
                           "error_description": message, "status": "failed"}).encode()
        self.answer(401, body, [("WWW-Authenticate", "Bearer")])

    def route(self):
        """The operation the path names: ("lora", None), (kind, task_id) or None."""
        path = urlsplit(self.path).path
        if path in ("/lora/", "/lora"):
            return "lora", None
        for kind in ("image_generation", "video_generation"):
            prefix = f"/ai/{kind}/"
            if path.startswith(prefix) and len(path) > len(prefix) and "/" not in path[len(prefix):]:
                return kind, path[len(prefix):]
        if path == "/_gendash/stats":
            return "stats", None
        return None

    def not_found(self):
        self.answer(404, b'{"errors":[{"code":"not_found"}],"status":"failed"}')

    def do_POST(self):  # noqa: N802 (the base class's name)
        started = time.time()
        if not self.read_body():
            self.answer(413, b'{"errors":[{"code":"too_large"}],"status":"failed"}')
            return
        route = self.route()
        if route is None or route[0] == "stats":
            self.not_found()
            return
        if self.state.latency_s:
            time.sleep(self.state.latency_s)
        if not self.authorised():
            self.state.count(401)
            self.unauthorised()
            return
        op, task_id = route
        if op == "lora":
            query = parse_qs(urlsplit(self.path).query)
            kind = (query.get("type") or [None])[0] or None
            cate = (query.get("cate") or [None])[0] or None
            body = self.state.catalogue_body(kind, cate)
        else:
            percent = self.state.lookup(task_id)
            ended = time.time()
            body = json.dumps({
                "data": {"is_success": True, "data": {
                    "task_id": task_id, "total_tasks": 1, "percent": percent,
                    "status": "IN_PROGRESS", "url_download": ""}},
                "errors": [], "error_description": "", "status": "success",
                "start_time": timestamp(started), "end_time": timestamp(ended),
                "host_of_client_call_request": self.client_address[0],
                "total_time_by_second": round(ended - started, 6),
            }, separators=(",", ":")).encode()
        self.state.count(200)
        self.answer(200, body)

    def do_GET(self):  # noqa: N802
        route = self.route()
        if route is None:
            self.not_found()
        elif route[0] != "stats":
            self.answer(405, b'{"errors":[{"code":"method_not_allowed"}],"status":"failed"}',
                        [("Allow", "POST")])
        elif not self.authorised():
            self.unauthorised()
        else:
            self.answer(200, json.dumps(self.state.stats()).encode())

    def other(self):
        if self.route() is None:
            self.not_found()
        else:
            self.answer(405, b'{"errors":[{"code":"method_not_allowed"}],"status":"failed"}',
                        [("Allow", "POST")])

    do_PUT = do_DELETE = do_PATCH = other  # noqa: N815


def address(text):
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not HOST:PORT")
    return host.strip("[]"), int(port)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--addr", type=address, default=("127.0.0.1", 0),
                   help="HOST:PORT to listen on (default 127.0.0.1:0, a free port)")
    p.add_argument("--models", type=int, default=320, help="catalogue entries (320)")
    p.add_argument("--latency-ms", type=float, default=0.0,
                   help="delay every answer of the three operations this long (0)")
    p.add_argument("--token", default="python-service",
                   help="the bearer token clients must present (python-service)")
    p.add_argument("--progress", choices=("moving", "fixed"), default="moving",
                   help="a task's percent: one step per lookup (moving, the default) or 50 "
                        "always (fixed, as `gendash serve` answers a hold- task)")
    opts = p.parse_args()
    if opts.models < 0 or opts.latency_ms < 0:
        p.error("--models and --latency-ms must not be negative")

    Handler.state = State(opts.models, opts.token, opts.latency_ms / 1000.0, opts.progress)
    ThreadingHTTPServer.daemon_threads = True
    server = ThreadingHTTPServer(opts.addr, Handler)

    def stop(_sig, _frame):
        # shutdown() waits for serve_forever's loop, so it runs in a thread of its own.
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    host, port = server.server_address[:2]
    print(f"listening on http://{host}:{port}", flush=True)
    try:
        server.serve_forever(poll_interval=0.5)
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
