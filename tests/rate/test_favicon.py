"""The rater and admin pages name an icon the server has, and /favicon.ico (what a browser asks
for on a page that names none) is there too: no 404 in the browser's console."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from diveval.rate.app import create_app
from diveval.rate.study import load_study


def test_every_page_names_an_icon_the_server_has(make_study):
    client = TestClient(create_app(load_study(make_study()), "admin-secret"))
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    assert icon.content.startswith(b"<svg")
    for page in ("/", "/admin"):
        html = client.get(page).text
        (href,) = re.findall(r'<link rel="icon" href="([^"]+)"', html)
        got = client.get(href)
        assert got.status_code == 200 and got.content == icon.content
