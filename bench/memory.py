#!/usr/bin/python3
"""Memory of `redsim server` against a real redis-server, measured on the
live processes: VmRSS (resident now) and VmHWM (resident peak) from
/proc/<pid>/status. A tool, not a test: it prints a Markdown table.

  bench/memory.py [path/to/redsim] [--value-mb 100] [--keys 1000000] [--only redsim|redis]

Each scenario runs on a fresh server on a free loopback port (VmHWM is a
process-lifetime peak), stopped afterwards:
- big SET: SET of one --value-mb value from one client; the peak (VmHWM)
  above the RSS before the SET, as a multiple of the value's size.
- idle readers: after the SET, five clients each GET the value once and
  stay connected, idle; RSS 1.5 s later above the RSS after the SET, in MB
  (Redis frees a reply as it is written and its clientsCron trims buffers).
- 1M keys: --keys SETs of key:<12 digits> -> "xxx" (redis-benchmark's key
  and value shapes, but every key distinct) sent pipelined; RSS above the
  empty server's, in bytes per key; then FLUSHALL and RSS 1.5 s later.
Uses Debian's python3-redis (/usr/bin/python3) for the clients.
"""
import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time

import redis

MB = 1024 * 1024


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} for {pid}")


def rss(pid):
    return status_kb(pid, "VmRSS") * 1024


def hwm(pid):
    return status_kb(pid, "VmHWM") * 1024


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Server:
    def __init__(self, kind, redsim):
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="memory_bench_")
        if kind == "redsim":
            cmd = [redsim, "server", "--port", str(self.port), "--clock", "real"]
        else:
            cmd = ["redis-server", "--port", str(self.port), "--save", "", "--appendonly", "no",
                   "--dir", self.dir, "--bind", "127.0.0.1"]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.client = redis.Redis(port=self.port)
        for _ in range(200):
            try:
                self.client.ping()
                break
            except redis.exceptions.ConnectionError:
                time.sleep(0.05)
        else:
            self.stop()
            raise RuntimeError(f"{kind} did not start")
        self.pid = self.proc.pid

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def big_set(kind, redsim, value_mb):
    s = Server(kind, redsim)
    try:
        value = b"v" * (value_mb * MB)
        base = rss(s.pid)
        s.client.set("big", value)
        peak = hwm(s.pid) - base
        after_set = rss(s.pid)
        readers = [redis.Redis(port=s.port) for _ in range(5)]
        for r in readers:
            assert len(r.get("big")) == len(value)
        time.sleep(1.5)
        idle = rss(s.pid) - after_set
        for r in readers:
            r.close()
        return {"set_peak_x": peak / len(value), "idle_readers_mb": idle / MB}
    finally:
        s.stop()


def resp_set(i):
    key = b"key:%012d" % i
    return b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$3\r\nxxx\r\n" % (len(key), key)


def many_keys(kind, redsim, keys):
    s = Server(kind, redsim)
    try:
        base = rss(s.pid)
        sock = socket.create_connection(("127.0.0.1", s.port))
        batch = 10000
        for start in range(0, keys, batch):
            n = min(batch, keys - start)
            sock.sendall(b"".join(resp_set(i) for i in range(start, start + n)))
            want = n * len(b"+OK\r\n")
            got = 0
            while got < want:
                chunk = sock.recv(1 << 20)
                if not chunk:
                    raise RuntimeError("server closed")
                got += len(chunk)
        sock.close()
        assert s.client.dbsize() == keys
        loaded = rss(s.pid)
        s.client.flushall()
        time.sleep(1.5)
        flushed = rss(s.pid)
        return {"per_key_bytes": (loaded - base) / keys, "loaded_mb": (loaded - base) / MB,
                "after_flush_mb": (flushed - base) / MB, "base_mb": base / MB}
    finally:
        s.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("redsim", nargs="?", default="build/redsim")
    ap.add_argument("--value-mb", type=int, default=100)
    ap.add_argument("--keys", type=int, default=1000000)
    ap.add_argument("--only", choices=["redsim", "redis"])
    args = ap.parse_args()
    kinds = [args.only] if args.only else ["redsim", "redis"]
    rows = {}
    for kind in kinds:
        r = big_set(kind, args.redsim, args.value_mb)
        r.update(many_keys(kind, args.redsim, args.keys))
        rows[kind] = r
    print(f"| server | SET {args.value_mb} MB peak (x value) | 5 idle readers hold (MB) | "
          f"{args.keys} keys (MB above empty) | bytes/key | after FLUSHALL (MB above empty) |")
    print("|---|---|---|---|---|---|")
    for kind, r in rows.items():
        print(f"| {kind} | {r['set_peak_x']:.2f} | {r['idle_readers_mb']:.1f} | "
              f"{r['loaded_mb']:.1f} | {r['per_key_bytes']:.0f} | {r['after_flush_mb']:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
