"""A class moving its sliders together: who else asked for a new run just now.

Thirty phones moving ε at once each ask for a configuration nobody computed. Run whole,
each costs the server about 0.2 CPU s, and the last phone waits for all the others. So
the server runs at most one whole new run per simulation worker in any few seconds for
other visitors: when that many were asked for by others within :data:`WINDOW_S`, a page
draws its new run from its first trials (0.20 → 0.15 CPU s at the defaults) and runs
the rest when its visitor asks (:mod:`pages.app_layer.serving.staging`). Once the window has
passed, whole runs start again by themselves.

What counts: a run asked for by another session, for a configuration nobody had asked
for. A visitor's own runs never count (one person moving a slider quickly is not a
crowd), nor do configurations already asked for (they are computed once and shared by
Streamlit's cache: joining one costs nothing). Nothing here imports Streamlit, so every
case is tested with a clock of its own.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from dataclasses import dataclass, field

#: How far back another visitor's new run counts (seconds): a class asked to "move ε
#: now" moves within a few seconds; people exploring on their own rarely do.
WINDOW_S = 3.0
#: Configurations remembered as asked for (the app's caches hold fewer entries).
REMEMBERED = 1024


@dataclass
class Crowd:
    """The new runs asked for on one server, by session, over the last :data:`WINDOW_S`.

    One per server process (``staging.server_crowd``); safe to call from every session's thread.
    """

    window_s: float = WINDOW_S
    _asked: deque[tuple[float, str]] = field(default_factory=deque)
    _known: OrderedDict[str, None] = field(default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def others(self, session: str, run: str, now: float) -> int:
        """How many new runs other sessions asked for in the window before ``now``.

        0 when ``run`` (a configuration's key) was asked for already, by anyone.
        Nothing is recorded: call :meth:`ask` for the run that goes ahead whole.
        """
        with self._lock:
            self._forget(now)
            if run in self._known:
                self._known.move_to_end(run)
                return 0
            return sum(1 for _, asker in self._asked if asker != session)

    def ask(self, session: str, run: str, now: float) -> None:
        """Record that ``session`` asked for ``run`` whole at ``now``."""
        with self._lock:
            self._forget(now)
            if run in self._known:
                self._known.move_to_end(run)
                return
            self._remember(run)
            self._asked.append((now, session))

    def know(self, run: str) -> None:
        """Record ``run`` as computed already, by nobody in particular.

        The launcher's default view: it is joined, never counted.
        """
        with self._lock:
            self._remember(run)

    def _remember(self, run: str) -> None:
        self._known[run] = None
        self._known.move_to_end(run)
        while len(self._known) > REMEMBERED:
            self._known.popitem(last=False)

    def clear(self) -> None:
        """Forget every run asked for."""
        with self._lock:
            self._asked.clear()
            self._known.clear()

    def _forget(self, now: float) -> None:
        while self._asked and self._asked[0][0] < now - self.window_s:
            self._asked.popleft()


__all__ = ["REMEMBERED", "WINDOW_S", "Crowd"]
