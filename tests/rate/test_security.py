"""The study server on a shared network: invitations, wrong tokens, oversized bodies, another
rater's page, the access log and a busy port. Every refusal is checked in the database too."""

from __future__ import annotations

import json
import os
import secrets
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from diveval.cli import main
from diveval.rate.app import create_app
from diveval.rate.guard import Backoff, RedactQuery
from diveval.rate.store import Conflict, Store
from diveval.rate.study import load_study

ADMIN = "admin-secret"
ROOT = Path(__file__).resolve().parents[2]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def rows(folder: Path, sql: str) -> list[tuple]:
    return sqlite3.connect(folder / "ratings.sqlite3").execute(sql).fetchall()


def nothing_stored(folder: Path) -> bool:
    return rows(folder, "SELECT COUNT(*) FROM scores") == [(0,)] and rows(
        folder, "SELECT COUNT(*) FROM assignments WHERE submitted IS NOT NULL"
    ) == [(0,)]


@pytest.fixture
def invited(make_study):
    """A study with ann, bob and cy invited, no open registration; (client, folder, tokens)."""
    folder = make_study(invite=("ann", "bob", "cy"))
    tokens = dict(Store(folder / "ratings.sqlite3").raters())
    clock = Clock()
    app = create_app(load_study(folder), ADMIN, backoff=Backoff(clock=clock))
    client = TestClient(app)
    client.clock = clock  # type: ignore[attr-defined]
    return client, folder, tokens


def head(token: str) -> dict[str, str]:
    return {"X-Rater-Token": token}


def test_init_issues_one_random_private_token_per_invited_rater(invited, capsys):
    _, folder, tokens = invited
    assert list(tokens) == ["ann", "bob", "cy"]
    assert len(set(tokens.values())) == 3 and all(len(t) >= 20 for t in tokens.values())
    assert load_study(folder).open is False


def test_a_name_not_invited_is_refused_without_open_registration(invited):
    c, folder, tokens = invited
    for name in ("dan", "ann"):  # a name never opens a rater's work, invited or not
        page = c.get(f"/?rater={name}")
        assert page.status_code == 403 and "by invitation" in page.text
    r = c.post("/api/raters", json={"name": "dan"})
    assert r.status_code == 403 and "by invitation" in r.json()["detail"]
    assert [n for n, _ in Store(folder / "ratings.sqlite3").raters()] == ["ann", "bob", "cy"]
    assert c.get(f"/?token={tokens['ann']}").status_code == 200
    assert c.get("/api/page", headers=head(tokens["ann"])).json()["rater"] == "ann"


def test_open_study_still_lets_names_register(make_study):
    c = TestClient(create_app(load_study(make_study(open=True)), ADMIN))
    assert c.get("/?rater=dan").status_code == 200
    assert c.post("/api/raters", json={"name": "dan"}).status_code == 201
    taken = c.post("/api/raters", json={"name": "dan"})
    assert taken.status_code == 409 and "private link" in taken.json()["detail"]


def test_serve_open_overrides_a_closed_study(invited):
    _, folder, _ = invited
    c = TestClient(create_app(load_study(folder), ADMIN, open_registration=True))
    assert c.post("/api/raters", json={"name": "dan"}).status_code == 201


def test_guessed_tokens_are_refused_then_slowed_down_and_nothing_is_stored(invited):
    c, folder, tokens = invited
    body = {"study": "x", "scores": [1, 2, 3]}
    for _ in range(5):  # the first few wrong links cost nothing: a rater may mistype
        guess = head(secrets.token_urlsafe(16))
        assert c.post("/api/page/0/submit", headers=guess, json=body).status_code == 401
    blocked = c.get("/api/page", headers=head(secrets.token_urlsafe(16)))
    assert blocked.status_code == 401  # the 6th wrong one starts the wait
    r = c.get("/api/page", headers=head(tokens["ann"]))
    # while blocked, even a right token is not checked: a guesser learns nothing meanwhile
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
    c.clock.now += 1.5
    assert c.get("/api/page", headers=head(tokens["ann"])).status_code == 200
    # a right token clears the record: the next wrong one is free again
    assert c.get("/api/page", headers=head("nope")).status_code == 401
    assert c.get("/api/page", headers=head(tokens["ann"])).status_code == 200
    assert nothing_stored(folder)


def test_wrong_admin_tokens_share_the_backoff(invited):
    c, _, _ = invited
    for _ in range(6):
        assert c.get("/api/admin/status", headers={"X-Admin-Token": "guess"}).status_code == 403
    assert c.get("/api/admin/status", headers={"X-Admin-Token": ADMIN}).status_code == 429


def test_backoff_grows_is_capped_and_remembers_a_bounded_number_of_clients():
    clock = Clock()
    b = Backoff(free=2, base=1.0, cap=8.0, max_clients=100, clock=clock)
    waits = []
    for _ in range(8):
        b.fail("10.0.0.1")
        waits.append(b.wait_left("10.0.0.1"))
    assert waits == [0, 0, 1, 2, 4, 8, 8, 8]
    for i in range(10_000):
        b.fail(f"client-{i}")
    assert len(b) == 100 and b.wait_left("10.0.0.1") == 0  # the oldest were forgotten


def test_tokens_are_compared_in_constant_time_against_every_stored_token(invited, monkeypatch):
    _, folder, tokens = invited
    import diveval.rate.store as store_module

    calls = []
    real = store_module.hmac.compare_digest

    def spy(a, b):
        calls.append(1)
        return real(a, b)

    monkeypatch.setattr(store_module.hmac, "compare_digest", spy)
    store = Store(folder / "ratings.sqlite3")
    assert store.rater_for(tokens["ann"]) == "ann"  # ann matches first, yet all 3 are compared
    assert len(calls) == 3
    assert store.rater_for(tokens["ann"][:-1]) is None and len(calls) == 6


@pytest.mark.parametrize("chunked", [False, True])
def test_oversized_body_gets_413_and_nothing_is_stored(invited, chunked):
    c, folder, tokens = invited
    page = c.get("/api/page", headers=head(tokens["ann"])).json()
    big = json.dumps({"study": page["study"], "scores": [1, 2, 3], "pad": "x" * 100_000})
    url = f"/api/page/{page['page']}/submit"
    hdrs = {**head(tokens["ann"]), "Content-Type": "application/json"}
    if chunked:  # no Content-Length: the body is counted as it arrives

        def pieces():
            data = big.encode()
            for i in range(0, len(data), 4096):
                yield data[i : i + 4096]

        r = c.post(url, headers=hdrs, content=pieces())
    else:
        r = c.post(url, headers=hdrs, content=big.encode())
    assert r.status_code == 413 and "too large" in r.json()["detail"]
    assert nothing_stored(folder)
    small = c.post(url, headers=head(tokens["ann"]), json={"study": page["study"], "scores": [1]})
    assert small.status_code == 422  # a normal body still reaches the app


def test_another_raters_link_forged_and_replayed_submissions_store_nothing(invited):
    c, folder, tokens = invited
    ann = c.get("/api/page", headers=head(tokens["ann"])).json()
    bob = c.get("/api/page", headers=head(tokens["bob"])).json()
    assert ann["page"] != bob["page"]
    url = f"/api/page/{ann['page']}/submit"
    body = {"study": ann["study"], "scores": [1, 2, 3]}
    # bob's link on ann's page: refused, whatever bob claims in the body
    assert c.post(url, headers=head(tokens["bob"]), json=body).status_code == 404
    forged = c.post(url, headers=head(tokens["bob"]), json={**body, "rater": "ann"})
    assert forged.status_code == 422
    score = {"study": ann["study"], "set": 1, "score": 9}
    assert (
        c.put(f"/api/page/{ann['page']}/score", headers=head(tokens["bob"]), json=score).status_code
        == 404
    )
    wrong_study = c.post(url, headers=head(tokens["ann"]), json={**body, "study": "other"})
    assert wrong_study.status_code == 404
    assert nothing_stored(folder)
    assert c.post(url, headers=head(tokens["ann"]), json=body).status_code == 200
    replay = c.post(url, headers=head(tokens["ann"]), json={**body, "scores": [50, 50, 50]})
    assert replay.status_code == 409
    assert sorted(v for (v,) in rows(folder, "SELECT score FROM scores")) == [1, 2, 3]


def test_admin_invites_a_rater_and_the_invitation_is_all_or_nothing(invited):
    c, folder, _ = invited
    r = c.post("/api/admin/raters", headers={"X-Admin-Token": ADMIN}, json={"name": "dan"})
    assert r.status_code == 201 and r.json()["link"].startswith("/?token=")
    assert c.post("/api/admin/raters", json={"name": "eve"}).status_code == 403
    store = Store(folder / "ratings.sqlite3")
    with pytest.raises(Conflict):
        store.invite(["fay", "ann"])  # ann is taken: fay must not be half-invited
    assert [n for n, _ in store.raters()] == ["ann", "bob", "cy", "dan"]


def test_init_without_raters_or_open_and_with_too_few_raters_is_an_error(tmp_path, capsys):
    paths = []
    for name in ("a", "b"):
        (tmp_path / f"{name}.txt").write_text("x\ny\nz\n")
        paths.append(str(tmp_path / f"{name}.txt"))
    argv = ["rate", "init", *paths, "--subsets", "1", "--size", "2", "--seed", "0"]
    assert main([*argv, "-o", str(tmp_path / "s1")]) == 2
    assert main([*argv, "--raters", "ann,bob", "-o", str(tmp_path / "s2")]) == 2
    assert main([*argv, "--raters", "3", "-o", str(tmp_path / "s3")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and "Traceback" not in "".join(err)
    assert "--raters ann,bob,cy" in err[0] and "--open" in err[0]
    assert "3 raters per page need at least 3 invited raters" in err[1]
    assert "use --per-page 3" in err[2]
    assert main([*argv, "--raters", "ann,bob", "--per-page", "2", "-o", str(tmp_path / "s4")]) == 0


def test_busy_port_is_one_line_and_exit_2_before_any_link_or_token(invited, capsys):
    _, folder, _ = invited
    before = rows(folder, "SELECT name, token FROM raters")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["rate", "serve", str(folder), "--port", str(port)]) == 2
    out, err = capsys.readouterr()
    assert out == ""  # no link was printed, no admin token issued
    assert err.count("\n") == 1 and f"cannot listen on 127.0.0.1:{port}" in err
    assert "Errno" not in err and "Traceback" not in err
    assert rows(folder, "SELECT name, token FROM raters") == before


def test_serve_prints_each_invited_link_and_warns_off_loopback(invited, capsys, monkeypatch):
    _, folder, tokens = invited
    import uvicorn

    import diveval.commands.rate as rate_command

    served = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: served.append(sockets))
    # uvicorn's logging set-up (dictConfig) replaces the process's handlers: in a test process
    # that closes handlers earlier tests left on pytest's captured streams; a served process
    # owns its logging, so only the printed links and warning are this test's business
    monkeypatch.setattr(uvicorn.Config, "configure_logging", lambda self: None)
    real_bind = rate_command._bind
    # no test listens beyond loopback: "0.0.0.0" is checked for the warning, 127.0.0.1 is bound
    monkeypatch.setattr(rate_command, "_bind", lambda host, port: real_bind("127.0.0.1", 0))
    assert main(["rate", "serve", str(folder), "--host", "0.0.0.0"]) == 0
    out, err = capsys.readouterr()
    assert err.startswith("warning: serving on 0.0.0.0: anyone who can reach this machine")
    for name, token in tokens.items():
        assert f"rater {name}: http://localhost:" in out and f"/?token={token}" in out
    assert "rater=NAME" not in out  # registration is closed
    assert served and served[0][0].getsockname()[0] == "127.0.0.1"
    served[0][0].close()
    assert main(["rate", "serve", str(folder), "--open"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "/?rater=NAME (open registration)" in out
    served[1][0].close()


def test_access_log_filter_drops_query_strings():
    import logging

    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        "",
        0,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5", "GET", "/admin?token=SECRET", "1.1", 200),
        None,
    )
    assert RedactQuery().filter(record)
    assert "SECRET" not in record.getMessage() and "/admin?<redacted>" in record.getMessage()


def test_a_real_server_logs_requests_without_their_tokens(invited, tmp_path):
    _, folder, tokens = invited
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = tmp_path / "serve.log"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    cmd = [sys.executable, "-m", "diveval", "rate", "serve", str(folder), "--port", str(port)]
    cmd += ["--admin-token", ADMIN]
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:  # bounded by the deadline
            try:
                urllib.request.urlopen(f"{base}/?token={tokens['ann']}", timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError(log.read_text()[-500:]) from None
                time.sleep(0.1)
        urllib.request.urlopen(f"{base}/api/admin/status?token={ADMIN}", timeout=5).close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    text = log.read_text()
    access = [line for line in text.splitlines() if '"GET ' in line]
    assert len(access) >= 2, text
    assert all(tokens["ann"] not in line and ADMIN not in line for line in access)
    assert any("/?<redacted>" in line for line in access)
