#!/usr/bin/python3
"""Soak test of `redsim server`: mixed clients for a bounded time on
loopback, then two verdicts:
- memory: the server's RSS at the end is within --rss-tolerance (10%) of
  its RSS right after the warm-up: each the median of the samples (one a
  second, taken while no big value is in flight and the slow subscriber
  has caught up) of a window of min(30 s, a tenth of the run), at least
  5 s;
- durability: every acknowledged write is present: each writer owns its
  keys and remembers the last value the server acknowledged for each; at
  the end every one of them is read back and compared.

  tools/soak.py [--redsim build/redsim] [--minutes 10] [--warmup-seconds 60]

The clients (threads, Debian's python3-redis from /usr/bin/python3):
- writers: pipelines of 50 SETs (keys soak:w<i>:<n mod 5000>, values of
  10..300 bytes), every 20th pipeline a MULTI/EXEC; reconnect every 200
  pipelines;
- scripters: EVAL of a script that writes a key and returns its value;
- churners: connect, a few commands (PING, INCR, GET, CLIENT SETNAME), close;
- pub/sub: publishers on three channels, fast subscribers and a slow one
  (reads with pauses; the server may drop it past its 32 MB output limit,
  then it reconnects);
- big values: SET of 1..16 MB, GET and compare, DEL; one at a time;
- busy scripts: every 15 s an endless EVAL; once it is BUSY another client
  sends SCRIPT KILL; the script's caller must get "Script killed", the
  others BUSY meanwhile (their writes are then not acknowledged and retried).
busy-reply-threshold is set to 100 ms so a busy period stays short.

Prints a JSON summary (RSS after warm-up, at the end, peak, ops, writes
verified, ...) and exits 0 when both verdicts hold and the server stayed up.
"""
import argparse
import hashlib
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time

import redis

MB = 1024 * 1024
KEYS_PER_WRITER = 5000
PIPELINE = 50


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Soak:
    def __init__(self, args):
        self.args = args
        self.port = args.port or free_port()
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.big_lock = threading.Lock()  # held while a big value is in flight
        # held while the slow subscriber is behind (from its pause until it
        # has read everything the server had queued for it)
        self.backlog_lock = threading.Lock()
        self.ops = 0
        self.counts = {}
        self.errors = []
        self.acked = {}  # key -> last acknowledged value (bytes)
        self.proc = None
        self.pid = args.pid

    def count(self, what, n=1, op=True):
        with self.lock:
            self.counts[what] = self.counts.get(what, 0) + n
            if op:
                self.ops += n

    def error(self, text):
        with self.lock:
            if len(self.errors) < 50:
                self.errors.append(text)

    def client(self, **kw):
        return redis.Redis(port=self.port, socket_timeout=30, **kw)

    # ---- server
    def start_server(self):
        if self.args.port:
            return
        self.log = tempfile.NamedTemporaryFile(prefix="soak_", suffix=".log", delete=False)
        self.proc = subprocess.Popen(
            [self.args.redsim, "server", "--port", str(self.port), "--clock", "real"],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.pid = self.proc.pid
        c = self.client()
        for _ in range(200):
            try:
                c.ping()
                break
            except redis.exceptions.ConnectionError:
                time.sleep(0.05)
        else:
            raise RuntimeError("redsim server did not start")

    def stop_server(self):
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def alive(self):
        return self.proc is None or self.proc.poll() is None

    # ---- clients
    def run_forever(self, name, body):
        """Runs body(rng) until stop; connection errors are counted and the
        body restarted (a reconnect), anything else is an error."""
        rng = random.Random(f"{self.args.seed}:{name}")
        while not self.stop.is_set():
            try:
                body(rng)
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as e:
                if self.stop.is_set():
                    return
                self.count(f"{name.split('#')[0]}_reconnects", op=False)
                if not self.alive():
                    self.error(f"{name}: server died: {e}")
                    return
                time.sleep(0.05)
            except redis.exceptions.ResponseError as e:
                if "BUSY" not in str(e):
                    self.error(f"{name}: ResponseError: {e}")
                # A command refused while a script is busy: start over.
                self.count("busy_seen", op=False)
                time.sleep(0.02)
            except Exception as e:  # noqa: BLE001 - reported, the soak goes on
                self.error(f"{name}: {type(e).__name__}: {e}")
                time.sleep(0.1)

    def writer(self, wid):
        seq = [0]

        def body(rng):
            c = self.client()
            try:
                for _ in range(200):
                    if self.stop.is_set():
                        return
                    transaction = seq[0] % 20 == 19
                    p = c.pipeline(transaction=transaction)
                    batch = []
                    for _ in range(PIPELINE):
                        n = seq[0]
                        seq[0] += 1
                        key = f"soak:w{wid}:{n % KEYS_PER_WRITER}"
                        value = f"{wid}:{n}:".encode() + rng.randbytes(rng.randint(10, 300))
                        p.set(key, value)
                        batch.append((key, value))
                    try:
                        replies = p.execute(raise_on_error=False)
                    except redis.exceptions.ResponseError as e:
                        # MULTI/EXEC during a busy script: EXECABORT / BUSY,
                        # nothing acknowledged.
                        self.count("writes_refused", len(batch), op=False)
                        if "BUSY" not in str(e) and "EXECABORT" not in str(e):
                            self.error(f"writer {wid}: {e}")
                        continue
                    acked = 0
                    with self.lock:
                        for (key, value), r in zip(batch, replies):
                            if r is True:
                                self.acked[key] = value
                                acked += 1
                    self.count("writes_acked", acked)
                    if acked < len(batch):
                        self.count("writes_refused", len(batch) - acked, op=False)
            finally:
                c.close()

        self.run_forever(f"writer#{wid}", body)

    SCRIPT = "redis.call('SET', KEYS[1], ARGV[1]) return redis.call('GET', KEYS[1])"

    def scripter(self, sid):
        seq = [0]

        def body(rng):
            c = self.client()
            try:
                while not self.stop.is_set():
                    n = seq[0]
                    seq[0] += 1
                    key = f"soak:s{sid}:{n % 2000}"
                    value = f"s{sid}:{n}:".encode() + rng.randbytes(rng.randint(5, 100))
                    try:
                        got = c.eval(self.SCRIPT, 1, key, value)
                    except redis.exceptions.ResponseError as e:
                        if "BUSY" in str(e):
                            self.count("busy_seen", op=False)
                            time.sleep(0.01)
                            continue
                        raise
                    if got != value:
                        self.error(f"scripter {sid}: script returned {got!r:.40}")
                    with self.lock:
                        self.acked[key] = value
                    self.count("script_writes_acked")
            finally:
                c.close()

        self.run_forever(f"scripter#{sid}", body)

    def churner(self, cid):
        def body(rng):
            while not self.stop.is_set():
                c = self.client()
                try:
                    c.client_setname(f"churn{cid}")
                    for _ in range(rng.randint(1, 5)):
                        try:
                            c.ping()
                            c.incr(f"soak:counter:{rng.randint(0, 99)}")
                            c.get(f"soak:w0:{rng.randint(0, KEYS_PER_WRITER - 1)}")
                            self.count("churn_ops", 3)
                        except redis.exceptions.ResponseError as e:
                            if "BUSY" not in str(e):
                                raise
                            self.count("busy_seen", op=False)
                finally:
                    c.close()
                self.count("connections")

        self.run_forever(f"churner#{cid}", body)

    def publisher(self, pid):
        def body(rng):
            c = self.client()
            try:
                while not self.stop.is_set():
                    p = c.pipeline(transaction=False)
                    for _ in range(20):
                        p.publish(f"soak:ch{rng.randint(0, 2)}", rng.randbytes(rng.randint(10, 500)))
                    p.execute(raise_on_error=False)
                    self.count("published", 20)
                    time.sleep(0.002)
            finally:
                c.close()

        self.run_forever(f"publisher#{pid}", body)

    def subscriber(self, sid, slow):
        def body(rng):
            c = self.client()
            ps = c.pubsub(ignore_subscribe_messages=True)
            try:
                ps.subscribe("soak:ch0", "soak:ch1")
                ps.psubscribe("soak:ch*")
                while not self.stop.is_set():
                    m = ps.get_message(timeout=0.2)
                    if m is not None:
                        self.count("messages_received")
                    if slow and rng.random() < 0.02:
                        with self.backlog_lock:
                            time.sleep(rng.uniform(0.2, 2.0))  # fall behind
                            # catch up: read until nothing is left queued
                            # (at most 5 s; the server may have dropped us)
                            until = time.monotonic() + 5
                            while (not self.stop.is_set() and time.monotonic() < until
                                   and ps.get_message(timeout=0.01) is not None):
                                self.count("messages_received")
            finally:
                ps.close()
                c.close()

        self.run_forever(f"{'slow_' if slow else ''}subscriber#{sid}", body)

    def big_values(self):
        def body(rng):
            c = self.client()
            try:
                i = 0
                while not self.stop.is_set():
                    size = rng.randint(1, 16) * MB
                    value = rng.randbytes(64) * (size // 64)
                    key = f"soak:big:{i % 3}"
                    i += 1
                    with self.big_lock:
                        try:
                            c.set(key, value)
                            got = c.get(key)
                            c.delete(key)
                        except redis.exceptions.ResponseError as e:
                            if "BUSY" in str(e):
                                self.count("busy_seen", op=False)
                                # the key may hold the value: delete when free
                                while not self.stop.is_set():
                                    try:
                                        c.delete(key)
                                        break
                                    except redis.exceptions.ResponseError:
                                        time.sleep(0.05)
                                continue
                            raise
                    if got is None or hashlib.sha1(got).digest() != hashlib.sha1(value).digest():
                        self.error(f"big value {key} of {size} bytes came back different")
                    self.count("big_values", 1)
                    self.count("big_bytes", 2 * size, op=False)
                    time.sleep(rng.uniform(0.1, 1.0))
            finally:
                c.close()

        self.run_forever("big", body)

    def busy_scripts(self):
        def body(rng):
            while not self.stop.wait(self.args.busy_every):
                looper = self.client()
                killer = self.client()
                result = {}

                def loop():
                    try:
                        looper.eval("local i = 0 while true do i = i + 1 end", 0)
                        result["reply"] = "no error"
                    except redis.exceptions.ResponseError as e:
                        result["reply"] = str(e)

                t = threading.Thread(target=loop)
                t.start()
                deadline = time.monotonic() + 10
                killed = False
                while time.monotonic() < deadline:
                    try:
                        killer.ping()
                    except redis.exceptions.ResponseError as e:
                        if "BUSY" in str(e):
                            time.sleep(rng.uniform(0, 0.5))  # stay busy a little
                            killer.script_kill()
                            killed = True
                            break
                        raise
                    time.sleep(0.02)
                t.join(15)
                if t.is_alive():
                    self.error("busy script: the script's caller got no reply")
                elif not killed or "Script killed" not in result.get("reply", ""):
                    self.error(f"busy script: killed={killed} reply={result.get('reply')!r}")
                else:
                    self.count("scripts_killed")
                looper.close()
                killer.close()

        self.run_forever("busy", body)

    # ---- the run
    def quiescent_rss(self):
        # Neither a big value nor the slow subscriber's backlog in flight:
        # both are transient buffers, up to 16 MB and 32 MB, not retained
        # memory.
        with self.backlog_lock, self.big_lock:
            return status_kb(self.pid, "VmRSS") * 1024

    def verify(self):
        c = self.client()
        with self.lock:
            items = list(self.acked.items())
        missing = []
        for start in range(0, len(items), 1000):
            chunk = items[start:start + 1000]
            got = c.mget([k for k, _ in chunk])
            for (k, v), g in zip(chunk, got):
                if g != v:
                    missing.append(k)
        c.close()
        return len(items), missing

    def run(self):
        a = self.args
        self.start_server()
        admin = self.client()
        admin.config_set("busy-reply-threshold", "100")
        admin.flushall()
        threads = []

        def spawn(fn, *fargs):
            t = threading.Thread(target=fn, args=fargs, daemon=True)
            t.start()
            threads.append(t)

        for i in range(a.writers):
            spawn(self.writer, i)
        for i in range(2):
            spawn(self.scripter, i)
        for i in range(3):
            spawn(self.churner, i)
        for i in range(2):
            spawn(self.publisher, i)
        for i in range(2):
            spawn(self.subscriber, i, False)
        spawn(self.subscriber, 2, True)
        spawn(self.big_values)
        spawn(self.busy_scripts)

        t0 = time.monotonic()
        total_s = a.minutes * 60
        warmup_s = min(a.warmup_seconds, total_s / 2)
        # A level is the median of the samples (one a second) in a window:
        # the first window after the warm-up, and the last one.
        window_s = max(5.0, min(30.0, total_s / 10))
        samples = []  # (seconds since start, RSS bytes)
        while True:
            now = time.monotonic() - t0
            if now >= total_s or not self.alive():
                break
            time.sleep(min(1.0, total_s - now))
            if not self.alive():
                break
            samples.append((time.monotonic() - t0, self.quiescent_rss()))

        def median(values):
            values = sorted(values)
            return values[len(values) // 2] if values else None

        rss_warm = median([r for t, r in samples if warmup_s <= t < warmup_s + window_s])
        rss_end = median([r for t, r in samples if t >= total_s - window_s]) or 0
        self.stop.set()
        for t in threads:
            t.join(60)
        alive = self.alive()
        written, missing = self.verify() if alive else (0, ["<server died>"])
        peak = status_kb(self.pid, "VmHWM") * 1024 if alive else 0
        self.stop_server()
        rss_ok = rss_warm is not None and rss_end <= rss_warm * (1 + a.rss_tolerance)
        summary = {
            "minutes": a.minutes,
            "rss_after_warmup_mb": round((rss_warm or 0) / MB, 1),
            "rss_end_mb": round(rss_end / MB, 1),
            "rss_peak_mb": round(peak / MB, 1),
            "rss_end_vs_warmup": round(rss_end / rss_warm, 3) if rss_warm else None,
            "ops": self.ops,
            "acked_keys_verified": written - len(missing),
            "acked_keys_missing": len(missing),
            "counts": self.counts,
            "errors": self.errors,
            "server_alive": alive,
            "rss_window_s": window_s,
            "rss_min_mb": round(min((r for _, r in samples), default=0) / MB, 1),
            "rss_max_mb": round(max((r for _, r in samples), default=0) / MB, 1),
            "rss_samples_mb_every_10s": [(round(t), round(r / MB, 1)) for t, r in samples[::10]],
        }
        print(json.dumps(summary, indent=1))
        ok = alive and rss_ok and not missing and not self.errors
        if not rss_ok:
            print(f"FAIL: RSS at the end {rss_end / MB:.1f} MB vs {(rss_warm or 0) / MB:.1f} MB "
                  f"after warm-up (tolerance {a.rss_tolerance:.0%})", file=sys.stderr)
        if missing:
            print(f"FAIL: {len(missing)} acknowledged writes missing, e.g. {missing[:5]}",
                  file=sys.stderr)
        if self.errors:
            print(f"FAIL: {len(self.errors)} client errors", file=sys.stderr)
        return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--redsim", default="build/redsim")
    ap.add_argument("--port", type=int, default=0,
                    help="soak a server already listening here (with --pid) instead")
    ap.add_argument("--pid", type=int, default=0, help="that server's pid, for its RSS")
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--warmup-seconds", type=float, default=60)
    ap.add_argument("--writers", type=int, default=4)
    ap.add_argument("--busy-every", type=float, default=15, help="seconds between busy scripts")
    ap.add_argument("--rss-tolerance", type=float, default=0.10)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    soak = Soak(args)
    try:
        return soak.run()
    finally:
        soak.stop.set()
        soak.stop_server()


if __name__ == "__main__":
    sys.exit(main())
