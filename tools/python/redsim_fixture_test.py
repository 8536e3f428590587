"""Tests of redsim_fixture, run as its users run it:
`python3 -m pytest -p redsim_fixture` with REDSIM_BINARY naming the binary."""
import socket

import pytest
import redis

from redsim_fixture import RedsimServer, RedsimStartError


def test_a_key_expires_only_when_the_clock_is_advanced_past_its_deadline(redsim):
    assert redsim.set("k", "v", px=100)
    assert redsim.get("k") == "v"
    assert redsim.advance(100)
    assert redsim.get("k") == "v"  # now == deadline: still there, as in Redis
    redsim.advance(1)
    assert redsim.get("k") is None


def test_advance_moves_time_and_nothing_else_does(redsim):
    seconds, micros = redsim.time()
    before_us = seconds * 1_000_000 + micros
    assert redsim.time() == (seconds, micros)  # virtual: no wall time passes
    redsim.advance(1500)
    seconds, micros = redsim.time()
    assert seconds * 1_000_000 + micros - before_us == 1_500_000


def test_a_lease_is_held_until_it_expires(redsim):
    other = redsim.server.client()
    assert redsim.set("lock", "a", nx=True, px=30_000)
    redsim.advance(29_999)
    assert other.set("lock", "b", nx=True, px=30_000) is None
    assert redsim.pttl("lock") == 1
    redsim.advance(2)
    assert other.set("lock", "b", nx=True, px=30_000)
    assert redsim.get("lock") == "b"
    other.close()


def test_each_test_gets_its_own_server(redsim_server, redsim):
    with RedsimServer() as second:
        assert second.port != redsim_server.port
        c = second.client()
        c.set("only-here", 1)
        assert redsim.exists("only-here") == 0
        c.close()


def test_the_server_stops_at_teardown():
    with RedsimServer() as server:
        client = server.client()
        assert client.ping()
        process, port = server.process, server.port
    assert process.returncode == 0  # SIGTERM: a clean stop
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    with pytest.raises(redis.ConnectionError):
        client.ping()


def test_a_server_that_cannot_start_is_reported_with_its_output():
    with pytest.raises(RedsimStartError, match="--clock"):
        RedsimServer(clock="sundial").start()


def test_a_missing_binary_is_reported(monkeypatch, tmp_path):
    monkeypatch.setenv("REDSIM_BINARY", str(tmp_path / "no-such-redsim"))
    with pytest.raises(RedsimStartError, match="REDSIM_BINARY"):
        RedsimServer()
