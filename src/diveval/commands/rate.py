"""`diveval rate init|serve|export`: a human diversity study in the browser (Liu et al. 2022)."""

from __future__ import annotations

import ipaddress
import secrets
import socket
import sys
from pathlib import Path

from ..errors import InputError, MissingDependencyError
from ..rate.study import DEFAULT_SEED, create_study, load_study

EPILOG = """examples:
  diveval rate init sys_a.txt sys_b.txt sys_c.txt --subsets 100 --size 15 --seed 1 \\
      --raters ann,bob,cy -o study/                           (one private link per rater)
  diveval rate serve study/ --port 8000                       (prints the links and the admin's)
  diveval rate export study/ -o human.csv                     (also human.sets.csv, human.raters.csv)
  diveval correlate human.csv --human human

--open lets anyone register by name at /?rater=NAME (without it, only invited raters' links
work). serve binds 127.0.0.1 unless --host says otherwise: links travel over plain HTTP.

One TXT or JSONL file of responses per system, aligned by query: line i of every file answers
query i. A system's name is its file name without the extension.
"""


def add_parser(sub):
    p = sub.add_parser(
        "rate",
        help="run a human diversity study in the browser",
        description="Build, serve and export a human rating study: the EAD paper's protocol "
        "(sets of K responses per system shown side by side, scores 1-50, Pearson filter, "
        "min-max normalisation to [0, 10]).",
        epilog=EPILOG,
    )
    action = p.add_subparsers(dest="rate_command", metavar="ACTION", required=True)
    _add_init(action)
    _add_serve(action)
    _add_export(action)
    return p


def _add_init(action) -> None:
    init = action.add_parser("init", help="build a study folder")
    init.add_argument("systems", nargs="+", help="one .txt/.jsonl file of responses per system")
    init.add_argument("--subsets", type=int, required=True, metavar="N", help="pages to rate")
    init.add_argument("--size", type=int, required=True, metavar="K", help="queries per page")
    init.add_argument(
        "--raters",
        default=None,
        metavar="NAMES",
        help="invited raters, comma-separated (ann,bob,cy): one private link each",
    )
    init.add_argument("--per-page", type=int, default=3, metavar="R", help="raters each page needs")
    init.add_argument(
        "--open",
        action="store_true",
        help="let anyone register by name at /?rater=NAME (default: invited raters only)",
    )
    init.add_argument(
        "--seed",
        type=int,
        default=DEFAULT_SEED,
        help="sampling and shuffling seed, recorded in the study",
    )
    init.add_argument("-o", "--output", required=True, metavar="DIR", help="the study folder")


def _add_serve(action) -> None:
    serve = action.add_parser("serve", help="serve the rater and admin pages")
    serve.add_argument("study", help="the study folder")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind")
    serve.add_argument("--port", type=int, default=8000, help="port")
    serve.add_argument(
        "--admin-token", default=None, help="use this admin token instead of a random one"
    )
    serve.add_argument(
        "--open",
        action="store_true",
        help="let anyone register by name at /?rater=NAME for this run",
    )


def _add_export(action) -> None:
    export = action.add_parser(
        "export",
        help="aggregate the ratings and add diveval's metrics",
    )
    export.add_argument("study", help="the study folder")
    export.add_argument("-o", "--output", required=True, help="CSV, one row per system")
    export.add_argument(
        "--sets-output", default=None, help="CSV, one row per set (default: OUTPUT's .sets.csv)"
    )
    export.add_argument(
        "--raters-output",
        default=None,
        help="CSV, one row per rater with the filter's verdict (default: OUTPUT's .raters.csv)",
    )
    export.add_argument(
        "--min-pearson",
        type=float,
        default=0.65,
        help="rater filter: least Pearson r with the mean of the other raters",
    )
    export.add_argument(
        "--min-raters", type=int, default=None, help="ratings a page needs (default: the study's R)"
    )
    export.add_argument(
        "--filter",
        choices=("one-pass", "iterative"),
        default="one-pass",
        help="rater filter: one-pass (the paper's: each rater against the mean of all the others, "
        "once) or iterative (drop the worst, check the rest again)",
    )
    export.add_argument(
        "--metric", "-m", action="append", dest="metrics", help="add a metric (repeatable)"
    )


def run(args) -> int:
    return {"init": _init, "serve": _serve, "export": _export}[args.rate_command](args)


def _init(args) -> int:
    from ..io.readers import read_responses

    invited = [n.strip() for n in (args.raters or "").split(",") if n.strip()]
    if args.raters is not None and args.raters.strip().isdigit():
        raise InputError(
            f"--raters names the raters (ann,bob,cy); for {args.raters.strip()} raters per page "
            f"use --per-page {args.raters.strip()}"
        )
    responses: dict[str, list[str]] = {}
    for path in args.systems:
        name = Path(path).stem
        if name in responses:
            raise InputError(f"two systems named {name!r}: rename one file", path)
        responses[name] = read_responses(path)
    study = create_study(
        args.output,
        responses,
        args.subsets,
        args.size,
        raters=args.per_page,
        seed=args.seed,
        invited=invited,
        open=args.open,
    )
    print(
        f"study {args.output}: {len(study.systems)} systems, {len(study.pages)} pages of "
        f"{study.size} queries, {study.raters} raters per page (seed {study.seed})"
    )
    if invited:
        print(f"private links issued for {', '.join(invited)}: `serve` prints them")
    if study.open:
        print("open registration: anyone who can reach the server may join at /?rater=NAME")
    print(f"next: diveval rate serve {args.output}")
    return 0


def _serve(args) -> int:
    from ..rate.store import Store

    study = load_study(args.study)
    try:
        import uvicorn

        from ..rate.app import create_app
        from ..rate.guard import uvicorn_log_config
    except ImportError:
        raise MissingDependencyError("diveval rate serve", "rate") from None
    # Bind before anything is printed or issued: a busy port is one line, not links that lead
    # nowhere followed by uvicorn's traceback; the bound socket itself is handed to uvicorn.
    sock = _bind(args.host, args.port)
    port = sock.getsockname()[1]  # --port 0 takes a free one
    if not _is_loopback(args.host):
        print(
            f"warning: serving on {args.host}: anyone who can reach this machine on port "
            f"{port} can open the pages, and the links (the only secret) travel as plain "
            "HTTP that others on the network can read; use a trusted network or a TLS proxy",
            file=sys.stderr,
            flush=True,
        )
    token = args.admin_token or secrets.token_urlsafe(16)
    is_open = study.open or args.open
    app = create_app(study, token, open_registration=is_open)
    shown = "localhost" if args.host in ("0.0.0.0", "::") else args.host
    shown = f"[{shown}]" if ":" in shown else shown
    base = f"http://{shown}:{port}"
    for name, rater_token in Store(study.db_path).raters():
        print(f"rater {name}: {base}/?token={rater_token}", flush=True)
    if is_open:
        print(f"anyone:  {base}/?rater=NAME (open registration)", flush=True)
    print(f"admin:  {base}/admin?token={token}", flush=True)
    print(f"admin token: {token}", flush=True)
    config = uvicorn.Config(app, log_config=uvicorn_log_config(), log_level="info", access_log=True)
    uvicorn.Server(config).run(sockets=[sock])
    return 0


def _bind(host: str, port: int):
    if not 0 <= port <= 65535:
        raise InputError(f"--port {port} is not between 0 and 65535")
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as exc:
        raise InputError(f"--host {host}: {exc.strerror}") from None
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise InputError(
            f"cannot listen on {host}:{port}: {exc.strerror} (another server? pick --port)"
        ) from None
    sock.set_inheritable(True)
    return sock


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _export(args) -> int:
    from ..rate.export import DEFAULT_METRICS, export_rows, rater_row, rows_to_csv
    from ..report.tables import counted

    if not -1.0 <= args.min_pearson <= 1.0:
        raise InputError(f"--min-pearson {args.min_pearson:g} is not between -1 and 1")
    if args.min_raters is not None and args.min_raters < 1:
        raise InputError("--min-raters must be at least 1")
    study = load_study(args.study)
    metrics = list(DEFAULT_METRICS) + [m for m in args.metrics or [] if m not in DEFAULT_METRICS]
    systems, sets, agg = export_rows(
        study, metrics, min_pearson=args.min_pearson, min_raters=args.min_raters, filter=args.filter
    )
    sets_path = args.sets_output or _sets_path(args.output)
    raters_path = args.raters_output or _sets_path(args.output, ".raters.csv")
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(rows_to_csv(systems))
    with open(sets_path, "w", encoding="utf-8") as f:
        f.write(rows_to_csv(sets))
    if agg.raters:  # what `diveval report` shows of the filter: who was kept, who dropped, why
        with open(raters_path, "w", encoding="utf-8") as f:
            f.write(rows_to_csv([rater_row(c) for c in agg.raters]))

    print(f"rater filter: {args.filter}, Pearson >= {args.min_pearson:g}")
    for c in agg.raters:
        print(f"rater {c.rater}: {'kept' if c.kept else 'dropped'} ({c.reason})")
    for note in agg.notes:
        print(f"note: {note}")
    written = f"{sets_path} ({counted(len(sets), 'set')})"
    if agg.raters:
        written += f" and {raters_path} ({counted(len(agg.raters), 'rater')})"
    print(f"wrote {args.output} ({counted(len(systems), 'system')}), {written}")
    return 0


def _sets_path(path: str, suffix: str = ".sets.csv") -> str:
    return path[:-4] + suffix if path.lower().endswith(".csv") else path + suffix
