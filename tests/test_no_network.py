"""The test suite's no-network guard (tests/no_network.py) catches what it must and lets local
traffic (loopback, this machine's own interfaces, Unix sockets) through."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import urllib.request

import no_network
import pytest

OUTSIDE = ("192.0.2.1", 443)  # TEST-NET-1: documentation only, never this machine


def test_the_guard_is_on_for_the_whole_suite():
    assert socket.socket.connect.__name__ == "connect" and no_network._originals
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert no_network.GUARD_SITE in os.environ["PYTHONPATH"].split(os.pathsep)


def test_a_connection_outside_is_refused_and_recorded():
    with no_network.expected() as seen, socket.socket() as s:
        with pytest.raises(no_network.NetworkBlocked):
            s.connect(OUTSIDE)
    assert len(seen) == 1 and "192.0.2.1" in seen[0]


def test_connect_ex_and_udp_sendto_are_refused():
    with no_network.expected() as seen:
        with socket.socket() as s, pytest.raises(no_network.NetworkBlocked):
            s.connect_ex(OUTSIDE)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
            with pytest.raises(no_network.NetworkBlocked):
                u.sendto(b"x", ("8.8.8.8", 53))
    assert len(seen) == 2


def test_a_download_is_caught_at_the_name_lookup():
    with no_network.expected() as seen, pytest.raises(OSError):
        urllib.request.urlopen("https://huggingface.co/api/models", timeout=5)
    assert any("huggingface.co" in entry for entry in seen)


def test_loopback_and_own_interfaces_pass():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with socket.socket() as client:
            client.connect(server.getsockname())
    for host in ("127.0.0.1", "::1", "localhost", socket.gethostname(), "0.0.0.0"):
        assert no_network.is_local(socket.AF_INET, (host, 80)), host
    own = no_network._own_addresses() - {"localhost"}
    assert all(no_network.is_local(socket.AF_INET, (a, 80)) for a in own)
    assert no_network.is_local(socket.AF_UNIX, "/tmp/x.sock")
    assert not no_network.is_local(socket.AF_INET6, ("2001:db8::1", 80, 0, 0))
    assert not no_network.is_local(socket.AF_INET, ("example.com", 80))


def test_child_processes_are_guarded_and_report_back(tmp_path):
    log = tmp_path / "net.log"
    env = dict(os.environ, **no_network.child_environment(str(log)))
    code = (
        "import socket\n"
        "try:\n    socket.create_connection(('192.0.2.1', 80), timeout=1)\n"
        "except ConnectionRefusedError as e:\n    print(type(e).__name__)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert proc.stdout.strip() == "NetworkBlocked", proc.stderr
    assert "192.0.2.1" in log.read_text()


def test_the_readme_demo_runs_under_the_guard(examples_dir, capsys):
    """`make demo`'s commands, in-process under the guard: no attempt at all."""
    from diveval.cli import main

    demo = [
        ["score", str(examples_dir / "responses.txt")],
        ["score", str(examples_dir / "sets.jsonl")],
        ["score", str(examples_dir / "sets.jsonl"), "--metric", "nli-confidence"],
    ]
    before = len(no_network.attempts())
    for argv in demo:
        assert main([*argv, "--quiet"]) == 0
    assert no_network.attempts()[before:] == []
    assert "distinct-2" in capsys.readouterr().out
