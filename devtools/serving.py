"""A real ``streamlit run`` server on a free port, and a client that speaks its protocol.

Used by the classroom load test (``bench_classroom.py``), the first-visit benchmark
(``bench_first_visit.py``) and the tests that run small versions of both.

Why a protocol client and not browser pages: thirty chromium pages on a 2-core machine
would spend the cores rendering Plotly, so they would measure the browsers, not the
server a class shares. The client sends what a browser sends (a ``BackMsg`` asking for a
rerun with the widgets' values) over the same websocket, and receives the same
``ForwardMsg`` stream; its clock stops when the updated chart arrives, which is when a
browser would start drawing it. The browser tests cover the drawing.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def free_port(address: str = "127.0.0.1") -> int:
    """A TCP port of ``address`` that nothing listens on (asked of the OS, never fixed)."""
    with socket.socket() as sock:
        sock.bind((address, 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def streamlit_server(
    script: Path,
    log: Path,
    *,
    timeout: float = 60.0,
    cwd: Path = ROOT,
    address: str = "127.0.0.1",
    port: int | None = None,
    env: dict[str, str] | None = None,
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Serve ``script`` on a free port of ``address``; yields its URL and process.

    This app's ``app.py`` is served the way ``make run`` serves it (the launcher that
    preloads its libraries, then ``streamlit run``); any other script with plain
    ``streamlit run``. The server stops when the block ends, whatever happened in it.
    ``address="0.0.0.0"`` serves every interface, as ``make run HOST=0.0.0.0`` does
    for a class (the URL yielded is still 127.0.0.1's: tests stay on loopback);
    ``port`` reuses a port (a restart); ``env`` adds variables to the server's.
    """
    port = free_port(address) if port is None else port
    streamlit = shutil.which("streamlit", path=str(Path(sys.executable).parent))
    if streamlit is None:
        raise RuntimeError("streamlit is not installed in this environment")
    options = [
        "--server.address",
        address,
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
    ]
    if Path(script).resolve() == ROOT / "app.py":
        command = [sys.executable, "-m", "pages.app_layer.serving.launch", *options]
    else:
        command = [streamlit, "run", str(script), *options]
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as sink:
        process = subprocess.Popen(
            command,
            cwd=cwd,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=None if env is None else {**os.environ, **env},
        )
        try:
            url = f"http://127.0.0.1:{port}"
            wait_until_healthy(url, process, timeout=timeout, log=log)
            yield url, process
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def wait_until_healthy(
    url: str, process: subprocess.Popen[bytes], *, timeout: float, log: Path
) -> None:
    """Poll the server's health route until it answers (or fail saying where the log is)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"streamlit exited with {process.returncode}; see {log}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"streamlit did not start within {timeout:g} s; see {log}")


@dataclass
class Run:
    """What one rerun of the script sent to a session."""

    seconds: float  # from the request to the script's end
    charts_at: list[float] = field(default_factory=list)  # seconds at each Plotly chart
    charts: list[str] = field(default_factory=list)  # each chart's Plotly JSON
    texts: list[str] = field(default_factory=list)  # markdown, captions and alerts
    widgets: dict[str, Any] = field(default_factory=dict)  # label -> element
    errors: list[str] = field(default_factory=list)  # exceptions the page showed
    paint_signal: str = ""  # the first-paint component's id, if the page placed one

    def chart_seconds(self, count: int) -> float:
        """Seconds until the ``count``-th chart arrived (the script's end if it never did)."""
        return self.charts_at[count - 1] if len(self.charts_at) >= count else float("nan")


class Session:
    """One browser tab's worth of protocol: a websocket session of the app.

    Parameters
    ----------
    url
        The server's ``http://127.0.0.1:port``.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self._socket: Any = None
        self._page_hash = ""

    async def __aenter__(self) -> Session:
        import websockets

        stream = self.url.replace("http://", "ws://") + "/_stcore/stream"
        self._socket = await websockets.connect(
            stream,
            subprotocols=["streamlit"],
            max_size=None,
            open_timeout=30,  # type: ignore[list-item]
            origin=self.url,  # type: ignore[arg-type]
        )
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._socket is not None:
            await self._socket.close()

    async def rerun(self, widget_states: Sequence[Any] = (), *, timeout: float = 120.0) -> Run:
        """Ask for a rerun with these widget values; collect what arrives until it ends.

        As a browser does, a page that draws its first screen alone and asks to be told
        once it is drawn (``pages/app_layer/views/first_paint.py``) is told at once, and
        the run returned is the whole page's, each chart at the time it first arrived.
        """
        start = time.perf_counter()
        run = await self._run(widget_states, start, timeout)
        if run.paint_signal:
            first = run
            run = await self._run([*widget_states, _painted(first.paint_signal)], start, timeout)
            run.charts_at[: len(first.charts_at)] = first.charts_at
        return run

    async def _run(self, widget_states: Sequence[Any], start: float, timeout: float) -> Run:
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        request = BackMsg()
        request.rerun_script.query_string = ""
        request.rerun_script.page_script_hash = self._page_hash
        request.rerun_script.widget_states.widgets.extend(widget_states)
        await self._socket.send(request.SerializeToString())
        run = Run(seconds=float("nan"))
        async with asyncio.timeout(timeout):
            while True:
                message = ForwardMsg()
                message.ParseFromString(await self._socket.recv())
                kind = message.WhichOneof("type")
                if kind == "new_session":
                    self._page_hash = message.new_session.page_script_hash or self._page_hash
                elif kind == "page_info_changed":
                    pass
                elif kind == "delta":
                    self._record(message.delta, run, time.perf_counter() - start)
                elif kind == "script_finished":
                    run.seconds = time.perf_counter() - start
                    return run

    @staticmethod
    def _record(delta: Any, run: Run, elapsed: float) -> None:
        if delta.WhichOneof("type") != "new_element":
            return
        element = delta.new_element
        kind = element.WhichOneof("type")
        if kind == "plotly_chart":
            run.charts_at.append(elapsed)
            run.charts.append(element.plotly_chart.spec)
        elif kind == "markdown":
            run.texts.append(element.markdown.body)
        elif kind == "alert":
            run.texts.append(element.alert.body)
        elif kind == "exception":
            run.errors.append(f"{element.exception.type}: {element.exception.message}")
        elif kind == "bidi_component" and element.bidi_component.component_name.endswith(
            "first_paint"
        ):
            run.paint_signal = element.bidi_component.id
        else:
            inner = getattr(element, kind, None)
            label = getattr(inner, "label", None)
            if label:
                run.widgets[label] = inner


def _painted(component_id: str) -> Any:
    """The trigger a browser sends once it has drawn the first screen: the component's
    "painted" event, in the widget Streamlit keeps for a component's events."""
    import json

    from streamlit.proto.WidgetStates_pb2 import WidgetState
    from streamlit.runtime.state.session_state import STREAMLIT_INTERNAL_KEY_PREFIX

    state = WidgetState(id=f"{STREAMLIT_INTERNAL_KEY_PREFIX}_{component_id}__events")
    state.json_trigger_value = json.dumps([{"event": "painted", "value": True}])
    return state


def select_slider_state(element: Any, value: str) -> Any:
    """The widget state a browser sends when a select slider is moved to ``value``."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    options = list(element.options)
    if value not in options:
        raise ValueError(f"{value!r} is not one of the slider's options {options}")
    state = WidgetState(id=element.id)
    state.string_array_value.data.append(value)
    return state


def number_input_state(element: Any, value: int) -> Any:
    """The widget state a browser sends when an integer number input is set to ``value``."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    state = WidgetState(id=element.id)
    state.int_value = value
    return state


def toggle_state(element: Any, value: bool) -> Any:
    """The widget state a browser sends when a toggle (or checkbox) is switched."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    state = WidgetState(id=element.id)
    state.bool_value = value
    return state
