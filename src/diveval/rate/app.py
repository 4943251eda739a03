"""The study's web server (FastAPI): a rater page, an admin page, and the JSON API behind them.

Raters: each invited rater has a private link ``/?token=...`` (issued by ``rate init --raters``
or by the admin page); every rater call carries the token in ``X-Rater-Token``. Only a study
opened with ``--open`` lets anyone register a name (``POST /api/raters``, which answers the new
token once); otherwise ``/?rater=NAME`` answers 403. Raters see sets as "Set 1..M" in their own
seeded order and never see system names or other raters' scores.
Admin: every ``/api/admin/*`` call needs the admin token printed at ``serve`` start.
Wrong tokens slow their client down (guard.Backoff); bodies are bounded (guard.LimitBody).
"""

from __future__ import annotations

import hashlib
import hmac
from importlib import resources
from typing import Any

from fastapi import FastAPI, Header, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse
from pydantic import BaseModel, ConfigDict, StrictInt

from ..errors import InputError
from .aggregate import aggregate
from .export import DEFAULT_METRICS, export_rows, rows_to_csv
from .guard import MAX_BODY, Backoff, LimitBody
from .store import Conflict, Store
from .study import STUDY_FILE, Study

# Only this server's own assets: the page must load nothing from another host.
CSP = "default-src 'self'; connect-src 'self'; img-src 'self'; style-src 'self'; script-src 'self'"


class NewRater(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str


class ScoreIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    study: str
    set: StrictInt
    score: StrictInt | None  # required; null withdraws the draft score of that set


class SubmitIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    study: str
    scores: list[StrictInt]


def study_id(study: Study) -> str:
    return hashlib.sha256((study.folder / STUDY_FILE).read_bytes()).hexdigest()[:12]


INVITE_ONLY = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>diveval: by invitation</title>
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml"></head>
<body><h1>This study is by invitation</h1>
<p>Open the private link the study's organiser sent you. A name in the address does not open a
rater's work: only their private link does.</p></body></html>
"""


def create_app(
    study: Study,
    admin_token: str,
    open_registration: bool | None = None,
    backoff: Backoff | None = None,
    max_body: int = MAX_BODY,
) -> FastAPI:
    """The ASGI app; ``open_registration`` None follows the study's own choice (``init --open``)."""
    is_open = study.open if open_registration is None else open_registration
    guard = backoff if backoff is not None else Backoff()  # an empty one has len 0
    access = Access(study, Store(study.db_path), admin_token, guard)
    app = FastAPI(title="diveval rate", docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(LimitBody, limit=max_body)
    _add_headers_and_errors(app)
    _add_pages(app, is_open)
    _add_rater_api(app, access, is_open)
    _add_admin_api(app, access, is_open)
    return app


class Access:
    """Who may do what: the rater behind a token, the admin token, the pages a rater may score;
    wrong tokens slow their client down (``guard``)."""

    def __init__(self, study: Study, store: Store, admin_token: str, guard: Backoff) -> None:
        self.study, self.store, self.guard = study, store, guard
        self.sid = study_id(study)
        self._admin_token = admin_token

    def checked(self, request: Request, token: str | None, lookup) -> Any:
        """lookup(token) under the client's backoff: None (no token, or a wrong one) or a value."""
        if not token:
            return None
        client = request.client.host if request.client else "?"
        wait = self.guard.wait_left(client)
        if wait > 0:
            raise HTTPException(
                429,
                f"too many wrong links from your address: try again in {wait:.0f} s",
                headers={"Retry-After": str(max(1, round(wait)))},
            )
        found = lookup(token)
        if found is None:
            self.guard.fail(client)
        else:
            self.guard.succeed(client)
        return found

    def rater(self, request: Request, token: str | None) -> str:
        name = self.checked(request, token, self.store.rater_for)
        if name is None:
            raise HTTPException(401, "unknown rater: open the private link you were given")
        return str(name)

    def order(self, rater: str, page: int) -> list[str]:
        """The systems of ``page`` in the rater's order; the page must be theirs and open."""
        pages = len(self.study.pages)
        found = self.store.assignment(rater, page) if 0 <= page < pages else None
        if found is None:
            raise HTTPException(404, f"page {page} is not assigned to you")
        if found[1]:
            raise HTTPException(409, f"page {page} was already submitted")
        return found[0]

    def open_page(
        self, request: Request, token: str | None, study: str, page: int
    ) -> tuple[str, list[str]]:
        """(rater, the page's systems in their order) for a change to one of their open pages."""
        rater = self.rater(request, token)
        if study != self.sid:
            raise HTTPException(404, "unknown study: reload the page")
        return rater, self.order(rater, page)

    def require_admin(self, request: Request, token: str | None) -> None:
        def is_admin(given: str) -> bool | None:
            return True if hmac.compare_digest(given.encode(), self._admin_token.encode()) else None

        if not self.checked(request, token, is_admin):
            raise HTTPException(403, "the admin token printed at `diveval rate serve` is needed")


def _add_headers_and_errors(app: FastAPI) -> None:
    @app.middleware("http")
    async def security_headers(request: Request, call_next):
        response = await call_next(request)
        response.headers["Content-Security-Policy"] = CSP
        response.headers["Cache-Control"] = "no-store"
        # the page's address holds the rater's token: never send it along as a Referer
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    @app.exception_handler(RequestValidationError)
    async def readable_422(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
        return JSONResponse({"detail": f"{where}: {first.get('msg', 'invalid request')}"}, 422)


def _add_pages(app: FastAPI, is_open: bool) -> None:
    """The rater and admin pages and their static files."""
    static = resources.files("diveval.rate") / "static"

    def asset(name: str) -> FileResponse:
        return FileResponse(str(static / name))

    @app.get("/", include_in_schema=False, response_model=None)
    def rater_page(rater: str | None = None, token: str | None = None):
        if rater is not None and token is None and not is_open:
            return HTMLResponse(INVITE_ONLY, 403)
        return asset("rate.html")

    @app.get("/admin", include_in_schema=False)
    def admin_page() -> FileResponse:
        return asset("admin.html")

    @app.get("/static/{name}", include_in_schema=False)
    def static_file(name: str) -> FileResponse:
        if name not in {"rate.js", "rate.css", "admin.js", "favicon.svg"}:
            raise HTTPException(404, "not found")
        return asset(name)

    # browsers ask for /favicon.ico on every page that names no icon (the invitation page)
    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:
        return FileResponse(str(static / "favicon.svg"), media_type="image/svg+xml")


def _add_rater_api(app: FastAPI, access: Access, is_open: bool) -> None:
    study, store = access.study, access.store

    @app.post("/api/raters", status_code=201)
    def add_rater(body: NewRater) -> dict[str, str]:
        if not is_open:
            raise HTTPException(
                403, "this study is by invitation: open the private link you were given"
            )
        try:
            return {"name": body.name, "token": store.add_rater(body.name)}
        except ValueError as exc:
            raise HTTPException(422, str(exc)) from None
        except Conflict:
            raise HTTPException(
                409,
                f"the name {body.name!r} is taken. If it is yours, open your private link (the "
                "address this page moved to on your first visit); a name alone never reopens "
                "a rater's work. Otherwise choose another name.",
            ) from None

    @app.get("/api/page")
    def next_page(request: Request, x_rater_token: str | None = Header(None)) -> dict[str, Any]:
        rater = access.rater(request, x_rater_token)
        page = store.open_page(rater, len(study.pages), study.order_for)
        done = store.progress(rater)
        base = {"study": access.sid, "rater": rater, "done": done, "total": len(study.pages)}
        if page is None:
            return {**base, "finished": True}
        order = access.order(rater, page)
        saved = store.scores(rater, page)
        sets = study.page_sets(page)
        return {
            **base,
            "finished": False,
            "page": page,
            "sets": [
                {"label": f"Set {i + 1}", "responses": sets[system], "score": saved.get(system)}
                for i, system in enumerate(order)
            ],
        }

    @app.put("/api/page/{page}/score")
    def put_score(
        request: Request, page: int, body: ScoreIn, x_rater_token: str | None = Header(None)
    ):
        rater, order = access.open_page(request, x_rater_token, body.study, page)
        if not 1 <= body.set <= len(order):
            raise HTTPException(404, f"there is no Set {body.set} on this page")
        try:
            store.put_score(rater, page, order[body.set - 1], body.score)
        except ValueError as exc:
            raise HTTPException(422, f"Set {body.set}: {exc}") from None
        except Conflict as exc:
            raise HTTPException(409, str(exc)) from None
        return {"saved": body.score is not None}

    @app.post("/api/page/{page}/submit")
    def submit(
        request: Request, page: int, body: SubmitIn, x_rater_token: str | None = Header(None)
    ):
        rater, order = access.open_page(request, x_rater_token, body.study, page)
        if len(body.scores) != len(order):
            raise HTTPException(422, f"every one of the {len(order)} sets needs a score")
        for i, value in enumerate(body.scores):
            if not 1 <= value <= 50:
                raise HTTPException(422, f"Set {i + 1}: a score is between 1 and 50")
        try:
            store.submit(rater, page, dict(zip(order, body.scores)))
        except Conflict as exc:
            raise HTTPException(409, str(exc)) from None
        return {"submitted": True, "done": store.progress(rater)}


def _add_admin_api(app: FastAPI, access: Access, is_open: bool) -> None:
    study, store = access.study, access.store

    @app.post("/api/admin/raters", status_code=201)
    def invite(request: Request, body: NewRater, x_admin_token: str | None = Header(None)):
        access.require_admin(request, x_admin_token)
        try:
            token = store.invite([body.name])[body.name]
        except ValueError as exc:
            raise HTTPException(422, str(exc)) from None
        except Conflict as exc:
            raise HTTPException(409, str(exc)) from None
        return {"name": body.name, "link": f"/?token={token}"}

    @app.get("/api/admin/status")
    def status(
        request: Request, token: str | None = None, x_admin_token: str | None = Header(None)
    ):
        access.require_admin(request, token or x_admin_token)
        counts = store.page_counts()
        agg = aggregate(store.submitted_ratings(), min_raters=study.raters)
        return {
            "study": access.sid,
            "systems": len(study.systems),
            "needed": study.raters,
            "open": is_open,
            "pages": [
                {"page": p, "submitted": counts.get(p, (0, 0))[0], "open": counts.get(p, (0, 0))[1]}
                for p in range(len(study.pages))
            ],
            "raters": [
                {"name": name, "link": f"/?token={token}", "done": store.progress(name)}
                for name, token in store.raters()
            ],
            "agreement": [
                {"rater": c.rater, "pearson": c.pearson, "kept": c.kept, "reason": c.reason}
                for c in agg.raters
            ],
            "notes": agg.notes,
        }

    @app.get("/api/admin/export/{which}.csv")
    def export(
        request: Request,
        which: str,
        token: str | None = None,
        x_admin_token: str | None = Header(None),
    ):
        access.require_admin(request, token or x_admin_token)
        if which not in {"systems", "sets"}:
            raise HTTPException(404, "export systems.csv or sets.csv")
        try:
            systems, sets, _ = export_rows(study, DEFAULT_METRICS)
        except InputError as exc:
            raise HTTPException(409, exc.problem) from None
        return PlainTextResponse(
            rows_to_csv(systems if which == "systems" else sets), media_type="text/csv"
        )
