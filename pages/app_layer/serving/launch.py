"""``make run``: import the app's libraries, then serve ``app.py`` with Streamlit.

Streamlit imports a page's modules at the first visit, so on a fresh server the first
person waited for numpy, pandas, scipy, plotly and ldpcore to load (0.9 s of the
Explorer's first chart; benchmarks/README.md, "A first visit"). Importing them here,
before the server listens, moves that wait to start-up. Once the server runs, a thread
computes the default view into the caches while the first visitor's browser loads the
app. Everything else is plain ``streamlit run app.py`` with the same arguments.

Usage: ``python -m pages.app_layer.serving.launch [streamlit run options]``.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from pages.app_layer import BLAS_THREAD_VARIABLES

APP = Path(__file__).resolve().parents[3] / "app.py"
#: The operator's log, by this module's name even when it runs as ``__main__``.
_LOG_NAME = "pages.app_layer.serving.launch"


#: What the pages import on a first visit (their own modules run per visit, not here).
PRELOAD = (
    "pages.app_layer.serving.cache",
    "pages.app_layer.views.display",
    "pages.app_layer.views.exports",
    "pages.app_layer.controls.navigation",
    "pages.app_layer.controls.uploads",
    "pages.app_layer.controls.widgets",
    "ldpcore.present.notebooks",
    "ldpcore.present.records",
    "ldpcore.present.figures",
    # st.dataframe sends tables as Arrow: its first table imports pyarrow (0.3 s).
    "pyarrow",
    "streamlit.dataframe_util",
)


#: The Streamlit version this module's use of Streamlit internals was tested with (the
#: minor release). Streamlit has no public API to run its server in-process after a
#: preload, nor to say when its runtime is up, so :func:`main` and the default view use
#: :data:`PRIVATE_STREAMLIT`; they can change in any release, so ``pyproject.toml`` pins
#: Streamlit to this minor version and ``tests/house/test_architecture.py`` checks both.
STREAMLIT_TESTED = "1.67"
#: The only private Streamlit modules the app imports (all of them here).
PRIVATE_STREAMLIT = ("streamlit.runtime", "streamlit.runtime.runtime", "streamlit.web.cli")


def preload() -> None:
    """Import the app layer and what it uses (quietly: no Streamlit runtime exists yet)."""
    # Declaring a cached function before the runtime exists logs a harmless warning per
    # function ("No runtime found"); the caches themselves are made at first use.
    caching = logging.getLogger("streamlit.runtime.caching.cache_data_api")
    level = caching.level
    caching.setLevel(logging.ERROR)
    try:
        for module in PRELOAD:
            importlib.import_module(module)
    finally:
        caching.setLevel(level)
    from ldpcore.serving.tables import warm_code_paths  # noqa: PLC0415
    from ldpcore.serving.workers import worker_count  # noqa: PLC0415

    warm_code_paths()

    # A bad LDPCORE_APP_WORKERS is said now, in one line. The worker processes start at
    # the first simulation a visitor asks for (cache.simulate): started here, their
    # imports took a core from the first visitor's browser (0.2 s of its first chart).
    worker_count()


#: What the launcher says once the first visitor's view is computed.
READY = "The default view is computed"


def compute_default_view_once_serving(timeout: float = 60.0) -> threading.Thread:
    """In a thread: once Streamlit's runtime is up, compute the first visitor's view.

    A fresh server's first visitor waited 0.45 s for the default Explorer configuration to
    be simulated and drawn, after their browser had spent about 0.8 s loading Streamlit's
    frontend. Computed here, in the background as soon as the server runs (never before
    it answers), the two overlap; anyone arriving earlier waits on this same computation
    (the caches compute a value once), not on a second one.
    """
    thread = threading.Thread(
        target=_default_view, args=(timeout,), name="ldpcore-first-view", daemon=True
    )
    thread.start()
    return thread


def _default_view(timeout: float) -> None:
    from streamlit import runtime  # noqa: PLC0415
    from streamlit.runtime.runtime import RuntimeState  # noqa: PLC0415

    deadline = time.monotonic() + timeout
    # The caches must be the server's: they exist once its runtime does.
    while not (runtime.exists() and runtime.get_instance().state != RuntimeState.INITIAL):
        if time.monotonic() > deadline:
            return
        time.sleep(0.05)
    import plotly.io  # noqa: PLC0415
    import streamlit as st  # noqa: PLC0415

    from ldpcore.serving.settings import default_config  # noqa: PLC0415
    from ldpcore.serving.staging import run_key  # noqa: PLC0415
    from pages.app_layer.serving import cache, staging  # noqa: PLC0415
    from pages.app_layer.views import first_paint  # noqa: PLC0415

    # Outside a page's run Streamlit warns once per cached call that there is no page
    # context; here that is expected, so those warnings are not shown (for these half
    # a second the logger is quiet for the sessions' threads too, which never warn so).
    context = logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context")
    level = context.level
    context.setLevel(logging.ERROR)
    try:
        start = time.perf_counter()
        config = default_config()
        cache.run_estimate(config, None, ())  # the staging's question (staging.Staged)
        cache.simulate(config, _start_workers=False)  # computed here: no workers yet
        cache.simulate_summary(config)
        # The calls the Explorer makes at its defaults (a cache keys on the arguments;
        # tests/app/test_first_visit.py checks the page then only hits).
        # Serialized too, as the page's chart element does (the JSON encoder's first
        # use imports and sets up its engine).
        for figure in (
            cache.comparison_figure(config),
            cache.by_rank_figure(config, "estimates", False),
        ):
            plotly.io.to_json(figure, validate=False)
        # Computed: a class arriving at once joins it rather than crowding the server.
        staging.server_crowd().know(run_key(config, None, ()))
        first_paint.signal()  # registered now, not during the first visitor's run
        # A process's first page element makes Streamlit walk the whole call stack (to
        # warn a REPL user, inspect.stack: 0.09 s here); paid now, not in the first run.
        st.empty()
        print(f"  {READY} ({time.perf_counter() - start:.2f} s).", flush=True)
    except Exception:  # the first visitor then computes it, and sees any error on the page
        logging.getLogger(_LOG_NAME).exception("computing the default view ahead failed")
    finally:
        context.setLevel(level)


def main(argv: Sequence[str] | None = None) -> None:
    """Preload, then run Streamlit's own command line: ``streamlit run app.py ARGS``."""
    # First, before anything loads numpy (OpenBLAS reads these once, when it loads): one
    # BLAS thread in the server. It answers many sessions at once, on threads of its
    # own; OpenBLAS's extra threads only spin beside them. Set by the caller: kept.
    for name in BLAS_THREAD_VARIABLES:
        os.environ.setdefault(name, "1")
    from streamlit.web import cli  # noqa: PLC0415 - after the preload, like the rest

    from ldpcore.errors import InputError  # noqa: PLC0415 (ldpcore loads numpy)
    from ldpcore.live.network import network_addresses  # noqa: PLC0415
    from ldpcore.serving.arguments import class_settings, serving_arguments  # noqa: PLC0415
    from ldpcore.serving.logs import configure_logging, log_settings  # noqa: PLC0415

    try:
        # The operator's log first: a failure while preloading is then a line with its time.
        level, log_file = log_settings()
        configure_logging(level, log_file)
        preload()
        settings = class_settings()
    except (InputError, ValueError) as exc:  # e.g. LDPCORE_APP_WORKERS=two
        sys.exit(f"error: {exc}")
    logging.getLogger(_LOG_NAME).info(
        "serving the app; log level %s%s",
        logging.getLevelName(level),
        f", also to {log_file}" if log_file else "",
    )
    arguments = serving_arguments(list(sys.argv[1:] if argv is None else argv), network_addresses())
    print(settings, flush=True)
    sys.argv = ["streamlit", "run", str(APP), *arguments]
    compute_default_view_once_serving()
    cli.main()


if __name__ == "__main__":
    main()
