"""A redis-py harness written for redis-server, run against redsim's
`redis-server` name unchanged: the fixture shape of redis-py's and most
projects' conftest.py (a temporary directory, a config file, --port, poll
with PING until it answers, SHUTDOWN NOSAVE at teardown).

Usage: redis_server_redis_py_test.py <redsim binary>
"""
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time

import redis


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(client, proc):
    """True once `proc` answers PING on the client's port; False when it
    exited (its port was taken); RuntimeError after 10 s."""
    deadline = time.monotonic() + 10
    while True:
        try:
            if client.ping() and client.info("server")["process_id"] == proc.pid:
                return True
        except redis.ConnectionError:
            pass
        if proc.poll() is not None:
            return False
        if time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError("redis-server did not answer PING within 10 s")
        time.sleep(0.05)


@contextlib.contextmanager
def redis_server(bin_dir):
    """Starts `redis-server` from PATH as a harness does; yields a client."""
    with tempfile.TemporaryDirectory() as tmp:
        conf = os.path.join(tmp, "redis.conf")
        with open(conf, "w") as f:
            f.write("bind 127.0.0.1\nsave \"\"\nappendonly no\ndir %s\n"
                    "databases 4\nmaxclients 100\n" % tmp)
        env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"])
        # A free port may be taken by a concurrent test's server before ours
        # binds it: a PONG counts only from our process, else a new port.
        for _ in range(5):
            port = free_port()
            proc = subprocess.Popen(["redis-server", conf, "--port", str(port)], env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            client = redis.Redis(port=port, decode_responses=True)
            if wait_ready(client, proc):
                break
            proc.wait()
            proc.stdout.close()
        else:
            raise RuntimeError("redis-server did not start on any of 5 free ports")
        try:
            yield client, proc
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            proc.stdout.close()


def main():
    redsim = os.path.realpath(sys.argv[1])
    with tempfile.TemporaryDirectory() as bin_dir:
        os.symlink(redsim, os.path.join(bin_dir, "redis-server"))
        with redis_server(bin_dir) as (r, proc):
            assert r.ping() is True
            assert r.set("k", "v", px=10000) is True
            assert r.get("k") == "v"
            assert r.config_get("databases") == {"databases": "4"}, r.config_get("databases")
            assert r.config_get("maxclients") == {"maxclients": "100"}
            try:
                r.select(4)
                raise AssertionError("SELECT 4 with databases 4 succeeded")
            except redis.ResponseError as e:
                assert "DB index is out of range" in str(e), e
            try:
                r.shutdown(nosave=True)
            except redis.ConnectionError:
                pass  # redis-py reports the closed connection of a successful SHUTDOWN
            assert proc.wait(timeout=10) == 0
            out = proc.stdout.read().decode()
            assert "Ready to accept connections" in out, out
    print("redis-py harness against the redis-server drop-in: ok")


if __name__ == "__main__":
    main()
