"""What the live page is sent: a feed's :class:`FeedSnapshot` (the frame it shows and what was read in it) and
the :class:`PageData` the hub computes from it once for every viewer. Both are serialised only at the page's
edge (``to_json``: the ``/api/live`` body and the Server-Sent Events' ``snapshot`` data)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vision.seen import SeenTile, SeenWin, ZoneOutline

#: the snapshot's fields the page gets, in this order (a missing step is null)
PAGE_FIELDS = ("version", "frame", "time", "size", "camera", "tiles", "zones", "event", "win", "problems", "step",
               "steps")


@dataclass(frozen=True)
class FeedSnapshot:
    """One published state of a feed: its ``frame`` number and capture ``time`` (epoch seconds), the frame's
    ``size`` (width, height), the ``camera`` whose calibration applies, the ``tiles`` read (users' corrections
    applied) and fitted ``zones``, the table ``state`` (the engine's table state JSON, None before one is
    known), the last ``event`` in words, the ``win`` being scored and ``problems`` in plain words; a demo adds
    its ``step`` of ``steps`` (the film: what its ``script`` does there). ``version`` grows with every
    publication; ``status`` is the feed's status line when the snapshot was taken."""

    frame: int
    time: float
    size: tuple[int, int]
    camera: str
    tiles: tuple[SeenTile, ...] = ()
    zones: tuple[ZoneOutline, ...] = ()
    state: dict[str, Any] | None = None
    event: str = ""
    win: SeenWin | None = None
    problems: tuple[str, ...] = ()
    step: int | None = None
    steps: int | None = None
    script: str | None = None
    version: int = 0
    status: dict[str, Any] = field(default_factory=dict)

    def tile(self, tile_id: str) -> SeenTile | None:
        """The tile ``tile_id`` of this frame, or None."""
        return next((t for t in self.tiles if t.id == tile_id), None)

    def to_json(self) -> dict[str, Any]:
        """The fields the live page gets (:data:`PAGE_FIELDS`; the table state goes beside it in
        :class:`PageData`)."""
        return {"version": self.version, "frame": self.frame, "time": self.time, "size": list(self.size),
                "camera": self.camera, "tiles": [t.to_json() for t in self.tiles],
                "zones": [z.to_json() for z in self.zones], "event": self.event,
                "win": None if self.win is None else self.win.to_json(), "problems": list(self.problems),
                "step": self.step, "steps": self.steps}


@dataclass(frozen=True)
class PageData:
    """What every viewer of the live page gets, computed once per change: the feed's ``snapshot``, the
    ``status`` line (with the analysis time), the engine's ``view`` of the table state
    (:func:`webui.engine.table_view`), the ``settings`` and the correction ``palette`` (the rule system's
    tile codes)."""

    snapshot: FeedSnapshot
    status: dict[str, Any]
    view: dict[str, Any]
    settings: dict[str, Any]
    palette: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"snapshot": self.snapshot.to_json(), "status": dict(self.status), "state": self.snapshot.state,
                "view": self.view, "settings": self.settings, "palette": list(self.palette),
                "t_frame": self.snapshot.time}


__all__ = ["PAGE_FIELDS", "FeedSnapshot", "PageData"]
