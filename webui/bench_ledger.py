"""The club ledger under load: ``python -m webui.bench_ledger [--tables 16] [--pg URL]``.

For each backend — SQLite (one file per table, as each table's own laptop keeps it) and PostgreSQL (one server for
the whole club; ``--pg URL`` or ``$MAHJONG_ASSISTANT_TEST_PG``; a fresh schema of its own, dropped at the end) —
``--tables`` processes each record a sanma hanchan as fast as they can (wins, draws and riichi drawn at random
from a seed per table, every event validated by the engine in its writing transaction), printing each
acknowledged sequence number. One of them is killed with SIGKILL halfway through. Then it checks that every
acknowledged event is in the ledger, that every log runs 1, 2, 3… without gaps, that the club standings equal
those of a replay of every log from its exported JSON into a new in-memory ledger, and prints events/s for each
backend side by side. Last, the time from recording a hand to seeing it in the club standings through the web
page's SSE stream (median over ``--probes`` hands, a real HTTP server on loopback).

Nothing here is a test assertion: it is a measurement that prints what it found (exit 1 when a check fails).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PLAYERS = ("A", "B", "C")


def _next_event(state: Any, rng: random.Random) -> Any:
    from assistant.match.events import event_from_json

    n = state.n
    kind = rng.random()
    if kind < 0.15:
        free = [p for i, p in enumerate(state.players) if i not in state.riichi and state.points[i] >= 1000]
        if free:
            return event_from_json({"type": "riichi", "payload": {"player": rng.choice(free)}})
    if kind < 0.35:
        tenpai = [p for p in state.players if rng.random() < 0.5]
        return event_from_json({"type": "draw", "payload": {"tenpai": tenpai}})
    winner = rng.randrange(n)
    if kind < 0.55:  # tsumo: each other player pays
        amount = rng.choice([500, 700, 1000, 1300, 2000])
        pays = [{"from": state.players[i], "to": state.players[winner], "amount": amount} for i in range(n)
                if i != winner]
        return event_from_json({"type": "win", "payload": {"discarder": None, "winners": [
            {"player": state.players[winner], "payments": pays}]}})
    loser = rng.choice([i for i in range(n) if i != winner])
    amount = rng.choice([1000, 2000, 2900, 3900, 5200, 8000])
    return event_from_json({"type": "win", "payload": {"discarder": state.players[loser], "winners": [
        {"player": state.players[winner],
         "payments": [{"from": state.players[loser], "to": state.players[winner], "amount": amount}]}]}})


def worker(target: str, match_ids: list[str], seed: int) -> int:
    """Record each match's hanchan to the end, one after the other; print ``ready`` once the ledger is open, wait
    for ``go`` on stdin (so every table starts at once), then ``ack MATCH SEQ`` after each commit."""
    from assistant.match.events import MatchError
    from assistant.match.store import Store

    rng = random.Random(seed)
    with Store(target) as st:
        print("ready", flush=True)
        sys.stdin.readline()
        for match_id in match_ids:
            state = st.state(match_id)
            while not state.finished:
                event = _next_event(state, rng)
                try:
                    rec = st.append(match_id, event, by=f"table {seed}")
                except MatchError:
                    continue  # an event the engine refuses (e.g. riichi below 1,000): draw another
                print(f"ack {match_id} {rec.seq}", flush=True)
                state = st.state(match_id)
    return 0


def _replay_standings(store: Any) -> list[dict[str, Any]]:
    """The club standings of a replay: every log exported to JSON and imported into a new in-memory ledger."""
    from assistant.match.club import club_standings
    from assistant.match.export import log_to_json, records_from_json
    from assistant.match.store import Store

    with Store(":memory:") as fresh:
        for m in store.matches():
            data = json.loads(json.dumps(log_to_json(m.id, store.records(m.id))))
            mid, records = records_from_json(data)
            fresh.write_log(mid, records)
        return [t.to_json() for t in club_standings(fresh)]


def _run_backend(name: str, targets: list[str], tables: int, hanchans: int, victim: int) -> dict[str, Any]:
    import selectors

    from assistant.match.club import club_standings
    from assistant.match.export import log_to_json, records_from_json
    from assistant.match.store import Store

    mids: list[list[str]] = []
    for i, target in enumerate(targets):
        with Store(target) as st:
            mids.append([st.create_match("sanma", PLAYERS, match_id=f"t{i + 1:02d}h{k + 1}", table=f"T{i + 1}",
                                         session=f"load test {k + 1}", league="bench") for k in range(hanchans)])
    procs = [subprocess.Popen([sys.executable, "-m", "webui.bench_ledger", "--worker", targets[i], ",".join(mids[i]),
                               str(i)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
             for i in range(tables)]
    for p in procs:  # every table opened its ledger: start them all at once
        assert p.stdout is not None
        if p.stdout.readline().strip() != "ready":
            raise SystemExit(f"a table process did not start: {p.stderr.read() if p.stderr else ''}")
    t0 = time.perf_counter()
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    acked: dict[int, list[tuple[str, int]]] = {i: [] for i in range(tables)}
    sel = selectors.DefaultSelector()
    for i, p in enumerate(procs):
        assert p.stdout is not None
        os.set_blocking(p.stdout.fileno(), False)
        sel.register(p.stdout, selectors.EVENT_READ, i)
    buffers = {i: "" for i in range(tables)}
    open_pipes = tables
    killed = False
    while open_pipes:
        for key, _ in sel.select(timeout=1.0):
            i = key.data
            chunk = key.fileobj.read()  # type: ignore[union-attr]
            if not chunk:
                sel.unregister(key.fileobj)
                open_pipes -= 1
                continue
            buffers[i] += chunk
            *lines, buffers[i] = buffers[i].split("\n")
            acked[i] += [(x.split()[1], int(x.split()[2])) for x in lines if x.startswith("ack ")]
            if i == victim and not killed and len(acked[i]) >= 8:  # mid-way through its first hanchan
                os.kill(procs[i].pid, signal.SIGKILL)
                killed = True
    for p in procs:
        p.wait()
    wall = time.perf_counter() - t0
    problems: list[str] = []
    for p in procs:
        err = p.stderr.read() if p.stderr else ""
        if p.returncode not in (0, -signal.SIGKILL) and err.strip():
            problems.append(f"a table process failed: {err.strip().splitlines()[-1]}")
    total = sum(len(v) for v in acked.values())
    lost = 0
    for i, target in enumerate(targets):
        with Store(target) as st:
            for mid in mids[i]:
                seqs = [r.seq for r in st.records(mid)]
                if seqs != list(range(1, len(seqs) + 1)):
                    problems.append(f"{mid}: the log has gaps")
                lost += len({s for m, s in acked[i] if m == mid} - set(seqs))
                if i != victim and not st.state(mid).finished:
                    problems.append(f"{mid}: the hanchan did not finish")
    if lost:
        problems.append(f"{lost} acknowledged events are missing")
    # the club standings over every table against those of a replay of every log
    if name == "postgresql":
        with Store(targets[0]) as st:
            live = [t.to_json() for t in club_standings(st)]
            replay = _replay_standings(st)
    else:  # one file per table: the club gathers the tables' logs into one ledger
        with Store(":memory:") as club:
            for target, ids in zip(targets, mids, strict=True):
                with Store(target) as st:
                    for mid in ids:
                        _, records = records_from_json(json.loads(json.dumps(log_to_json(mid, st.records(mid)))))
                        club.write_log(mid, records)
            live = [t.to_json() for t in club_standings(club)]
            replay = _replay_standings(club)
    if live != replay:
        problems.append("the club standings differ from a replay of the logs")
    return {"backend": name, "tables": tables, "events": total, "seconds": wall, "events_per_s": total / wall,
            "killed_table": victim, "killed_after": len(acked[victim]), "lost": lost, "problems": problems}


def _gather(files: list[str], target: str) -> None:
    from assistant.match.export import log_to_json, records_from_json
    from assistant.match.store import Store

    with Store(target) as club:
        for f in files:
            with Store(f) as st:
                for m in st.matches():
                    _, records = records_from_json(json.loads(json.dumps(log_to_json(m.id, st.records(m.id)))))
                    club.write_log(m.id, records)


def _probe_latency(target: str, probes: int) -> list[float]:
    """Seconds from starting to record a hand to receiving club standings that include it over SSE."""
    import http.client
    import threading

    from werkzeug.serving import make_server

    from assistant.match.store import Store
    from webui import create_app
    from webui.feed import ScriptedDemoFeed

    with Store(target) as st:
        mid = st.create_match("sanma", PLAYERS, table="probe", session="latency 1")
    data_dir = tempfile.mkdtemp(prefix="bench-ledger-web-")
    app = create_app({"FEED": ScriptedDemoFeed(auto=False), "DATA_DIR": data_dir, "MATCH_DB": target,
                      "CLUB_POLL_SECONDS": 0.02})
    from werkzeug.serving import WSGIRequestHandler

    class Quiet(WSGIRequestHandler):
        def log_request(self, *args: Any, **kwargs: Any) -> None:
            pass

    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    conn = http.client.HTTPConnection("127.0.0.1", server.server_port, timeout=30)
    conn.request("GET", "/api/club/events")
    resp = conn.getresponse()
    seen: list[tuple[float, int]] = []
    lock = threading.Condition()

    def read() -> None:
        buf = b""
        while True:
            chunk = resp.read1(65536)
            if not chunk:
                return
            buf += chunk
            while b"\n\n" in buf:
                block, buf = buf.split(b"\n\n", 1)
                for line in block.split(b"\n"):
                    if line.startswith(b"data: "):
                        view = json.loads(line[6:])
                        hands = sum(t["hands"] for t in view["tables"] if t["table"] == "probe")
                        with lock:
                            seen.append((time.perf_counter(), hands))
                            lock.notify_all()

    threading.Thread(target=read, daemon=True).start()
    out = []
    rng = random.Random(7)
    with Store(target) as st:
        with lock:
            lock.wait_for(lambda: bool(seen), timeout=10)
        for k in range(1, probes + 1):
            state = st.state(mid)
            if state.finished:  # the probe table starts its next hanchan
                mid = st.create_match("sanma", PLAYERS, table="probe", session=f"latency {k}")
                state = st.state(mid)
            from assistant.match.events import event_from_json

            loser = rng.randrange(1, 3)
            ev = event_from_json({"type": "win", "payload": {"discarder": state.players[loser], "winners": [
                {"player": state.players[0], "payments": [
                    {"from": state.players[loser], "to": state.players[0], "amount": 1000}]}]}})
            t0 = time.perf_counter()
            st.append(mid, ev, by="probe")
            def reached(k: int = k) -> bool:   # the k-th probe seen by the stream
                return any(h >= k for _, h in seen)

            with lock:
                ok = lock.wait_for(reached, timeout=10)
                if ok:
                    out.append(next(t for t, h in seen if h >= k) - t0)
            time.sleep(0.05)
    server.shutdown()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m webui.bench_ledger", description=__doc__.split("\n")[0])
    ap.add_argument("--tables", type=int, default=16)
    ap.add_argument("--pg", default=os.environ.get("MAHJONG_ASSISTANT_TEST_PG"),
                    help="a PostgreSQL server URL (default $MAHJONG_ASSISTANT_TEST_PG); without one, SQLite only")
    ap.add_argument("--probes", type=int, default=30, help="hands recorded to time record -> standings on the page")
    ap.add_argument("--hanchans", type=int, default=4, help="hanchan matches each table records one after another")
    ap.add_argument("--worker", nargs=3, metavar=("TARGET", "MATCHES", "SEED"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args.worker[0], args.worker[1].split(","), int(args.worker[2]))
    if args.tables < 2:
        ap.error("--tables must be at least 2")
    victim = args.tables // 2
    results = []
    latencies: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-ledger-") as tmp:
        files = [str(Path(tmp) / f"table{i:02d}.db") for i in range(args.tables)]
        print(f"sqlite: {args.tables} tables, one file each, {args.hanchans} hanchan each …", flush=True)
        results.append(_run_backend("sqlite", files, args.tables, args.hanchans, victim))
        club_file = str(Path(tmp) / "club.db")  # the page reads one ledger: every table's log gathered into it
        _gather(files, club_file)
        latencies["sqlite"] = _probe_latency(club_file, args.probes)
        if args.pg:
            import secrets

            import psycopg

            from assistant.match.db import migrate, open_for_admin

            schema = "bench_" + secrets.token_hex(4)
            with psycopg.connect(args.pg, autocommit=True) as conn:
                conn.execute(f"CREATE SCHEMA {schema}")
            url = args.pg + ("&" if "?" in args.pg else "?") + f"options=-csearch_path%3D{schema}"
            try:
                admin = open_for_admin(url)
                migrate(admin)
                admin.close()
                print(f"postgresql: {args.tables} tables on one server, {args.hanchans} hanchan each …", flush=True)
                results.append(_run_backend("postgresql", [url] * args.tables, args.tables, args.hanchans,
                                            victim))
                latencies["postgresql"] = _probe_latency(url, args.probes)
            finally:
                with psycopg.connect(args.pg, autocommit=True) as conn:
                    conn.execute(f"DROP SCHEMA {schema} CASCADE")
    print()
    print(f"{'backend':<11} {'tables':>6} {'events':>7} {'seconds':>8} {'events/s':>9}  {'killed':>14}  "
          f"{'lost':>4}  {'record -> standings (median, p90)':>34}")
    bad = False
    for r in results:
        lat = latencies.get(r["backend"], [])
        lat_s = (f"{statistics.median(lat) * 1000:.0f} ms, {sorted(lat)[int(len(lat) * 0.9) - 1] * 1000:.0f} ms "
                 f"({len(lat)} hands)") if lat else "-"
        print(f"{r['backend']:<11} {r['tables']:>6} {r['events']:>7} {r['seconds']:>8.2f} {r['events_per_s']:>9.0f}  "
              f"{'T' + str(r['killed_table'] + 1) + ' after ' + str(r['killed_after']):>14}  {r['lost']:>4}  "
              f"{lat_s:>34}")
        for p in r["problems"]:
            bad = True
            print(f"  problem: {p}")
    if len(results) == 2:
        print(f"postgresql / sqlite events/s: {results[1]['events_per_s'] / results[0]['events_per_s']:.2f}")
    print("every acknowledged event kept, standings identical to a replay" if not bad else "CHECKS FAILED")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
