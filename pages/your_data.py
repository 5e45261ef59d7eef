"""Your data: simulate on your own histogram, or make collected LDP output consistent."""

from __future__ import annotations

import streamlit as st

from ldpcore import bounds
from ldpcore.data.datasets import Dataset
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.scope import scope_for
from ldpcore.present import figures
from ldpcore.present.commands import simulate_command
from ldpcore.present.notebooks import run_notebook
from ldpcore.serving.settings import EPSILONS
from pages.app_layer.controls.navigation import ensure_app
from pages.app_layer.controls.uploads import (
    histogram_picker,
    value_order,
)
from pages.app_layer.controls.widgets import follow, query_picker
from pages.app_layer.features.collected import collected_inputs, collected_section
from pages.app_layer.serving.cache import by_rank_figure, comparison_figure
from pages.app_layer.serving.staging import Staged, staged_run, trials_shown
from pages.app_layer.views.display import (
    PAIRED_NOTE,
    convergence_warning,
    run_or_explain,
    show_chart,
    show_method_table,
    verdict_banner,
)
from pages.app_layer.views.exports import downloads

ensure_app(__file__)
st.title("Your data")
simulate_tab, collected_tab = st.tabs(
    ["Simulate on your histogram", "Make collected LDP output consistent"]
)


def _what_was_read(dataset: Dataset) -> None:
    columns = st.columns(3)
    columns[0].metric("Values d", f"{dataset.domain_size:,}")
    columns[1].metric("Users n", f"{dataset.n:,}")
    columns[2].metric(
        "Groups", "none" if dataset.groups is None else f"{len(set(dataset.groups)):,}"
    )


def _histogram(dataset: Dataset) -> None:
    st.header("Your histogram")
    show_chart(figures.top_values(dataset.labels, dataset.counts), key="chart-histogram")


#: The default number of users of a simulated collection: a large survey's, not the file's
#: total when that is a census (countries: everyone on Earth).
SURVEY_USERS = 1_000_000


def _simulate_section(dataset: Dataset) -> None:
    """What was read, the answer and its chart, the settings that made them, the rest."""
    _what_was_read(dataset)
    answer = st.container()  # filled once the settings below are read
    st.header("Simulate a protocol on it")
    row = st.columns(4)
    offered = scope_for(dataset)  # what applies; a choice kept from other data: OLH
    if st.session_state.get("yours-protocol") not in offered.protocols:
        st.session_state["yours-protocol"] = "OLH"
    protocol = row[0].selectbox("Protocol", offered.protocols, key="yours-protocol")
    epsilon = row[1].select_slider("Privacy budget ε", EPSILONS, value=1.0, key="yours-epsilon")
    follow("yours-n", dataset.fingerprint, min(dataset.n, SURVEY_USERS))
    n = row[2].number_input(
        "Users n",
        bounds.N_USERS_MIN,
        bounds.N_USERS_MAX,
        key="yours-n",
        help=f"The file holds {dataset.n:,}. The default is at most {SURVEY_USERS:,}, the size "
        "of a large survey: at billions of users every method is nearly exact and the "
        "comparison says little.",
    )
    trials = row[3].slider("Trials", 5, 100, 20, key="yours-trials")
    dataset = value_order(dataset)
    query = query_picker("yours", dataset)
    if offered.left_out:
        st.caption("Not offered for these values: " + "; ".join(offered.left_out) + ".")
    config = run_or_explain(
        lambda: ExperimentConfig.from_dataset(
            dataset,
            n=int(n),
            protocol=protocol,
            epsilon=float(epsilon),
            query=query,
            trials=int(trials),
        ),
        "Checking the settings…",
    )
    if config is None:
        return
    staged = Staged()
    result, shown = staged_run(staged, config, "Simulating…")
    if result is not None and shown.config is not None:
        drawn = shown.config
        with answer:
            verdict_banner(result["ranking"], explain=True)
            convergence_warning(result["summary"])
            chart = comparison_figure(drawn)
            show_chart(chart, key="yours-mse")
            st.caption(PAIRED_NOTE + trials_shown(shown))
        estimates = by_rank_figure(drawn, "estimates", False)
        show_chart(estimates, key="yours-estimates")
        show_method_table(result["summary"])
        downloads(
            "your-data",
            result["summary"],
            chart,
            simulate_command(config),
            lambda: run_notebook(config, title=f"Your data: {dataset.name}"),
        )
    _histogram(dataset)
    staged.finish()  # the rest of the trials, once the section is drawn


with simulate_tab:
    picked = histogram_picker("yours")
    if picked is not None:
        _simulate_section(picked)


with collected_tab:
    inputs = collected_inputs()
    if inputs is not None:
        collected_section(*inputs)
