"""``make run``: import the app's libraries, then serve ``app.py`` with Streamlit.

Streamlit imports a page's modules at the first visit, so on a fresh server the first
person waited for numpy, pandas, scipy, plotly and ldpcore to load (0.9 s of the
Explorer's first chart; benchmarks/README.md, "A first visit"). Importing them here,
before the server listens, moves that wait to start-up. Everything after is plain
``streamlit run app.py`` with the same arguments.

Usage: ``python -m pages.app_layer.launch [streamlit run options]``.
"""

from __future__ import annotations

import importlib
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app.py"

#: What the pages import on a first visit (their own modules run per visit, not here).
PRELOAD = (
    "pages.app_layer.cache",
    "pages.app_layer.display",
    "pages.app_layer.exports",
    "pages.app_layer.navigation",
    "pages.app_layer.uploads",
    "pages.app_layer.widgets",
    "ldpcore.notebooks",
    "ldpcore.records",
    "ldpcore.viz",
    # st.dataframe sends tables as Arrow: its first table imports pyarrow (0.3 s).
    "pyarrow",
    "streamlit.dataframe_util",
)


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
    warm_code_paths()
    from pages.app_layer.cache import fork_server, uses_workers  # noqa: PLC0415

    if uses_workers():
        fork_server()  # its imports run beside Streamlit's start-up


def warm_code_paths() -> None:
    """Run a tiny experiment and build the Explorer's charts from it (about 0.3 s).

    Plotly loads a validator module per figure property on first use, and each method
    and scipy routine has first-call costs; paying them here took the Explorer's first
    chart on a fresh server from 4.0 s to the figures in benchmarks/README.md.
    """
    from ldpcore import viz  # noqa: PLC0415
    from ldpcore.experiment import ExperimentConfig  # noqa: PLC0415
    from pages.app_layer.simulations import simulate_tables  # noqa: PLC0415

    tiny = ExperimentConfig(dataset="zipf:d=16,s=1.5", n=1_000, protocol="OLH", epsilon=1.0,
                            trials=2)  # fmt: skip
    tables = simulate_tables(tiny)
    viz.estimates_by_rank(tables["per_item"], featured=viz.FEATURED)
    viz.mse_bars(tables["summary"], base_mse=tables["analytic"]["base_mse"],
                 lower_bound=tables["analytic"]["lower_bound"]).to_json()  # fmt: skip


def main(argv: Sequence[str] | None = None) -> None:
    """Preload, then run Streamlit's own command line: ``streamlit run app.py ARGS``."""
    from streamlit.web import cli  # noqa: PLC0415 - after the preload, like the rest

    from ldpcore.errors import InputError  # noqa: PLC0415

    try:
        preload()
    except InputError as exc:  # e.g. LDPCORE_APP_WORKERS=two
        sys.exit(f"error: {exc}")
    sys.argv = ["streamlit", "run", str(APP), *(sys.argv[1:] if argv is None else argv)]
    cli.main()


if __name__ == "__main__":
    main()
