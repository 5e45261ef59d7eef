"""App-layer helpers shared by the pages: the sidebar, cached runs, downloads.

The only place that caches (``st.cache_data``); ``ldpcore`` stays streamlit-free.
Nothing here is module-level mutable state: every value lives in the session.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Callable
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ldpcore import bounds, viz
from ldpcore.cluster import ENVIRONMENT, configured, open_client, where
from ldpcore.datasets import Dataset, bundled_names, load_bundled, parse_histogram
from ldpcore.experiment import ExperimentConfig, run, sweep
from ldpcore.postprocess import METHODS, method_names
from ldpcore.protocols import describe_protocols, protocol_names
from ldpcore.tables import DuplicateValuesError, TableError, TableLayout, inspect_table

#: The browser tab's title.
TITLE = "LDP post-processing explorer"
#: Session-state key app.py sets before running a page: the session has been through
#: app.py (see ensure_app). Never removed: deleting a key mid-run disturbs widget state.
THROUGH_APP = "_ldp_through_app"


def app_pages() -> list[Any]:
    """The app's pages, in menu order (app.py's navigation, and ensure_app's)."""
    return [
        st.Page("pages/explorer.py", title="Explorer", icon=":material/query_stats:",
                default=True),
        st.Page("pages/tradeoffs.py", title="ε trade-offs", icon=":material/tune:"),
        st.Page("pages/queries.py", title="Queries", icon=":material/join:"),
        st.Page("pages/your_data.py", title="Your data", icon=":material/upload_file:"),
        st.Page("pages/choose_epsilon.py", title="Choose ε", icon=":material/shield:"),
        st.Page("pages/learn.py", title="Learn", icon=":material/school:"),
        st.Page("pages/paper.py", title="Paper", icon=":material/article:"),
    ]  # fmt: skip


def run_app() -> None:
    """Set up the page and run the app's navigation (what app.py does)."""
    st.set_page_config(page_title=TITLE, layout="wide")
    st.session_state[THROUGH_APP] = True
    st.navigation(app_pages()).run()


def ensure_app() -> None:
    """Give a page that was reached without app.py the app's layout and menu.

    When a server's first request is a deep link (``/choose_epsilon``) and a ``pages/``
    folder exists, Streamlit runs the page file on its own with a sidebar listing every
    file of the folder (its legacy multipage mode, which stays on until ``st.navigation``
    is called; AppTest starts every run in it). Declaring the app's navigation here
    replaces that menu and switches the mode off for the server; the page then carries
    on in the same run, so no widget event is lost.
    """
    if st.session_state.get(THROUGH_APP, False):
        return
    if not st.runtime.exists():
        # AppTest (no server) re-enters the legacy mode on every run by design; there is
        # no menu to fix, and switching modes mid-run there would reset widget state.
        return
    st.set_page_config(page_title=TITLE, layout="wide")
    st.navigation(app_pages())


# Round, roughly log-spaced steps: a slider position is a value people can quote.
EPSILONS = (0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0,
            2.5, 3.0, 3.5, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0)  # fmt: skip
USERS = (*(m * 10**e for e in range(2, 9) for m in (1, 2, 5)), 10**9)
DOMAINS = (2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 100_000)


def sidebar() -> ExperimentConfig | None:
    """Draw the shared sidebar; return the configuration it describes (None if invalid).

    Every widget is bound to the URL, so a link reproduces the view.
    """
    bar = st.sidebar
    bar.header("Simulation")
    protocol = bar.selectbox("Protocol", protocol_names(), index=1, key="protocol",
                             bind="query-params")  # fmt: skip
    epsilon = bar.select_slider("Privacy budget ε", EPSILONS, value=1.0, key="epsilon",
                                bind="query-params")  # fmt: skip
    # No format_func: the URL carries the option's label, and plain digits keep links clean.
    n = bar.select_slider("Users n", USERS, value=10**6, key="n", bind="query-params")
    d = bar.select_slider("Domain size d", DOMAINS, value=1024, key="d", bind="query-params")
    samples = bundled_names()
    shape = bar.radio("Dataset", ("Zipf", "uniform", *(f"sample: {name}" for name in samples)),
                      key="dataset", bind="query-params")  # fmt: skip
    s = 1.5
    if shape == "Zipf":
        s = bar.slider("Zipf exponent s", 0.0, 3.0, 1.5, 0.1, key="s", bind="query-params")
    elif shape.startswith("sample: "):
        bar.caption("A bundled sample keeps its own domain; d does not apply.")
    methods = bar.multiselect("Methods", method_names(), default=list(method_names()),
                              key="methods", bind="query-params")  # fmt: skip
    trials = bar.slider("Trials", bounds.TRIALS_MIN, 200, 30, key="trials", bind="query-params")
    seed = bar.number_input("Seed", 0, 2**31 - 1, 0, key="seed", bind="query-params")
    if not methods:
        bar.error("Pick at least one method.")
        return None
    if shape == "Zipf":
        dataset = f"zipf:d={d},s={s:g}"
    elif shape == "uniform":
        dataset = f"uniform:d={d}"
    else:
        dataset = shape.removeprefix("sample: ")
    try:
        return ExperimentConfig(
            dataset=dataset, n=int(n), protocol=protocol, epsilon=float(epsilon),
            methods=tuple(methods), trials=int(trials), seed=int(seed),
        )  # fmt: skip
    except ValueError as exc:
        bar.error(str(exc))
        return None


def require_config() -> ExperimentConfig:
    """Draw the sidebar; stop the page with a hint when its settings are not usable."""
    config = sidebar()
    if config is None:
        st.info("Fix the settings in the sidebar to see results.")
        st.stop()
    return config


def config_hash() -> dict[str | type[Any], Callable[[Any], Any]]:
    """``hash_funcs`` keying an ExperimentConfig by its digest (a new dict per cache).

    Streamlit's own hasher walks explicit counts value by value: over a second per
    cached call at d = 200,000, on every rerun.
    """
    return {ExperimentConfig: lambda config: config.fingerprint}


@st.cache_data(show_spinner=False, max_entries=64, hash_funcs=config_hash())
def simulate(config: ExperimentConfig) -> dict[str, Any]:
    """Run (cached) and return plain tables."""
    result = run(config)
    return {
        "summary": result.summary,
        "per_item": result.per_item,
        "analytic": result.analytic,
        "labels": result.labels,
    }


@st.cache_data(show_spinner=False, max_entries=64, hash_funcs=config_hash())
def simulate_summary(config: ExperimentConfig) -> dict[str, Any]:
    """Only the per-method summary and the analytic references of ``simulate``.

    A warm rerun then unpickles 13 rows, not the per-item table (≈10 ms at d = 1024).
    """
    result = simulate(config)
    return {"summary": result["summary"], "analytic": result["analytic"]}


# cache_resource, not cache_data: a rerun gets the built figures themselves, not a
# pickled copy that Plotly would validate again (≈10 ms a figure). Callers only read
# them (plotly_chart, to_html and to_image copy), never change them.
@st.cache_resource(show_spinner=False, max_entries=32, hash_funcs=config_hash())
def explorer_figures(
    config: ExperimentConfig, relative: bool, every_method: bool = False
) -> dict[str, go.Figure]:
    """The Explorer's four figures, built once per view and shared; do not modify them.

    The by-rank charts draw ``viz.FEATURED`` methods unless ``every_method``.
    """
    result = simulate(config)
    per_item, summary, analytic = result["per_item"], result["summary"], result["analytic"]
    featured = None if every_method else viz.FEATURED
    return {
        "estimates": viz.estimates_by_rank(per_item, featured=featured),
        "bias": viz.by_rank(per_item, "bias", title="Bias by rank", featured=featured),
        "variance": viz.by_rank(
            per_item, "variance", title="Variance by rank", log_y=True, featured=featured
        ),
        "mse": viz.mse_bars(
            summary,
            base_mse=analytic["base_mse"],
            lower_bound=analytic["lower_bound"],
            relative_to_base=relative,
        ),
    }


@st.cache_data(show_spinner=False, max_entries=64)
def protocols_table(epsilon: float, domain_size: int, n: int) -> pd.DataFrame:
    """Every protocol's p, q, Base variance and worst-case ratio (cached: the ratio is
    computed from explicit channel matrices, millions of entries at d = 1024)."""
    return pd.DataFrame(describe_protocols(epsilon=epsilon, domain_size=domain_size, n=n))


@st.cache_data(show_spinner=False, max_entries=32, hash_funcs=config_hash())
def simulate_sweep(
    config: ExperimentConfig, parameter: str, values: tuple[Any, ...]
) -> pd.DataFrame:
    """A cached sweep (progress is shown by the caller's spinner)."""
    return sweep(config, parameter, list(values))


def run_or_explain(action: Callable[[], Any], what: str) -> Any:
    """Run ``action`` with a status line; show a ValueError as an error, not a traceback."""
    try:
        with st.spinner(what):
            return action()
    except ValueError as exc:
        st.error(f"{exc}")
        return None


def command_line(config: ExperimentConfig, *, query: str | None = None) -> str:
    """The ``ldpcore simulate`` command that reproduces a configuration."""
    methods = ",".join(config.methods) if config.methods != method_names() else "all"
    parts = [
        "ldpcore", "simulate", "--protocol", config.protocol, "--epsilon", f"{config.epsilon:g}",
        "--n", str(config.n), "--dataset", config.dataset, "--methods", methods,
        "--query", query or config.query, "--trials", str(config.trials), "--seed",
        str(config.seed), "--format", "json",
    ]  # fmt: skip
    return " ".join(shlex.quote(p) for p in parts)


def downloads(name: str, table: pd.DataFrame, figure: go.Figure | None, command: str) -> None:
    """CSV of the numbers, the chart as HTML and PNG, and the command line."""
    columns = st.columns(4)
    columns[0].download_button(
        "Numbers (CSV)", data=table.to_csv(index=False).encode(), file_name=f"{name}.csv",
        mime="text/csv", key=f"csv-{name}", on_click="ignore",
    )  # fmt: skip
    columns[1].download_button(
        "Command line", data=command.encode(), file_name=f"{name}.sh", mime="text/plain",
        key=f"cmd-{name}", on_click="ignore",
    )  # fmt: skip
    if figure is None:
        return
    columns[2].download_button(
        "Chart (HTML)", data=lambda: figure.to_html(include_plotlyjs=True).encode(),
        file_name=f"{name}.html", mime="text/html", key=f"html-{name}", on_click="ignore",
    )  # fmt: skip
    _png_download(columns[3], name, figure, command)


def _png_download(column: Any, name: str, figure: go.Figure, command: str) -> None:
    # Rendering a PNG starts a headless browser (~3 s), so it is done on request and
    # remembered for this exact view (the command line identifies it).
    slot = f"png-{name}"
    stored = st.session_state.get(slot)
    if stored is not None and stored[0] == command:
        column.download_button(
            "Chart (PNG)", data=stored[1], file_name=f"{name}.png", mime="image/png",
            key=f"{slot}-download", on_click="ignore",
        )  # fmt: skip
        return
    if column.button("Prepare PNG", key=f"{slot}-prepare"):
        try:
            with st.spinner("Rendering the PNG…"):
                image = figure.to_image(format="png", width=1200, height=700)
        except Exception as exc:  # kaleido reports a missing browser in several ways
            st.error(
                "PNG export needs Chrome or Chromium on the server (kaleido drives it): "
                f"{exc}. The HTML download works without it."
            )
            return
        st.session_state[slot] = (command, image)
        st.rerun()


def method_table(summary: pd.DataFrame) -> pd.DataFrame:
    """Measured numbers next to what each method enforces (from the registry metadata)."""
    rows = []
    for record in summary.to_dict("records"):
        meta = METHODS[record["method"]]
        rows.append(
            {
                "method": record["method"],
                "non-negative": meta.nonnegative,
                "sums to one": meta.sums_to_one,
                "complexity": meta.complexity,
                "MSE": record["mse"],
                "bias²": record["bias_sq"],
                "variance": record["variance"],
                "equivalent users n'": record["equivalent_users"],
            }
        )
    return pd.DataFrame(rows)


def with_query(config: ExperimentConfig, query: str) -> ExperimentConfig:
    """The same configuration asking another query."""
    return dataclasses.replace(config, query=query)


@st.cache_data(show_spinner=False, max_entries=16)
def bundled_dataset(name: str) -> Dataset:
    """A bundled dataset as shipped (cached: words.csv has 10,000 rows)."""
    return load_bundled(name)


@st.cache_data(show_spinner=False, max_entries=16)
def parsed_upload(
    data: bytes, *, source: str, value: str | None, count: str | None, group: str | None,
    sum_duplicates: bool, header: bool | None = None,
) -> Dataset:  # fmt: skip
    """An uploaded histogram, parsed (cached on the bytes and the column choice)."""
    return parse_histogram(
        data, source=source, value_column=value, count_column=count, group_column=group,
        sum_duplicates=sum_duplicates, header=header,
    )  # fmt: skip


@st.cache_data(show_spinner=False, max_entries=16)
def inspected_upload(data: bytes, *, source: str, header: bool | None = None) -> TableLayout:
    """An upload's layout (cached: a million-row file takes seconds to scan)."""
    return inspect_table(data, source=source, header=header)


def histogram_picker(key: str, *, allow_bundled: bool = True) -> Dataset | None:
    """A bundled dataset or an uploaded histogram, with every problem explained.

    The column choice appears when the file does not make it obvious; repeated
    values are summed only when the person ticks the box the message offers.
    """
    sources = ("A bundled dataset", "Upload a file") if allow_bundled else ("Upload a file",)
    source = st.radio("Data", sources, horizontal=True, key=f"{key}-source")
    if source == "A bundled dataset":
        name = st.selectbox("Bundled dataset", bundled_names(), key=f"{key}-bundled",
                            help="Provenance and licences: sample_data/README.md.")  # fmt: skip
        return bundled_dataset(name) if name else None
    return _uploaded_histogram(key)


def _uploaded_histogram(key: str) -> Dataset | None:
    upload = st.file_uploader(
        "Histogram: CSV or TSV with a value and a count column (and optionally a group)",
        type=["csv", "tsv", "txt"], key=f"{key}-upload",
        help=f"One row per value. UTF-8, at most {bounds.UPLOAD_BYTES_MAX // 2**20} MiB and "
        f"{bounds.DOMAIN_SIZE_MAX:,} values.",
    )  # fmt: skip
    if upload is None:
        st.info("Upload a file such as `value,count` / `apple,120` / `pear,75` to begin.")
        return None
    data = upload.getvalue()
    # Whether the first row names the columns is guessed per file; a person can overrule
    # it (a header such as "city,2019,2020" looks like data). A new file starts afresh.
    header_key, file_key = f"{key}-header", f"{key}-header-file"
    if st.session_state.get(file_key) != upload.file_id:
        st.session_state[file_key] = upload.file_id
        st.session_state.pop(header_key, None)
    try:
        guessed = inspected_upload(data, source=upload.name)
        header = bool(st.session_state.get(header_key, guessed.has_header))
        layout = (
            guessed
            if header == guessed.has_header
            else inspected_upload(data, source=upload.name, header=header)
        )
    except TableError as exc:
        st.error(str(exc))
        return None
    columns = list(layout.columns)
    if not layout.numeric:  # nothing to choose from: the parser's own message says why
        try:
            parse_histogram(data, source=upload.name, header=header)
        except TableError as exc:
            st.error(str(exc))
            return None
    obvious = layout.number_column is not None and layout.value_column is not None
    with st.expander("Columns", expanded=not obvious):
        st.checkbox(
            "The first row names the columns", value=guessed.has_header, key=header_key,
            help="Guessed from the file; untick it if the first row is a value and its count.",
        )  # fmt: skip
        pick = st.columns(3)
        value = pick[0].selectbox("Value column", columns, key=f"{key}-value-col",
                                  index=_position(columns, layout.value_column))  # fmt: skip
        numeric = [c for c in columns if c in layout.numeric] or columns
        count = pick[1].selectbox("Count column", numeric, key=f"{key}-count-col",
                                  index=_position(numeric, layout.number_column))  # fmt: skip
        choices = ["(none)", *columns]
        group = pick[2].selectbox("Group column", choices, key=f"{key}-group-col",
                                  index=_position(choices, layout.group_column))  # fmt: skip
    sum_duplicates = st.session_state.get(f"{key}-sum", False)
    try:
        return parsed_upload(data, source=upload.name, value=value, count=count,
                             group="" if group == "(none)" else group,
                             sum_duplicates=sum_duplicates, header=header)  # fmt: skip
    except DuplicateValuesError as exc:
        st.warning(str(exc))
        st.checkbox("Sum the counts of repeated values", key=f"{key}-sum")
        return None
    except TableError as exc:
        st.error(str(exc))
        return None


def _position(options: list[str], wanted: str | None) -> int:
    return options.index(wanted) if wanted in options else 0


def query_picker(key: str, dataset: Dataset) -> str:
    """The query that matters, as an ``ldpcore.queries`` spec."""
    kinds = ["The most frequent values", "Every value", "A set of values"]
    if dataset.groups is not None:
        kinds.append("Group totals")
    kind = st.radio("Query that matters", kinds, horizontal=True, key=f"{key}-query")
    if kind == "The most frequent values":
        k = st.number_input("How many (k)", 1, max(1, dataset.domain_size - 1),
                            min(10, dataset.domain_size - 1), key=f"{key}-k")  # fmt: skip
        return f"topk:k={int(k)}"
    if kind == "A set of values":
        rho = st.slider("Set size, as a share of the values", 0.01, 0.9, 0.1, 0.01,
                        key=f"{key}-rho")  # fmt: skip
        return f"set:rho={rho:g}"
    return "groups" if kind == "Group totals" else "full"


def counts_config(
    dataset: Dataset, *, n: int, protocol: str, epsilon: float, query: str,
    methods: tuple[str, ...] | None = None, trials: int = 20, seed: int = 0,
) -> ExperimentConfig:  # fmt: skip
    """An experiment on a dataset's own counts (rescaled to ``n``)."""
    return ExperimentConfig(
        dataset=dataset.name, n=n, protocol=protocol, epsilon=epsilon,
        methods=methods or method_names(), query=query, trials=trials, seed=seed,
        true_counts=tuple(int(c) for c in dataset.counts), labels=dataset.labels,
        groups=dataset.groups,
    )  # fmt: skip


@st.cache_resource(show_spinner=False)
def cluster() -> tuple[Any, int, str]:
    """The Dask client long runs use (``$LDPCORE_DASK``), its worker count, and where that is.

    One per server process, opened on first use; without the variable, work runs in
    the app's own process.
    """
    spec = configured()
    if spec is None:
        return None, 1, ("this machine (start the app with LDPCORE_DASK=local:N or "
                         "tcp://HOST:PORT to use a Dask cluster)")  # fmt: skip
    try:
        client = open_client(spec)
    except ValueError as exc:
        return None, 1, f"this machine, because {ENVIRONMENT}={spec} failed: {exc}"
    workers = max(1, len(client.scheduler_info().get("workers", {})))
    return client, workers, where(client)


def executor() -> tuple[Any, int, str]:
    """``(executor or None, workers, where)`` for long runs."""
    client, workers, place = cluster()
    return (None if client is None else client.get_executor()), workers, place
