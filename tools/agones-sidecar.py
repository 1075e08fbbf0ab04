#!/usr/bin/env python3
"""agones-sidecar.py - a stand-in for the Agones SDK sidecar's REST gateway on
the loopback (POST /ready, /health, /shutdown; GET /gameserver), for tests.

Logs every call as "SECONDS PATH STATUS" (seconds since the epoch, three
decimals) to --log, after a first line "SECONDS - listening". Misbehaves on purpose to test the game server's client:
the first /ready gets a malformed reply and the first /gameserver an
oversized one. The GameServer turns Allocated --allocate-after seconds after
the first Ready it accepted, with --address and --game-port as its status.
"""
import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

args = None
lock = threading.Lock()
state = {"ready_calls": 0, "gameserver_calls": 0, "ready_at": None}


def log(path, status):
    with lock, open(args.log, "a") as f:
        f.write("%.3f %s %s\n" % (time.time(), path, status))


def gameserver(allocated):
    return {
        "object_meta": {"name": "zl-server-test", "namespace": "default",
                        "labels": {"app": "zl-server"}},
        "spec": {"health": {"disabled": False, "period_seconds": 5,
                            "failure_threshold": 3, "initial_delay_seconds": 5}},
        "status": {"state": "Allocated" if allocated else "Ready",
                   "address": args.address,
                   "ports": [{"name": "default", "port": args.game_port}]},
    }


class Sidecar(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *a):  # quiet: the call log is the record
        pass

    def reply(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def raw(self, data):
        try:
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:
            pass  # the server dropped the reply, as it should
        self.close_connection = True

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        path = self.path
        if path == "/ready":
            with lock:
                state["ready_calls"] += 1
                first = state["ready_calls"] == 1
            if first:
                log(path, "malformed")
                self.raw(b"HTTP/1.1 2x0 Not a status\r\nbroken header line\r\n\r\n{}")
                return
            with lock:
                if state["ready_at"] is None:
                    state["ready_at"] = time.time()
        if path not in ("/ready", "/health", "/shutdown", "/allocate"):
            log(path, 404)
            self.reply(404, {"error": "Not Found"})
            return
        log(path, 200)
        self.reply(200, {})

    def do_GET(self):
        if self.path != "/gameserver":
            log(self.path, 404)
            self.reply(404, {"error": "Not Found"})
            return
        with lock:
            state["gameserver_calls"] += 1
            first = state["gameserver_calls"] == 1
            ready_at = state["ready_at"]
        if first:
            log(self.path, "oversized")
            body = b"{" + b" " * (1 << 20) + b"}"
            self.raw(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n" % len(body) + body)
            return
        allocated = ready_at is not None and time.time() >= ready_at + args.allocate_after
        log(self.path, "Allocated" if allocated else "Ready")
        self.reply(200, gameserver(allocated))


def main():
    global args
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--allocate-after", type=float, default=1.0)
    p.add_argument("--address", default="127.0.0.1")
    p.add_argument("--game-port", type=int, default=0)
    args = p.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Sidecar)
    log("-", "listening")
    server.serve_forever()


if __name__ == "__main__":
    main()
