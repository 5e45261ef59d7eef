"""Your data's report files: upload, the ones-count check, and support counts.

The reading and the check are :func:`ldpcore.collection.report_check.check_report_upload`;
the words are :func:`ldpcore.present.run_sentences.report_check_words`. What comes out
is what the collected-output tab reads: support counts as a ``value,count`` table, so
the rest of the tab (methods, intervals, downloads) is the same for both.
"""

from __future__ import annotations

import streamlit as st

from ldpcore import bounds
from ldpcore.collection.report_check import ReportCheck, check_report_upload, example_report_file
from ldpcore.collection.report_files import recorded_extras, recorded_number, upload_parameters
from ldpcore.present.run_sentences import report_check_words
from ldpcore.protocols import get_protocol, protocol_names
from pages.app_layer.controls.widgets import per_upload
from pages.app_layer.views.display import run_or_explain


@st.cache_data(show_spinner=False, max_entries=1)
def example_reports() -> bytes:
    """The example report file, with a few fake users among the honest ones."""
    return example_report_file()


@st.cache_data(show_spinner=False, max_entries=8)
def checked_reports(
    data: bytes,
    name: str,
    protocol: str,
    *,
    epsilon: float,
    domain_size: int,
    extras: dict[str, int | float],
) -> ReportCheck:
    """The upload read as ``protocol``'s reports and checked (cached per file and settings)."""
    oracle = get_protocol(protocol, epsilon=epsilon, domain_size=domain_size, **extras)
    return check_report_upload(oracle, data, name)


def report_inputs() -> tuple[bytes, str, dict[str, object], str] | None:
    """The report-file upload and its check, or None.

    Support counts for the tab, their name, the form's settings, and the upload's id (what
    is chosen for the file belongs to this upload, even after another of the same name).
    """
    upload = st.file_uploader(
        "Reports: one row per user, in the format `ldpcore randomize` writes (CSV or Parquet)",
        type=["csv", "parquet"],
        key="reports-upload",
    )
    if upload is None:
        st.info(
            "Each row is one user's randomized report. The file is aggregated here, and for "
            "unary encoding (OUE, SUE) each report's number of ones is checked against what "
            "an honest randomizer sends, and no values may be supported together by far more "
            "reports than honest users make. The example below has a few fake reports in it."
        )
        st.download_button(
            "Example: 2,060 OUE reports (CSV)",
            data=example_reports(),
            file_name="example_oue_reports.csv",
            mime="text/csv",
            key="reports-example",
            on_click="ignore",
        )
        return None
    data, name = upload.getvalue(), upload.name
    recorded = upload_parameters(data, name)
    names = list(protocol_names())
    per_upload(
        upload.file_id,
        {
            "reports-protocol": recorded["protocol"]
            if recorded.get("protocol") in names
            else names[0],
            "reports-epsilon": recorded_number(recorded, "epsilon", 1.0),
            "reports-d": int(recorded_number(recorded, "domain_size", 16)),
        },
    )
    row = st.columns(3)
    protocol = row[0].selectbox("Protocol used", names, key="reports-protocol")
    epsilon = row[1].number_input(
        "ε used",
        bounds.EPSILON_MIN,
        bounds.EPSILON_MAX,
        step=0.1,
        format="%.3f",
        key="reports-epsilon",
    )
    domain_size = row[2].number_input(
        "Values d", bounds.DOMAIN_SIZE_MIN, bounds.DOMAIN_SIZE_MAX, key="reports-d"
    )
    extras = recorded_extras(recorded, protocol)
    check = run_or_explain(
        lambda: checked_reports(
            data,
            name,
            protocol,
            epsilon=float(epsilon),
            domain_size=int(domain_size),
            extras=extras,
        ),
        "Reading the reports…",
    )
    if check is None:
        return None
    (st.warning if check.flagged or check.itemsets else st.info)(
        report_check_words(check), icon=":material/person_alert:"
    )
    screen = bool(check.itemsets) and st.checkbox(
        f"Drop the {check.itemset_flagged:,} reports that support a suspicious set together "
        "(and correct for the honest ones among them)",
        value=True,
        key="reports-itemsets",
    )
    drop = (
        not screen
        and check.flagged > 0
        and st.checkbox(
            f"Drop the {check.flagged:,} flagged reports", value=True, key="reports-drop"
        )
    )
    table, users = check.itemset_table() if screen else check.counts_table(drop=drop)
    settings: dict[str, object] = {
        "kind": "estimates" if screen else "counts",
        "protocol": protocol,
        "epsilon": float(epsilon),
        "n": users,
        "params": extras,
    }
    return table, f"{name} (aggregated)", settings, upload.file_id


__all__ = ["checked_reports", "example_reports", "report_inputs"]
