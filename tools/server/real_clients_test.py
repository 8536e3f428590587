#!/usr/bin/env python3
"""Real Redis clients against `redsim server`: redis-cli (single commands,
piped input, and an interactive session on a pseudo-terminal), redis-py
(Debian's python3-redis, including its Lock with blocking_timeout) and
redis-benchmark (SET, GET and an EVALSHA of the reentrant acquire script).

Usage: real_clients_test.py path/to/redsim path/to/scripts_dir
Each server is started on a free port (--port 0) and stopped, also on failure.
Exit status 0 when every check passes; failures are listed on stderr.
"""
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
import unittest

import redis

REDSIM = sys.argv[1] if len(sys.argv) > 1 else "build/redsim"
SCRIPTS = sys.argv[2] if len(sys.argv) > 2 else "scripts"


class RedsimServer:
    """`redsim server --port 0` as a child process; .port once it is ready."""

    def __init__(self, clock="real"):
        self.proc = subprocess.Popen(
            [REDSIM, "server", "--port", "0", "--clock", clock],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.log = []
        deadline = time.time() + 10
        self.port = None
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            self.log.append(line)
            m = re.search(r"Ready to accept connections tcp \S+:(\d+)$", line.strip())
            if m:
                self.port = int(m.group(1))
                return
        self.stop()
        raise RuntimeError("redsim server did not start: " + "".join(self.log))

    def stop(self):
        """SIGTERM; returns (exit code, rest of the output)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            out, _ = self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, _ = self.proc.communicate()
        return self.proc.returncode, out


def cli(port, *args, stdin=None):
    r = subprocess.run(["redis-cli", "-p", str(port), *args], input=stdin,
                       capture_output=True, text=True, timeout=30)
    return r.stdout


class RealClients(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = RedsimServer("real")
        cls.port = cls.server.port

    @classmethod
    def tearDownClass(cls):
        code, out = cls.server.stop()
        assert code == 0, f"redsim server exited {code}: {out}"
        assert "stopped" in out, out

    def setUp(self):
        cli(self.port, "FLUSHALL")

    # ---- redis-cli ----------------------------------------------------------

    def test_redis_cli_single_commands(self):
        self.assertEqual(cli(self.port, "SET", "k", "v w"), "OK\n")
        self.assertEqual(cli(self.port, "GET", "k"), "v w\n")
        self.assertEqual(cli(self.port, "INCR", "n"), "1\n")
        self.assertEqual(cli(self.port, "HSET", "h", "f", "1"), "1\n")
        # redis-cli ends an error with an empty line when stdout is not a terminal.
        self.assertEqual(cli(self.port, "GET", "h"),
                         "WRONGTYPE Operation against a key holding the wrong kind of value\n\n")
        self.assertEqual(cli(self.port, "NOSUCH", "a"),
                         "ERR unknown command 'NOSUCH', with args beginning with: 'a' \n\n")
        self.assertIn("redis_version:7.0.15", cli(self.port, "INFO", "server"))

    def test_redis_cli_piped_input(self):
        out = cli(self.port, stdin="SET a 1\nINCR a\nGET a\nMULTI\nINCR a\nEXEC\nDBSIZE\n")
        self.assertEqual(out, "OK\n2\n2\nOK\nQUEUED\n3\n1\n")

    def test_redis_cli_pipe_mode(self):
        payload = "".join(f"SET p{i} {i}\r\n" for i in range(500))
        r = subprocess.run(["redis-cli", "-p", str(self.port), "--pipe"], input=payload,
                           capture_output=True, text=True, timeout=30)
        self.assertIn("errors: 0, replies: 500", r.stdout)
        self.assertEqual(cli(self.port, "DBSIZE"), "500\n")

    def test_redis_cli_interactive_on_a_terminal(self):
        pid, fd = pty.fork()
        if pid == 0:
            # A dumb terminal: linenoise reads plain lines, no cursor queries.
            os.execvpe("redis-cli", ["redis-cli", "-p", str(self.port)],
                       dict(os.environ, TERM="dumb"))
        try:
            def read_until(text, timeout=10):
                buf = b""
                deadline = time.time() + timeout
                while text.encode() not in buf and time.time() < deadline:
                    r, _, _ = select.select([fd], [], [], 0.2)
                    if r:
                        try:
                            buf += os.read(fd, 4096)
                        except OSError:
                            break
                return buf.decode(errors="replace")

            prompt = f"127.0.0.1:{self.port}>"
            self.assertIn(prompt, read_until(prompt))
            os.write(fd, b"SET tk hello\r")
            self.assertIn("OK", read_until("OK"))
            os.write(fd, b"GET tk\r")
            self.assertIn('"hello"', read_until('"hello"'))
            os.write(fd, b"HGETALL nosuch\r")
            self.assertIn("(empty array)", read_until("(empty array)"))
            os.write(fd, b"SELECT 3\r")
            self.assertIn(f"127.0.0.1:{self.port}[3]>", read_until("[3]>"))
            os.write(fd, b"quit\r")
            _, status = os.waitpid(pid, 0)
            pid = 0
            self.assertEqual(os.waitstatus_to_exitcode(status), 0)
        finally:
            if pid:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            os.close(fd)

    # ---- redis-py -------------------------------------------------------------

    def test_redis_py_basics_pipeline_pubsub(self):
        r = redis.Redis(port=self.port, decode_responses=True)
        self.assertTrue(r.ping())
        self.assertTrue(r.set("k", "v", px=5000))
        self.assertEqual(r.get("k"), "v")
        self.assertGreater(r.pttl("k"), 4000)
        self.assertTrue(r.client_setname("py"))
        self.assertEqual(r.client_getname(), "py")
        self.assertEqual(r.info()["redis_version"], "7.0.15")
        self.assertEqual(r.config_get("maxmemory"), {"maxmemory": "0"})
        with r.pipeline(transaction=True) as p:
            p.incr("n").incr("n").hset("h", "f", "x").hget("h", "f")
            self.assertEqual(p.execute(), [1, 2, 1, "x"])
        with self.assertRaises(redis.ResponseError) as e:
            r.hget("k", "f")
        self.assertIn("WRONGTYPE", str(e.exception))

        ps = r.pubsub()
        ps.subscribe("news")
        self.assertEqual(ps.get_message(timeout=5)["type"], "subscribe")
        self.assertEqual(r.publish("news", "hi"), 1)
        msg = ps.get_message(timeout=5)
        self.assertEqual((msg["type"], msg["channel"], msg["data"]), ("message", "news", "hi"))
        ps.close()

    def test_redis_py_watch_retry(self):
        r = redis.Redis(port=self.port)
        r.set("ctr", 0)
        other = redis.Redis(port=self.port)
        with r.pipeline() as p:
            p.watch("ctr")
            other.incr("ctr")  # touches the watched key
            p.multi()
            p.incr("ctr")
            with self.assertRaises(redis.WatchError):
                p.execute()
        self.assertEqual(int(r.get("ctr")), 1)

    def test_redis_py_lock_with_blocking_timeout(self):
        r = redis.Redis(port=self.port)
        a = r.lock("res", timeout=10, blocking_timeout=0.2)
        b = redis.Redis(port=self.port).lock("res", timeout=10, blocking_timeout=0.3)
        self.assertTrue(a.acquire())
        self.assertTrue(a.locked())
        self.assertTrue(a.owned())
        started = time.monotonic()
        self.assertFalse(b.acquire())  # gives up before its next try would pass blocking_timeout
        waited = time.monotonic() - started
        self.assertGreaterEqual(waited, 0.15)
        self.assertLess(waited, 5)
        self.assertTrue(a.extend(5))
        self.assertGreater(r.pttl("res"), 10000)
        a_token = a.local.token
        a.release()
        self.assertTrue(b.acquire())
        with self.assertRaises(redis.exceptions.LockNotOwnedError):
            a.do_release(a_token)  # the Lua release script refuses a stale owner
        b.release()
        self.assertFalse(r.exists("res"))

    def test_redis_py_lock_expires_on_the_wall_clock(self):
        r = redis.Redis(port=self.port)
        a = r.lock("short", timeout=0.2)
        self.assertTrue(a.acquire())
        b = r.lock("short", timeout=5, blocking_timeout=2, sleep=0.05)
        started = time.monotonic()
        self.assertTrue(b.acquire())  # after a's lease ran out
        self.assertGreaterEqual(time.monotonic() - started, 0.1)
        b.release()

    # ---- redis-benchmark --------------------------------------------------------

    def bench(self, *args):
        r = subprocess.run(["redis-benchmark", "-p", str(self.port), "--csv", *args],
                           capture_output=True, text=True, timeout=60)
        rows = [line for line in r.stdout.splitlines() if line and not line.startswith('"test"')]
        self.assertTrue(rows, r.stdout + r.stderr)
        return rows

    def test_redis_benchmark_set_get(self):
        rows = self.bench("-t", "set,get", "-n", "2000", "-c", "10")
        self.assertEqual([row.split(",")[0] for row in rows], ['"SET"', '"GET"'])
        for row in rows:
            self.assertGreater(float(row.split(",")[1].strip('"')), 0)
        self.assertEqual(cli(self.port, "STRLEN", "key:__rand_int__"), "3\n")  # -d 3

    def test_redis_benchmark_evalsha_lock_script(self):
        with open(os.path.join(SCRIPTS, "reentrant_acquire.lua")) as f:
            sha = cli(self.port, "SCRIPT", "LOAD", f.read()).strip()
        self.bench("-n", "1000", "-c", "10", "evalsha", sha, "1", "lock:bench", "30000", "owner:1")
        self.bench("-n", "1600", "-c", "4", "-P", "16", "evalsha", sha, "1", "lock:bench",
                   "30000", "owner:1")
        # Every acquire was a re-entry by the same owner: the hold count is exact.
        self.assertEqual(cli(self.port, "HGET", "lock:bench", "owner:1"), "2600\n")


class CommandLine(unittest.TestCase):
    def test_port_in_use_and_bad_arguments(self):
        server = RedsimServer("real")
        try:
            r = subprocess.run([REDSIM, "server", "--port", str(server.port)],
                               capture_output=True, text=True, timeout=10)
            self.assertEqual(r.returncode, 1)
            self.assertIn("Address already in use", r.stderr)
        finally:
            self.assertEqual(server.stop()[0], 0)
        r = subprocess.run([REDSIM, "server", "--bind", "not-an-address", "--port", "0"],
                           capture_output=True, text=True, timeout=10)
        self.assertEqual(r.returncode, 1)
        self.assertIn("bad bind address", r.stderr)
        r = subprocess.run([REDSIM, "server", "--clock", "sundial"],
                           capture_output=True, text=True, timeout=10)
        self.assertEqual(r.returncode, 2)


class VirtualClock(unittest.TestCase):
    def test_expiry_follows_debug_sleep_and_redsim_advance_only(self):
        server = RedsimServer("virtual")
        try:
            r = redis.Redis(port=server.port)
            r.set("k", "v", px=100)
            time.sleep(0.2)  # wall time is not the server's time
            self.assertEqual(r.pttl("k"), 100)
            r.execute_command("DEBUG", "SLEEP", "0.1")
            self.assertEqual(r.pttl("k"), 0)
            r.execute_command("REDSIM.ADVANCE", "1")
            self.assertIsNone(r.get("k"))
            lock = r.lock("res", timeout=1)
            self.assertTrue(lock.acquire(blocking=False))
            r.execute_command("REDSIM.ADVANCE", "1001")
            self.assertFalse(r.exists("res"))
        finally:
            code, out = server.stop()
        self.assertEqual(code, 0, out)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]], verbosity=2)
