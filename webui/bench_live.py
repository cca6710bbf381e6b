"""Live-view load measurement: ``python -m webui.bench_live [--seconds 20] [--clients 5] [--browser]``.

Starts the web app on the demo feed in a separate process (the demo table changes every
``--step-seconds``), lets it play the whole demo hand once (warm-up), then, in the same run, measures

1. a baseline with 1 viewer (one SSE connection + one MJPEG stream), and
2. ``--clients`` viewers (as many SSE connections + MJPEG streams),

alternating the two ``--rounds`` times so that a busy moment of the machine hits both alike. For each
it prints whether the shared frame loop kept its budget (median and worst loop time, the worst loop's
own CPU time — wall time beyond it was spent waiting for a CPU —, overruns, frames per second
published), the MJPEG frames each viewer received, and the time from a change in the frame to the
viewer having it: ``t_frame`` (when the changed frame was captured, in the SSE data) to the SSE
event's arrival (median, 90th percentile). With ``--browser`` the viewers are Chromium pages instead
and the time runs to the page having drawn the change (``Live.history``).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from typing import Any

SERVER = r"""
import logging, sys
from werkzeug.serving import make_server
from webui import create_app
from webui.feed import FilmDemoFeed, ScriptedDemoFeed
logging.getLogger("werkzeug").setLevel(logging.ERROR)
step, fps, data = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
live = sys.argv[4] == "1"
if sys.argv[5] == "film":
    feed = FilmDemoFeed(step_seconds=step, fps=fps, hold_steps=1.0)
else:
    feed = ScriptedDemoFeed(step_seconds=step, fps=fps, hold_steps=1.0, live_frames=live)
app = create_app({"FEED": feed, "DATA_DIR": data, "MATCH_DB": data + "/m.db"})
app.extensions["hub"].start()
srv = make_server("127.0.0.1", 0, app, threaded=True)
print(srv.server_port, flush=True)
srv.serve_forever()
"""


class Viewer:
    """One viewer: an SSE connection (latency of each change) and an MJPEG stream (frames received)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.latencies: list[tuple[float, float]] = []  # (arrival, change -> arrival)
        self.frames = 0
        self.frames_at_start = 0
        self.bytes = 0
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._sse, daemon=True),
                        threading.Thread(target=self._mjpeg, daemon=True)]

    def start(self) -> Viewer:
        for t in self.threads:
            t.start()
        return self

    def close(self) -> None:
        self.stop.set()

    def _sse(self) -> None:
        try:
            self._read_sse()
        except (OSError, http.client.HTTPException, ValueError):
            pass  # the server went away at the end of the run

    def _mjpeg(self) -> None:
        try:
            self._read_mjpeg()
        except (OSError, http.client.HTTPException, ValueError):
            pass

    def _read_sse(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        conn.request("GET", "/events")
        resp = conn.getresponse()
        first, event, data = True, "", []
        while not self.stop.is_set():
            raw = resp.readline()
            if not raw:
                break
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                data.append(line[6:])
            elif not line:
                if event == "snapshot" and data:
                    now = time.time()
                    payload = json.loads("".join(data))
                    if not first and payload.get("t_frame"):
                        self.latencies.append((now, now - payload["t_frame"]))
                    first = False
                event, data = "", []
        conn.close()

    def _read_mjpeg(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        conn.request("GET", "/stream.mjpg")
        resp = conn.getresponse()
        while not self.stop.is_set():
            line = resp.readline()
            if not line:
                break
            if line.lower().startswith(b"content-length:"):
                n = int(line.split(b":")[1])
                resp.readline()
                resp.read(n)
                self.frames += 1
                self.bytes += n
        conn.close()


def _status(port: int) -> dict[str, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/api/live/status")
    body = json.loads(conn.getresponse().read())
    conn.close()
    return body


def _phase(port: int, clients: int, seconds: float, browser: Any = None) -> dict[str, Any]:
    samples: list[dict[str, Any]] = []
    viewers: list[Any] = []
    pages: list[Any] = []
    if browser is None:
        viewers = [Viewer(port).start() for _ in range(clients)]
    else:
        for _ in range(clients):
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"http://127.0.0.1:{port}/", wait_until="domcontentloaded")
            page.wait_for_function("Live.history.length > 0")
            pages.append(page)
    time.sleep(2.0)  # viewers connected and drawing before the measurement starts
    before = _status(port)
    t0, start_wall = time.monotonic(), time.time()
    for v in viewers:
        v.frames_at_start = v.frames
    while time.monotonic() - t0 < seconds:
        time.sleep(0.5)
        samples.append(_status(port))
    after = _status(port)
    lat: list[float] = []
    frames: list[float] = []
    if browser is None:
        for v in viewers:
            v.close()
            lat += [d for at, d in v.latencies if at >= start_wall]
            frames.append((v.frames - v.frames_at_start) / seconds)
    else:
        for page in pages:
            shown = page.evaluate("Live.history")
            new = [h for h in shown[1:] if h["frame_time"] and h["shown"] >= start_wall]
            lat += [h["shown"] - h["frame_time"] for h in new]
            page.close()
    loops = [s["loop_ms"] for s in samples if s.get("loop_ms") is not None]
    # loop_max_ms covers the last 50 frames (5 s at 10 fps): only samples whose window lies inside the phase
    fps_target = 1000.0 / before["budget_ms"]
    inside = samples[int(50 / fps_target / 0.5):] or samples[-1:]  # samples are 0.5 s apart
    worst = [s["loop_max_ms"] for s in inside if s.get("loop_max_ms") is not None]
    worst_cpu = [s["loop_cpu_max_ms"] for s in inside if s.get("loop_cpu_max_ms") is not None]
    fps = [s["fps"] for s in samples if s.get("fps")]
    q = statistics.quantiles(lat, n=10) if len(lat) >= 2 else [float("nan")] * 9
    return {
        "raw": {"lat": lat, "loops": loops, "worst": worst, "worst_cpu": worst_cpu, "fps": fps, "frames": frames,
                "analysis": [after.get("analysis_ms")] if after.get("analysis_ms") is not None else []},
        "clients": clients, "changes": len(lat) // max(clients, 1),
        "loop_median_ms": statistics.median(loops) if loops else None, "loop_worst_ms": max(worst) if worst else None,
        "budget_ms": after["budget_ms"], "overruns": after["overruns"] - before["overruns"],
        "fps": statistics.median(fps) if fps else 0.0, "analysis_ms": after.get("analysis_ms"),
        "mjpeg_fps_per_viewer": statistics.median(frames) if frames else None,
        "latency_median_ms": 1000 * statistics.median(lat) if lat else None, "latency_p90_ms": 1000 * q[8],
    }


def _combine(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One result from several phases with the same number of viewers."""
    raw = {k: [v for p in parts for v in p["raw"][k]] for k in parts[0]["raw"]}
    lat = raw["lat"]
    q = statistics.quantiles(lat, n=10) if len(lat) >= 2 else [float("nan")] * 9
    return {
        "clients": parts[0]["clients"], "phases": len(parts), "changes": sum(p["changes"] for p in parts),
        "loop_median_ms": statistics.median(raw["loops"]) if raw["loops"] else None,
        "loop_worst_ms": max(raw["worst"]) if raw["worst"] else None, "budget_ms": parts[0]["budget_ms"],
        "loop_worst_cpu_ms": max(raw["worst_cpu"]) if raw["worst_cpu"] else None,
        "overruns": sum(p["overruns"] for p in parts), "fps": statistics.median(raw["fps"]) if raw["fps"] else 0.0,
        "analysis_ms": statistics.median(raw["analysis"]) if raw["analysis"] else None,
        "mjpeg_fps_per_viewer": statistics.median(raw["frames"]) if raw["frames"] else None,
        "latency_median_ms": 1000 * statistics.median(lat) if lat else None, "latency_p90_ms": 1000 * q[8],
    }


def _line(r: dict[str, Any]) -> str:
    ok = "kept" if r["overruns"] == 0 and (r["loop_worst_ms"] or 0) < r["budget_ms"] else "MISSED"
    mj = f", MJPEG {r['mjpeg_fps_per_viewer']:.1f} frames/s per viewer" if r["mjpeg_fps_per_viewer"] else ""
    return (f"{r['clients']} viewer(s): frame loop {ok} its {r['budget_ms']:.0f} ms budget "
            f"(median {r['loop_median_ms']:.2f} ms,"
            f" worst {r['loop_worst_ms']:.2f} ms wall / {r['loop_worst_cpu_ms']:.2f} ms CPU, {r['overruns']} overruns, "
            f"{r['fps']:.1f} fps published{mj}); "
            f"change -> viewer: median {r['latency_median_ms']:.1f} ms, p90 {r['latency_p90_ms']:.1f} ms "
            f"over {r['changes']} changes per viewer in {r['phases']} phase(s); "
            f"analysis {r['analysis_ms']:.1f} ms per change")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=20.0, help="seconds measured per viewer count (default 20)")
    ap.add_argument("--rounds", type=int, default=2, help="alternate 1 / N viewers this many times (default 2)")
    ap.add_argument("--clients", type=int, default=5, help="viewers in the loaded phase (default 5)")
    ap.add_argument("--step-seconds", type=float, default=0.5, help="seconds between demo table changes (0.5)")
    ap.add_argument("--fps", type=float, default=10.0, help="frame loop rate (default 10)")
    ap.add_argument("--browser", action="store_true", help="Chromium pages (Playwright) instead of HTTP clients")
    ap.add_argument("--still-frames", action="store_true",
                    help="resend the stored demo JPEG instead of encoding a new frame each tick like a camera")
    ap.add_argument("--film", action="store_true",
                    help="the default demo: the demo film read by the models (on their own thread) instead of the "
                         "scripted demo; its stored frames are resent")
    ap.add_argument("--json", action="store_true", help="also print the figures as JSON")
    args = ap.parse_args(argv)

    import tempfile

    data = tempfile.mkdtemp(prefix="bench-live-")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.getcwd(), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-c", SERVER, str(args.step_seconds), str(args.fps), data,
                             "0" if args.still_frames else "1", "film" if args.film else "script"],
                            stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None   # (stdout=PIPE)
    try:
        port = int(proc.stdout.readline())
        from .feed import load_demo

        if args.film:
            from .demo.film import load as load_film

            steps = len(load_film()[0]["steps"])
        else:
            steps = len(load_demo()[0]["steps"])
        warm = steps * args.step_seconds + (5.0 if args.film else 1.0)   # the film: the models load first
        time.sleep(warm)  # one whole demo hand first: every step analysed once, imports and caches warm
        browser = None
        pw = None
        if args.browser:
            from playwright.sync_api import sync_playwright

            pw = sync_playwright().start()
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=[
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--no-first-run"])
        parts: dict[int, list[dict[str, Any]]] = {1: [], args.clients: []}
        for _ in range(args.rounds):  # alternate, so that a busy moment of the machine hits both alike
            for n in (1, args.clients):
                parts[n].append(_phase(port, n, args.seconds / args.rounds, browser))
        results = [_combine(parts[1]), _combine(parts[args.clients])]
        if browser is not None and pw is not None:
            browser.close()
            pw.stop()
        how = "Chromium pages" if args.browser else "SSE + MJPEG HTTP clients"
        frames = "stored JPEG resent" if args.still_frames or args.film else "new JPEG encoded each frame"
        what = "demo film read by the models" if args.film else "scripted demo feed"
        print(f"{what} at {args.fps:.0f} fps ({frames}), table change every {args.step_seconds} s, "
              f"{args.seconds:.0f} s per viewer count in {args.rounds} alternating rounds, viewers = {how}, "
              f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
        for r in results:
            print(_line(r))
        if args.json:
            print(json.dumps(results, indent=2))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
