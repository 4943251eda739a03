"""No network in the test suite: any attempt to reach an address outside this machine fails loudly.

``install()`` wraps ``socket.socket.connect`` / ``connect_ex`` / ``sendto``: a destination that is
not loopback, not a Unix socket and not an address of one of this machine's own interfaces (Ray's
driver talks to the node's own IP) raises ``NetworkBlocked`` and is recorded. The library that tried
sees an ordinary ``OSError`` (as when offline), and the test that caused it still fails: the
conftest checks ``attempts()`` after every test.

Child processes (the CLI run as a user would, Ray workers) get the same guard through
``guard_site/sitecustomize.py``, which the conftest puts on ``PYTHONPATH``; they append their
attempts to the file named by ``DIVEVAL_NETWORK_LOG``, which the parent reads back.

Run a command under the guard (e.g. the README demo)::

    python tests/no_network.py diveval score examples/responses.txt
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import socket
import sys
import traceback
from typing import Any, Iterator

LOG_ENV = "DIVEVAL_NETWORK_LOG"
GUARD_SITE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "guard_site")


class NetworkBlocked(ConnectionRefusedError):
    """A connection to a host outside this machine, refused by the test suite's guard."""


_attempts: list[str] = []
_local: set[str] = set()
_originals: dict[str, Any] = {}


def _own_addresses() -> set[str]:
    """Addresses of this machine's interfaces (psutil when present, else the host name's)."""
    found = {"localhost", socket.gethostname()}
    try:
        import psutil

        for addrs in psutil.net_if_addrs().values():
            found.update(a.address.split("%")[0] for a in addrs)
    except Exception:  # psutil absent or unreadable: fall back on the host name's addresses
        pass
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None):
            found.add(str(info[4][0]))
    except OSError:
        pass
    return found


def is_local(family: int, address: Any) -> bool:
    """True for a destination on this machine: Unix sockets, loopback, own interfaces."""
    if family not in (socket.AF_INET, socket.AF_INET6):
        return True  # AF_UNIX, netlink...: never leave the machine
    if not isinstance(address, tuple) or not address:
        return False
    host = str(address[0]).split("%")[0]
    if host in _local:
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False  # a host name other than our own: resolving it is already a network use
    mapped = getattr(ip, "ipv4_mapped", None)
    ip = mapped or ip
    return ip.is_loopback or ip.is_unspecified or str(ip) in _local


#: Known third-party probes, blocked like any other but not held against a test: Ray's dashboard
#: process (which Ray starts even with include_dashboard=False) looks for cloud metadata servers
#: (169.254.169.254) and, on clusters not started by ray.init, posts a "usage disabled" report,
#: whatever RAY_USAGE_STATS_ENABLED says. Nothing leaves the machine; they are counted apart.
KNOWN_PROBES = ("ray/_common/usage/usage_lib.py",)
TELEMETRY = "telemetry "


def _record(family: int, address: Any) -> None:
    stack = traceback.format_stack(limit=24)[:-2]
    where = "".join(stack)
    known = any(p in where for p in KNOWN_PROBES)
    entry = f"pid {os.getpid()} ({' '.join(sys.argv)[:200]}) -> {address!r}\n{where}"
    if known:
        entry = TELEMETRY + entry
    _attempts.append(entry)
    log = os.environ.get(LOG_ENV)
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(chr(0) + entry.replace("\n", "\n    ") + "\n")  # NUL: entry start


def _guard(name: str):
    original = _originals[name]

    def guarded(self, *args):
        address = args[-1] if name == "sendto" else args[0]
        if name == "sendto" and len(args) == 1:  # sendto(data) on a connected socket
            return original(self, *args)
        if not is_local(self.family, address):
            _record(self.family, address)
            raise NetworkBlocked(f"network access blocked in tests: {address!r}")
        return original(self, *args)

    guarded.__name__ = name
    return guarded


def _guarded_getaddrinfo(host, *args, **kwargs):
    """Name look-ups of other hosts are the first step of every download: refuse them too."""
    name = host.decode() if isinstance(host, bytes) else host
    if name is not None and name not in _local and not _is_literal(str(name)):
        _record(socket.AF_INET, (name, args[0] if args else None))
        raise NetworkBlocked(f"network access blocked in tests: look-up of {name!r}")
    return _originals["getaddrinfo"](host, *args, **kwargs)


def _is_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return False
    return True


def install() -> None:
    """Block non-local connections and look-ups in this process (idempotent)."""
    if _originals:
        return
    _local.update(_own_addresses())
    for name in ("connect", "connect_ex", "sendto"):
        _originals[name] = getattr(socket.socket, name)
        setattr(socket.socket, name, _guard(name))
    _originals["getaddrinfo"] = socket.getaddrinfo
    socket.getaddrinfo = _guarded_getaddrinfo


def uninstall() -> None:
    for name, original in _originals.items():
        if name == "getaddrinfo":
            socket.getaddrinfo = original
        else:
            setattr(socket.socket, name, original)
    _originals.clear()


@contextlib.contextmanager
def expected() -> Iterator[list[str]]:
    """For the guard's own tests: attempts made inside are returned, not held against the test."""
    start = len(_attempts)
    seen: list[str] = []
    try:
        yield seen
    finally:
        seen.extend(_attempts[start:])
        del _attempts[start:]


def _all_entries() -> list[str]:
    found = list(_attempts)
    log = os.environ.get(LOG_ENV)
    if log and os.path.exists(log):
        with open(log, encoding="utf-8") as fh:
            text = fh.read()
        mine = f"pid {os.getpid()} "
        for entry in text.split("\n" + chr(0)):
            entry = entry.strip("\n" + chr(0))
            if entry and not entry.removeprefix(TELEMETRY).startswith(mine):
                found.append(entry)
    return found


def attempts() -> list[str]:
    """Blocked attempts of this process so far, and those its children logged (known
    third-party probes left out: see ``telemetry``)."""
    return [e for e in _all_entries() if not e.startswith(TELEMETRY)]


def telemetry() -> list[str]:
    """Blocked probes of the KNOWN_PROBES kind, this process's and its children's."""
    return [e for e in _all_entries() if e.startswith(TELEMETRY)]


def child_environment(log_path: str) -> dict[str, str]:
    """Environment variables that put child Python processes under the guard."""
    paths = [GUARD_SITE, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {
        "PYTHONPATH": os.pathsep.join(dict.fromkeys(paths)),
        LOG_ENV: log_path,
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
    }


def main(argv: list[str]) -> int:
    """``python tests/no_network.py diveval ARGS...``: run the CLI in-process under the guard."""
    install()
    if not argv or argv[0] != "diveval":
        print("usage: python tests/no_network.py diveval ARGS...", file=sys.stderr)
        return 2
    from diveval.cli import main as diveval_main

    status = diveval_main(argv[1:])
    if _attempts:
        print(f"network attempts: {len(_attempts)}", file=sys.stderr)
        for entry in _attempts:
            print(entry, file=sys.stderr)
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
