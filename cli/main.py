"""The ``arbiter`` command: run the stack, its parts, and the offline tools."""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterable

GUNICORN_DEFAULTS = ["--workers", "2", "--worker-class", "gthread", "--threads", "4", "--timeout", "60"]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["bench"]:  # every option belongs to bench's own parser
        from bench.__main__ import main as bench_main

        return bench_main(argv[1:])
    args = build_parser(argv).parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except KeyboardInterrupt:  # Ctrl-C, even while a process of `arbiter up` is still starting: no traceback
        return 130


def build_parser(argv: list[str]) -> argparse.ArgumentParser:
    """The command line; ``argv`` only decides whether to list the game types (``simulate``'s, which import them)."""
    from cli.embedded_redis import FSYNC_POLICIES

    parser = argparse.ArgumentParser(prog="arbiter", description="Arbiter: an automated game master.")
    sub = parser.add_subparsers(dest="command", required=True)

    up = sub.add_parser("up", help="run Redis (embedded unless REDIS_URL is set), the API, the stream process and "
                        "the workers", description="Runs, until Ctrl-C: Redis (embedded unless REDIS_URL is set), "
                        "the API under gunicorn, the stream process (live streams, stream tickets, webhooks), an RQ "
                        "worker with the scheduler (deadlines) and the sweeper, and a worker for webhook deliveries. "
                        "It says when the API and the stream process answer, and the REDIS_URL and "
                        "ARBITER_STREAM_URL lines to export for other arbiter commands and clients.")
    up.add_argument("--host", default="127.0.0.1", help="address the API listens on (default: %(default)s)")
    up.add_argument("--port", type=int, default=8000, help="the API's port (default: %(default)s)")
    up.add_argument("--data", default="data", help="folder for the embedded Redis's AOF files, its version record "
                    "and the lock that keeps a second `arbiter up` off it (default: ./%(default)s)")
    up.add_argument("--redis-port", type=int, default=None,
                    help="the embedded Redis's port (default: 6390, or a free one if 6390 is taken)")
    up.add_argument("--stream-port", type=int, default=8001,
                    help="the stream process's port, on the API's address (default: %(default)s)")
    up.add_argument("--appendfsync", choices=FSYNC_POLICIES, default="always",
                    help="the embedded Redis's AOF fsync: always (every acknowledged order is on disk before its 202) "
                         "or everysec (faster, but a power cut can lose the last second of acknowledged orders; "
                         "docs/reliability.md) (default: %(default)s)")

    api = sub.add_parser("api", help="serve the REST API with gunicorn")
    api.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s)")
    api.add_argument("--port", type=int, default=8000, help="port to listen on (default: %(default)s)")

    worker = sub.add_parser("worker", help="run an RQ worker with the scheduler and the sweeper")
    worker.add_argument("--burst", action="store_true", help="run queued jobs, then exit")
    worker.add_argument("--no-scheduler", action="store_true",
                        help="do not run RQ's scheduler (deadlines): another worker must")
    worker.add_argument("--no-sweeper", action="store_true",
                        help="do not run the sweeper thread (re-queues lost resolutions): another process must")
    worker.add_argument("--class", dest="worker_class", choices=["simple", "fork"], default="simple",
                        help="simple: jobs run in the worker's process (faster); fork: a child per job "
                             "(default: %(default)s)")
    worker.add_argument("--name", default=None, help="the worker's name in RQ (default: a random one)")
    worker.add_argument("--queues", default="resolutions",
                        help="comma-separated, in priority order: resolutions (phases at their deadlines), "
                             "webhooks (deliveries); run one worker for each so a hanging webhook receiver never "
                             "holds up a deadline (default: %(default)s)")

    stream = sub.add_parser("stream", help="serve live event streams (SSE and NDJSON) from an asyncio process")
    stream.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s)")
    stream.add_argument("--port", type=int, default=8001, help="port to listen on (default: %(default)s)")

    follow = sub.add_parser("follow", help="print a game's events as they happen")
    follow.add_argument("game", help="the game's id")
    follow.add_argument("--token", default=os.environ.get("ARBITER_TOKEN"),
                        help="a player's or the GM's token (default: $ARBITER_TOKEN; none: the public view)")
    follow.add_argument("--url", default=os.environ.get("ARBITER_STREAM_URL", "http://127.0.0.1:8001/v1"),
                        help="the stream process's base URL (default: $ARBITER_STREAM_URL or %(default)s)")
    follow.add_argument("--after", type=int, default=0, help="start after this seq (default: the whole log)")
    follow.add_argument("--json", action="store_true", help="print each event as JSON")

    sweep = sub.add_parser("sweep", help="re-queue overdue phases (once, or every second)")
    sweep.add_argument("--once", action="store_true", help="sweep once, print what was done, and exit")

    sub.add_parser("rebuild", help="delete snapshots and indexes and rebuild them from the streams")

    keys = sub.add_parser("keys", help="the key file that signs receipts and checkpoints: show it, or rotate it")
    keys.add_argument("action", choices=["show", "rotate"], help="show: the verifier keys (as GET /v1/keys); "
                      "rotate: a new signing key, the old one kept as retired so what it signed still verifies")
    keys.add_argument("--file", default=os.environ.get("ARBITER_SIGNING_KEY") or "data/signing.key",
                      help="the key file (default: $ARBITER_SIGNING_KEY, else %(default)s, made by `arbiter up`)")

    verify = sub.add_parser("verify", help="verify an exported game file offline")
    verify.add_argument("file", help="an export (GET /v1/games/{id}/export)")
    verify.add_argument("--receipt", action="append", default=[], metavar="SEQ:HASH",
                        help="also check that the log holds this order receipt (repeatable)")
    verify.add_argument("--note", action="append", default=[], metavar="FILE",
                        help="a signed receipt or checkpoint to check the file against: the note's text, or JSON "
                             "holding it (a 202's body, a receipt, GET …/checkpoint's answer) or a list of them "
                             "(repeatable; see docs/verifying.md)")
    verify.add_argument("--key", action="append", default=[], metavar="VKEY",
                        help="a verifier key to trust, from the service's GET /v1/keys (repeatable; default: the "
                             "keys the file names, which proves only that the file agrees with itself)")
    verify.add_argument("--proof", default="fork-proof.json", metavar="FILE",
                        help="where to write the two signed notes of a fork, if one is found (default: %(default)s)")

    simulate = sub.add_parser("simulate", help="bots play a whole game through the real store and worker",
                              description="Bots play a whole game through the real store and an RQ worker of this "
                              "process, on a queue of its own (so it runs beside `arbiter up` on up's Redis). "
                              "Without REDIS_URL it starts a Redis of its own for the game and deletes it after.")
    types = _game_types() if argv[:1] == ["simulate"] else []  # engines are imported only for simulate
    simulate.add_argument("type", metavar="TYPE",  # an unknown one is refused naming every type
                          help="the game type: " + (", ".join(types) or "see arbiter simulate --help"))
    simulate.add_argument("--players", type=int, required=True,
                          help="how many bots play" + (f" ({_player_ranges()})" if types else ""))
    simulate.add_argument("--seed", default="simulate", help="the game's seed (default: %(default)s)")
    simulate.add_argument("--options", default="{}", help="game options as JSON")
    simulate.add_argument("--quiet", action="store_true", help="print only the result, not each phase")

    sub.add_parser("bench", add_help=False,
                   help="run the benchmarks on the real stack (arbiter bench --help; see bench/README.md)")
    return parser


def _game_types() -> list[str]:
    from engines import registry

    return registry.names()


def _player_ranges() -> str:
    """Each game type's player counts as the API publishes them, e.g. "extreme-ways 2-24"."""
    from engines import registry
    from service.openapi import players

    def counts(engine: Any) -> str:
        told = players(engine)
        varied = "".join(f"; {o['option']} {o['value']}: {o['min']}-{o['max']}" for o in told["by_option"])
        return f"{engine.meta.name} {told['min']}-{told['max']}{varied}"

    return ", ".join(counts(engine) for engine in registry.all_latest())


def _context(where: str | None = None):
    from runtime.config import Settings
    from runtime.context import Context, use

    context = Context(Settings.from_env())
    _say_which_redis(context.settings.redis_url, where)
    use(context)
    return context


def _say_which_redis(url: str, where: str | None = None) -> None:
    """Every command that uses Redis says which (on stderr): `arbiter up` runs its own on another port."""
    from runtime.config import address

    where = where or ("REDIS_URL" if os.environ.get("REDIS_URL") else
                      "the default; `arbiter up` prints the REDIS_URL to export")
    print(f"arbiter: using Redis at {address(url)} ({where})", file=sys.stderr, flush=True)


def cmd_up(args: argparse.Namespace) -> int:
    from cli import data_folder, embedded_redis
    from cli.processes import stop_all

    stopping = False

    def stop(*_: Any) -> None:
        nonlocal stopping
        stopping = True

    # From the first moment: a Ctrl-C while Redis or the others start stops what has started, in order.
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)  # the terminal closed: stop as for Ctrl-C
    env = dict(os.environ)
    redis_server, lock, children, code = None, None, [], 0
    try:
        if not env.get("REDIS_URL"):
            data = Path(args.data)
            try:
                lock = data_folder.lock(data)  # held until this process exits
                binary, version = data_folder.check_server(data, embedded_redis.find_binary())
            except data_folder.DataFolderError as exc:
                print(f"arbiter up: {exc}", file=sys.stderr)
                return 1
            port = args.redis_port or _port_or_free(6390)
            redis_server = embedded_redis.start(data / "redis", port, aof=True, fsync=args.appendfsync,
                                               own_group=True)
            data_folder.record_server(data, binary, version)
            env["REDIS_URL"] = redis_server.url
            print(f"Redis {version} ({binary}, embedded, AOF in {data / 'redis'}, appendfsync {args.appendfsync}) "
                  f"at {redis_server.url}", flush=True)
            print(f"For other arbiter commands on this Redis: export REDIS_URL={redis_server.url}", flush=True)
        else:
            print(f"Redis at {env['REDIS_URL']} (REDIS_URL)", flush=True)
        env["ARBITER_SIGNING_KEY"] = _signing_key(env, Path(args.data))
        # The console's pages follow games from this stream process (unless ARBITER_STREAM_URL names a public one).
        browsers_reach = "127.0.0.1" if args.host in ("0.0.0.0", "::", "") else args.host
        env.setdefault("ARBITER_STREAM_URL", f"http://{browsers_reach}:{args.stream_port}/v1")
        # Each in a process group of its own, so a Ctrl-C at the terminal reaches this process alone, which stops
        # them (a worker's RQ scheduler, forked a moment after the start, would otherwise die of the SIGINT before
        # installing its handlers, with a traceback).
        bind = f"{args.host}:{args.port}"
        taken = [f"{what} port {port}" for what, port in (("the API's", args.port), ("the stream process's",
                                                                                     args.stream_port))
                 if not _port_free(args.host, port)]
        if taken:
            print(f"arbiter up: {' and '.join(taken)} on {args.host} is taken (another arbiter up?); "
                  "--port and --stream-port pick others", file=sys.stderr)
            return 1
        processes = {f"the API (gunicorn on {bind})": ["gunicorn", *GUNICORN_DEFAULTS, "--bind", bind,
                                                       "service.wsgi:app"],
                     "the worker": ["cli.main", "worker"],
                     "the webhook worker": ["cli.main", "worker", "--queues", "webhooks", "--no-sweeper"],
                     f"the stream process (port {args.stream_port})": [
                         "cli.main", "stream", "--host", args.host, "--port", str(args.stream_port)]}
        for name, command in processes.items():
            if not stopping:
                children.append((name, subprocess.Popen([sys.executable, "-m", *command], env=env, process_group=0)))
        if not stopping:
            print("Starting the API, the stream process, a worker with scheduler and sweeper, and one for webhook "
                  "deliveries...", flush=True)
        api, streams = f"http://{browsers_reach}:{args.port}/v1", env["ARBITER_STREAM_URL"]
        answering = {f"{api}/health": False, f"http://{browsers_reach}:{args.stream_port}/v1/stream-health": False}
        while not stopping:
            for name, child in children:
                if child.poll() is not None:
                    print(f"arbiter up: {name} exited with {child.returncode} (its messages are above); stopping "
                          "everything", file=sys.stderr)
                    code, stopping = 1, True
            if not stopping and not all(answering.values()):
                answering = {url: done or _answers(url) for url, done in answering.items()}
                if all(answering.values()):
                    print(f"Arbiter API listening on http://{bind}/v1 (OpenAPI at /v1/openapi.json); live streams "
                          f"and webhooks on {streams}/games/{{id}}/stream; the workers running. Ctrl-C stops "
                          "everything.", flush=True)
                    print(f"For clients and `arbiter follow`: export ARBITER_STREAM_URL={streams}", flush=True)
            time.sleep(0.2 if not all(answering.values()) else 0.5)
    finally:
        stop_all([child for _name, child in children])
        if redis_server is not None:
            redis_server.stop()
        if lock is not None:
            lock.close()
    return code


def _signing_key(env: dict[str, str], data: Path) -> str:
    """The key file that signs receipts and checkpoints: ARBITER_SIGNING_KEY, else one in the data folder, made on the
    first run.  Says where, and the key that verifies what it signs."""
    from runtime.config import key_name
    from runtime.signing import ensure_key_file, read_key_file

    path = Path(env.get("ARBITER_SIGNING_KEY") or data / "signing.key").absolute()
    made = ensure_key_file(path, key_name(env.get("ARBITER_ORIGIN", "arbiter.local")))
    vkey = read_key_file(path).active.verifier.vkey
    print(f"Signing key {'made in' if made else 'from'} {path} (keep it secret and backed up; "
          f"`arbiter keys rotate` replaces it); receipts verify with {vkey}", flush=True)
    return str(path)


def _port_free(host: str, port: int) -> bool:
    """Whether a server may listen on ``host:port`` now (SO_REUSEADDR, as servers bind: a port whose last
    connections are still closing is free)."""
    import socket

    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
            return True
        except OSError:
            return False


def _answers(url: str) -> bool:
    """Whether a GET of ``url`` answers 200 now (a process of ``arbiter up`` is serving)."""
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=2) as answer:
            return answer.status == 200
    except OSError:
        return False


def _port_or_free(preferred: int) -> int:
    from cli.embedded_redis import free_port

    return preferred if _port_free("127.0.0.1", preferred) else free_port()


def cmd_api(args: argparse.Namespace) -> int:
    _say_which_redis(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    os.execv(sys.executable, [sys.executable, "-m", "gunicorn", *GUNICORN_DEFAULTS,
                              "--bind", f"{args.host}:{args.port}", "service.wsgi:app"])
    return 0  # not reached


def cmd_worker(args: argparse.Namespace) -> int:
    from workers import runner

    queues = tuple(q.strip() for q in args.queues.split(",") if q.strip())
    unknown = sorted(set(queues) - {"resolutions", "webhooks"})
    if unknown or not queues:
        print(f"arbiter worker: --queues takes resolutions and/or webhooks, not {', '.join(unknown) or 'nothing'}",
              file=sys.stderr)
        return 2
    runner.run(_context(), burst=args.burst, with_scheduler=not args.no_scheduler,
               with_sweeper=not args.no_sweeper, worker_class=args.worker_class, name=args.name, queues=queues)
    return 0


def cmd_stream(args: argparse.Namespace) -> int:
    from streams.server import serve

    serve(args.host, args.port)
    return 0


def cmd_follow(args: argparse.Namespace) -> int:
    """Print a game's events as they happen, until it ends (exit 0) or the stream cannot be had (exit 1)."""
    from streams.follow import follow

    return follow(args.url, args.game, args.token, args.after, args.json)


def cmd_sweep(args: argparse.Namespace) -> int:
    import threading

    from workers import sweeper

    context = _context()
    if args.once:
        actions = sweeper.sweep_once(context)
        for game_id, what in actions:
            print(f"{game_id}: {what}")
        if not actions:
            print("nothing to do: no phase is overdue or left resolvable")
        return 0
    sweeper.run_forever(context, threading.Event())
    return 0


def cmd_rebuild(args: argparse.Namespace) -> int:
    from replays import rebuild

    counts, corrupt = rebuild.rebuild_report(_context())
    print(", ".join(f"{name}: {count}" for name, count in counts.items()))
    for game_id, problem in sorted(corrupt.items()):
        print(f"cannot fold game {game_id} ({problem}): no snapshot, no deadline; its GM can read its audit",
              file=sys.stderr)
    return 1 if corrupt else 0


def cmd_verify(args: argparse.Namespace) -> int:
    from replays import export_stream, proofs

    try:
        given = [note for path in args.note for note in _notes_in(Path(path))]
        with open(args.file, "rb") as source:  # read as it streams: a large export is never held whole
            seqs = [int(seq) for seq, _, _ in (text.partition(":") for text in args.receipt) if seq.isdigit()]
            report, document = export_stream.verify(source, given, seqs)
            report = proofs.check(document, report, given, proofs.verifiers(args.key) if args.key else None)
            report["receipts"] = [_check_receipt(document["events"], text) for text in args.receipt]
    except (OSError, ValueError) as exc:
        print(f"cannot verify {args.file}: {exc}", file=sys.stderr)
        return 2
    except RecursionError:
        print(f"cannot verify {args.file}: the JSON is nested too deeply", file=sys.stderr)
        return 2
    except Exception as exc:  # a file from anyone must never end in a traceback: exit 2 says "not verified"
        print(f"cannot verify {args.file}: the file could not be checked ({type(exc).__name__}: {exc}); "
              "it is not a well-formed Arbiter export", file=sys.stderr)
        return 2
    if any(not r["ok"] for r in report["receipts"]):
        report["ok"] = False
        report["divergences"] += [{"seq": r["seq"], "check": "receipt", "problem": r["problem"]}
                                  for r in report["receipts"] if not r["ok"]]
    forks = [d for d in report["divergences"] if d["check"] == "fork"]
    if forks:
        Path(args.proof).write_text(json.dumps({"game_id": report.get("game_id"), "forks": forks,
                                                "keys": report["signed"]["keys"]}, indent=2) + "\n")
        print(f"a fork: the two signed notes are in {args.proof}, for anyone to check", file=sys.stderr)
    print(json.dumps(report, indent=2, sort_keys=True))
    if report["ok"]:
        print(f"OK: {report['events']} events, hash chain intact, {report['outcomes']['checked']} outcomes recomputed",
              file=sys.stderr)
        return 0
    first = report["divergences"][0]
    print(f"FAILED at seq {first['seq']}: {first['problem']}", file=sys.stderr)
    return 1


def _notes_in(path: Path) -> list:
    """The notes in a file: JSON (one, or a list), or a note's own text."""
    text = path.read_text(encoding="utf-8")
    try:
        found = json.loads(text)
    except ValueError:
        return [text]
    return found if isinstance(found, list) else [found]


def _check_receipt(events: Iterable[Any], text: str) -> dict:
    """A 202's receipt is honoured if the log holds an event with that seq and hash."""
    seq_text, _, wanted = text.partition(":")
    if not seq_text.isdigit() or not wanted:
        return {"seq": None, "ok": False, "problem": f"a receipt is SEQ:HASH, not {text!r}"}
    seq = int(seq_text)
    event = next((e for e in events if isinstance(e, dict) and e.get("seq") == seq), None)
    if event is None:
        return {"seq": seq, "ok": False, "problem": "no event with this seq in the file"}
    if event.get("hash") != wanted:
        return {"seq": seq, "ok": False, "problem": "the event at this seq has another hash"}
    return {"seq": seq, "ok": True, "problem": None}


def cmd_keys(args: argparse.Namespace) -> int:
    from eventlog.notes import NoteError
    from runtime.signing import rotate, read_key_file

    path = Path(args.file)
    try:
        if args.action == "rotate":
            old, new = rotate(path)
            print(f"{path}: now signing with {new}; retired {old} (still listed by GET /v1/keys, so what it signed "
                  "still verifies). Running processes take the new key within a second.")
            return 0
        keys = read_key_file(path)
    except (OSError, NoteError) as exc:
        print(f"arbiter keys: {exc}", file=sys.stderr)
        return 1
    print(f"active  {keys.active.verifier.vkey}")
    for vkey, when in keys.retired:
        print(f"retired {vkey} (since {when})")
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from cli import simulate
    from service.errors import ApiError

    try:
        options = json.loads(args.options)
    except ValueError as exc:
        print(f"cannot simulate: --options is not valid JSON ({exc}); give an object, e.g. "
              """--options '{"announce": "none"}'""", file=sys.stderr)
        return 2
    temp = folder = where = None
    if not os.environ.get("REDIS_URL"):
        from cli import embedded_redis

        folder = Path(tempfile.mkdtemp(prefix="arbiter-sim-"))
        temp = embedded_redis.start(folder, aof=False)
        os.environ["REDIS_URL"] = temp.url
        where = "started for this simulation, deleted after it; REDIS_URL runs it on yours"
    try:
        report = simulate.run(_context(where), args.type, args.players, args.seed, options,
                              echo=None if args.quiet else print)
    except ApiError as exc:
        print(f"cannot simulate: {exc.message} {json.dumps(exc.details)}", file=sys.stderr)
        return 2
    finally:
        if temp is not None:
            temp.stop()
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)  # its Redis's files: nothing of a simulation is kept
    print(json.dumps(report["result"], indent=2, sort_keys=True))
    if not report["finished"]:
        print(f"the game did not finish ({report['events']} events): see the progress above", file=sys.stderr)
        return 1
    return 0 if report["audit_ok"] else 1


COMMANDS = {
    "up": cmd_up,
    "api": cmd_api,
    "worker": cmd_worker,
    "sweep": cmd_sweep,
    "stream": cmd_stream,
    "follow": cmd_follow,
    "rebuild": cmd_rebuild,
    "verify": cmd_verify,
    "keys": cmd_keys,
    "simulate": cmd_simulate,
}

if __name__ == "__main__":
    sys.exit(main())
