"""Your data's collected output: the form one file at a time, then its answer.

What the tab shows belongs to the file on its form: a new file (or a new kind of file)
starts the form, the method included, from what that file says, so a second upload
never runs with the first one's choices (:func:`pages.app_layer.controls.widgets.per_upload`).
The answer is the simulate tab's: the query, the recommended method with its interval
(simulated on truths drawn from the posterior given the collection, since its truth is
unknown: :func:`ldpcore.advice.unknown_truth.recommend`), the consistent estimates of
the method on the form, and the commands that give the page's numbers.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from ldpcore import bounds
from ldpcore.data.datasets import Dataset
from ldpcore.data.tables import TableError
from ldpcore.postprocess import method_class, method_names
from ldpcore.present import figures
from ldpcore.present.commands import collected_commands
from ldpcore.present.run_sentences import caveats_note
from ldpcore.present.sentences import BASE_OUTSIDE_NOTE, CREDIBLE_NOTE, INTERVAL_NOTE
from ldpcore.protocols import protocol_names
from pages.app_layer.controls.report_uploads import report_inputs
from pages.app_layer.controls.uploads import PRIORS, checked_collected, prior_choice
from pages.app_layer.controls.widgets import follow, per_upload, query_picker
from pages.app_layer.serving.answers import (
    collected_example,
    collected_recommendation,
    collected_values,
    consistent,
    guessed_kind,
)
from pages.app_layer.views.display import run_or_explain, show_chart, verdict_banner
from pages.app_layer.views.exports import command_markdown

#: The method a file's form starts at before its recommendation is known.
FIRST_METHOD = "Norm-Sub"


def collected_inputs() -> tuple[bytes, str, dict[str, object], object] | None:
    """The file, its name, the form's settings and the file's identity (None: not yet)."""
    shape = st.radio(
        "What you collected",
        ("Support counts or estimates, one row per value", "The reports, one row per user"),
        key="collected-shape",
        horizontal=True,
    )
    if shape.startswith("The reports"):
        found = report_inputs()
        if found is None:
            return None
        table, name, read, upload_id = found
        return table, name, read, ("reports", upload_id, read["kind"])
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
    return data, upload.name, settings, ("file", upload.file_id, kind)


def collected_section(
    data: bytes, source: str, settings: dict[str, object], identity: object
) -> None:
    """The query, the recommendation, the chosen method's estimates and the commands."""
    values = run_or_explain(lambda: collected_values(data, source, settings), "Reading…")
    if values is None:
        return
    # The query picker reads the values alone (their number and identity), not counts.
    shape = Dataset(name=source, labels=values, counts=np.ones(len(values), np.int64))
    query = query_picker("collected", shape)
    ranking = run_or_explain(
        lambda: collected_recommendation(data, source, settings, str(query)),
        "Ranking the methods on truths drawn from your collection's posterior…",
    )
    if ranking is not None:
        verdict_banner(ranking, explain=True)
    offered = method_names(str(settings["protocol"]))
    recommended = FIRST_METHOD if ranking is None else ranking.recommended
    # The method belongs to the file and its query: a new one starts at its recommendation.
    follow("collected-method", (identity, str(query)), recommended)
    if st.session_state.get("collected-method") not in offered:
        st.session_state["collected-method"] = recommended if recommended in offered else offered[0]
    method = st.selectbox("Post-processing method", offered, key="collected-method")
    _estimates(data, source, settings, method)
    if not source.endswith(" (aggregated)"):  # a file the commands can read as it is
        ranked, cleaned = collected_commands(source, settings, method=method, query=query)
        with st.expander("The commands that compute this", icon=":material/terminal:"):
            st.markdown("The methods ranked for your query: " + command_markdown(ranked))
            st.markdown(f"{method}'s estimates and intervals: " + command_markdown(cleaned))


def _estimates(data: bytes, source: str, settings: dict[str, object], method: str) -> None:
    """The method's consistent estimates with an interval each: caption, chart, table, CSV."""
    credible = method_class(method).interval_kind == "credible"
    prior = prior_choice() if credible else (PRIORS[0], None, None)
    if prior is None:
        return
    picked_prior = prior  # a name the closure keeps, typed without None
    found = run_or_explain(
        lambda: consistent(data, source, settings, method, picked_prior), "Post-processing…"
    )
    if found is None:
        return
    table, caveats = found
    if warning := caveats_note(caveats):
        st.warning(warning, icon=":material/warning:")
    note = CREDIBLE_NOTE if credible else INTERVAL_NOTE
    outside = ((table["estimate"] < 0) | (table["estimate"] > 1)).any()
    st.caption(
        f"{method}: {method_class(method).explanation} {note}"
        + (f" {BASE_OUTSIDE_NOTE}" if outside else "")
    )
    show_chart(figures.estimates_with_intervals(table), key="chart-consistent")
    # One unit in the table, every frequency in percent, each column named in words (the
    # CSV keeps the command's column names).
    words = {
        "base_estimate": "Base estimate",
        "estimate": method,
        "low": "95% interval: low",
        "high": "95% interval: high",
    }
    shown = {c: st.column_config.NumberColumn(w, format="percent") for c, w in words.items()}
    st.dataframe(table, hide_index=True, key="consistent-table", column_config=shown)
    st.download_button(
        "Consistent estimates (CSV)",
        data=table.to_csv(index=False).encode(),
        file_name=f"consistent_estimates_{method}.csv",
        mime="text/csv",
        key="consistent-download",
        on_click="ignore",
    )


__all__ = ["collected_inputs", "collected_section"]
