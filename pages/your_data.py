"""Your data: simulate on your own histogram, or make collected LDP output consistent."""

from __future__ import annotations

import streamlit as st

from ldpcore import bounds
from ldpcore.data.datasets import Dataset
from ldpcore.data.tables import TableError
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.scope import scope_for
from ldpcore.postprocess import method_class, method_names
from ldpcore.present import figures
from ldpcore.present.commands import simulate_command
from ldpcore.present.notebooks import run_notebook
from ldpcore.present.run_sentences import caveats_note
from ldpcore.present.sentences import BASE_OUTSIDE_NOTE, CREDIBLE_NOTE, INTERVAL_NOTE
from ldpcore.protocols import protocol_names
from ldpcore.serving.settings import EPSILONS
from pages.app_layer.controls.navigation import ensure_app
from pages.app_layer.controls.report_uploads import report_inputs
from pages.app_layer.controls.uploads import (
    PRIORS,
    checked_collected,
    histogram_picker,
    prior_choice,
    value_order,
)
from pages.app_layer.controls.widgets import follow, per_upload, query_picker
from pages.app_layer.serving.answers import collected_example, consistent, guessed_kind
from pages.app_layer.serving.cache import by_rank_figure, comparison_figure
from pages.app_layer.serving.staging import Staged, staged_run, trials_shown
from pages.app_layer.views.display import (
    PAIRED_NOTE,
    convergence_warning,
    frequency_columns,
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


def _collected_inputs() -> tuple[bytes, str, dict[str, object]] | None:
    shape = st.radio(
        "What you collected",
        ("Support counts or estimates, one row per value", "The reports, one row per user"),
        key="collected-shape",
        horizontal=True,
    )
    if shape.startswith("The reports"):
        return report_inputs()
    upload = st.file_uploader(
        "Collected output: CSV or TSV with a value column and either `count` (support "
        "counts) or `estimate` (Base frequency estimates)",
        type=["csv", "tsv", "txt"],
        key="collected-upload",
    )
    if upload is None:
        st.info(
            "Support counts are how many reports supported each value (what `ldpcore "
            "aggregate` writes); Base estimates are the unbiased frequencies (Eq. 2), which "
            "may be negative. To try it, download the example below (support counts from "
            "OLH at ε = 1 on 10,000 users, the settings this page starts with) and upload it."
        )
        st.download_button(
            "Example: support counts (CSV)",
            data=collected_example(),
            file_name="example_support_counts.csv",
            mime="text/csv",
            key="collected-example",
            on_click="ignore",
        )
        return None
    data = upload.getvalue()
    try:
        guessed = guessed_kind(data, upload.name)
    except TableError as exc:
        st.error(str(exc))
        return None
    names = protocol_names()
    defaults = {"kind": guessed, "protocol": names[1], "epsilon": 1.0, "n": 10_000}
    per_upload(upload.file_id, {f"collected-{key}": value for key, value in defaults.items()})
    row = st.columns(4)
    kind = row[0].radio(
        "The file holds",
        ("counts", "estimates"),
        key="collected-kind",
        format_func={"counts": "support counts", "estimates": "Base estimates"}.__getitem__,
    )
    protocol = row[1].selectbox("Protocol used", names, key="collected-protocol")
    epsilon = row[2].number_input(
        "ε used",
        bounds.EPSILON_MIN,
        bounds.EPSILON_MAX,
        step=0.1,
        format="%.3f",
        key="collected-epsilon",
    )
    n = row[3].number_input(
        "Users who reported (n)", bounds.N_USERS_MIN, bounds.N_USERS_MAX, key="collected-n"
    )
    settings: dict[str, object] = {
        "kind": kind,
        "protocol": protocol,
        "epsilon": float(epsilon),
        "n": int(n),
    }
    if not checked_collected(data, upload.name, settings):
        return None
    return data, upload.name, settings


with collected_tab:
    inputs = _collected_inputs()
    if inputs is not None:
        data, source, settings = inputs
        offered = method_names(str(settings["protocol"]))
        if st.session_state.get("collected-method") not in offered:
            st.session_state["collected-method"] = "Norm-Sub"
        method = st.selectbox("Post-processing method", offered, key="collected-method")
        credible = method_class(method).interval_kind == "credible"
        prior = prior_choice() if credible else (PRIORS[0], None, None)
        found = None
        if prior is not None:
            picked_prior = prior  # a name the closure keeps, typed without None
            found = run_or_explain(
                lambda: consistent(data, source, settings, method, picked_prior),
                "Post-processing…",
            )
        if found is not None:
            table, caveats = found
            if warning := caveats_note(caveats):
                st.warning(warning, icon=":material/warning:")
            note = CREDIBLE_NOTE if credible else INTERVAL_NOTE
            st.caption(
                f"{method}: {method_class(method).explanation} {note}"
                + (
                    f" {BASE_OUTSIDE_NOTE}"
                    if ((table["estimate"] < 0) | (table["estimate"] > 1)).any()
                    else ""
                )
            )
            figure = figures.estimates_with_intervals(table)
            show_chart(figure, key="chart-consistent")
            shown = frequency_columns(table[["estimate", "low", "high"]])
            st.dataframe(table, hide_index=True, key="consistent-table", column_config=shown)
            st.download_button(
                "Consistent estimates (CSV)",
                data=table.to_csv(index=False).encode(),
                file_name="consistent_estimates.csv",
                mime="text/csv",
                key="consistent-download",
                on_click="ignore",
            )
