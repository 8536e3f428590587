"""pytest fixtures that run tests against `redsim server` instead of Redis.

`redsim server --port 0 --clock virtual` is a fake Redis 7.0 whose clock
moves only when a test says so, so key expiry and lock leases are tested
without sleeping:

    # conftest.py
    pytest_plugins = ["redsim_fixture"]

    # test_cache.py
    def test_entry_expires(redsim):
        redsim.set("k", "v", px=100)
        redsim.advance(100)          # REDSIM.ADVANCE 100: the clock moves 100 ms
        assert redsim.get("k") == "v"  # a key is gone only once now > deadline
        redsim.advance(1)
        assert redsim.get("k") is None

Fixtures:
- `redsim`: a fresh server for the test; yields a `RedsimClient` (a
  `redis.Redis` with `decode_responses=True`, plus `advance(ms)` and
  `server`); stops the server at teardown.
- `redsim_server`: the `RedsimServer` behind `redsim`, for tests that want
  more connections (`redsim_server.client()`) or the port.

The binary is $REDSIM_BINARY if set, else `redsim` on PATH, else the
Debian package's /usr/bin/redsim. Needs redis-py (Debian: python3-redis).
`RedsimServer` is a context manager and works without pytest too.
"""
import os
import re
import shutil
import subprocess
import threading

import redis

__all__ = ["RedsimClient", "RedsimServer", "RedsimStartError", "redsim", "redsim_server"]

_READY = re.compile(rb"Ready to accept connections tcp (\S+):(\d+)")


class RedsimStartError(RuntimeError):
    """`redsim server` exited or printed no ready line in time."""


def find_binary():
    """The redsim binary: $REDSIM_BINARY, `redsim` on PATH, /usr/bin/redsim."""
    path = os.environ.get("REDSIM_BINARY") or shutil.which("redsim") or "/usr/bin/redsim"
    if not os.access(path, os.X_OK):
        raise RedsimStartError("no redsim binary at %s (set REDSIM_BINARY)" % path)
    return path


class RedsimClient(redis.Redis):
    """A redis-py client of one `redsim server`, with its clock control."""

    def __init__(self, server, **kwargs):
        kwargs.setdefault("decode_responses", True)
        super().__init__(host=server.host, port=server.port, **kwargs)
        self.server = server

    def advance(self, ms):
        """Moves the server's virtual clock forward by `ms` milliseconds
        (REDSIM.ADVANCE). Keys whose deadline is now passed are expired."""
        return self.execute_command("REDSIM.ADVANCE", int(ms))


class RedsimServer:
    """One `redsim server` process on a free loopback port.

    `args` are extra `redsim server` arguments (for example
    ["--seed", "7"]); `clock` is "virtual" (moves only on advance) or
    "real" (wall time). `start()` returns once the server accepts
    connections; `stop()` ends it with SIGTERM (SIGKILL after
    `stop_timeout_s`) and returns its exit code.
    """

    def __init__(self, binary=None, clock="virtual", args=(), start_timeout_s=10.0,
                 stop_timeout_s=5.0):
        self.binary = binary or find_binary()
        self.clock = clock
        self.args = list(args)
        self.start_timeout_s = start_timeout_s
        self.stop_timeout_s = stop_timeout_s
        self.host = None
        self.port = None
        self.process = None
        self.output = b""  # what the server printed before its ready line

    def start(self):
        cmd = [self.binary, "server", "--bind", "127.0.0.1", "--port", "0",
               "--clock", self.clock] + self.args
        self.process = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT)
        # Read the ready line on a thread so that a server that hangs
        # before printing it fails after the timeout instead of blocking.
        found = {}

        def read_until_ready():
            for line in self.process.stdout:
                self.output += line
                m = _READY.search(line)
                if m:
                    found["addr"] = (m.group(1).decode(), int(m.group(2)))
                    return

        reader = threading.Thread(target=read_until_ready, daemon=True)
        reader.start()
        reader.join(self.start_timeout_s)
        if "addr" not in found:
            self.stop()
            raise RedsimStartError("`%s` printed no ready line: %s"
                                   % (" ".join(cmd), self.output.decode(errors="replace")))
        self.host, self.port = found["addr"]
        # Keep draining the pipe so that a chatty server never blocks on it.
        threading.Thread(target=self._drain, args=(self.process.stdout,), daemon=True).start()
        return self

    @staticmethod
    def _drain(pipe):
        for _ in pipe:
            pass

    def client(self, **kwargs):
        """A new `RedsimClient` of this server (redis.Redis keyword arguments)."""
        return RedsimClient(self, **kwargs)

    def stop(self):
        """Stops the server; returns its exit code (None if never started)."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(self.stop_timeout_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


try:
    import pytest
except ImportError:  # the classes above work without pytest
    pytest = None

if pytest is not None:

    @pytest.fixture
    def redsim_server():
        """A `redsim server --port 0 --clock virtual` for one test."""
        with RedsimServer() as server:
            yield server

    @pytest.fixture
    def redsim(redsim_server):
        """A redis-py client of `redsim_server`, with advance(ms)."""
        client = redsim_server.client()
        try:
            yield client
        finally:
            client.close()
