"""The shared sidebar, the slider grids people pick values from, and the query picker."""

from __future__ import annotations

import dataclasses

import streamlit as st

from ldpcore import bounds
from ldpcore.datasets import Dataset, bundled_names
from ldpcore.errors import InputError
from ldpcore.experiment import ExperimentConfig
from ldpcore.postprocess import method_names
from ldpcore.protocols import protocol_names

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
    except InputError as exc:
        bar.error(str(exc))
        return None


def require_config() -> ExperimentConfig:
    """Draw the sidebar; stop the page with a hint when its settings are not usable."""
    config = sidebar()
    if config is None:
        st.info("Fix the settings in the sidebar to see results.")
        st.stop()
    return config


def with_query(config: ExperimentConfig, query: str) -> ExperimentConfig:
    """The same configuration asking another query."""
    return dataclasses.replace(config, query=query)


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
