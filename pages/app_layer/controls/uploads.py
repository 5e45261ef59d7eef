"""A bundled dataset or an uploaded histogram, with every problem explained."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TypeVar

import streamlit as st

from ldpcore import bounds
from ldpcore.data.datasets import Dataset, bundled_names, parse_histogram
from ldpcore.data.tables import DuplicateValuesError, TableError
from ldpcore.data.totals import TotalRowError
from pages.app_layer.controls.widgets import per_upload
from pages.app_layer.serving.answers import (
    bundled_dataset,
    collected_notes,
    inspected_upload,
    parsed_upload,
)
from pages.app_layer.views.display import run_or_explain


def histogram_picker(key: str, *, allow_bundled: bool = True) -> Dataset | None:
    """A bundled dataset or an uploaded histogram, with every problem explained.

    The column choice appears when the file does not make it obvious; repeated
    values are summed only when the person ticks the box the message offers.
    """
    sources = ("A bundled dataset", "Upload a file") if allow_bundled else ("Upload a file",)
    # The choice and the dataset on one row: the answer below starts higher.
    left, right = st.columns([1, 2], vertical_alignment="bottom")
    source = left.radio("Data", sources, horizontal=True, key=f"{key}-source")
    if source == "A bundled dataset":
        names = bundled_names()
        name = right.selectbox(
            "Bundled dataset",
            names,
            # Countries first: real data with groups, the view every visitor has met.
            index=names.index(FIRST_BUNDLED) if FIRST_BUNDLED in names else 0,
            key=f"{key}-bundled",
            help="Provenance and licences: sample_data/README.md.",
        )
        return bundled_dataset(name) if name else None
    return _uploaded_histogram(key)


#: The bundled dataset a picker starts at.
FIRST_BUNDLED = "countries"


def _uploaded_histogram(key: str) -> Dataset | None:
    upload = st.file_uploader(
        "Histogram: CSV or TSV with a value and a count column (and optionally a group)",
        type=["csv", "tsv", "txt"],
        key=f"{key}-upload",
        help=f"One row per value. UTF-8, at most {bounds.UPLOAD_BYTES_MAX // 2**20} MiB and "
        f"{bounds.DOMAIN_SIZE_MAX:,} values.",
    )
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
    numeric = [c for c in columns if c in layout.numeric] or columns
    choices = ["(none)", *columns]
    per_upload(
        (upload.file_id, header),
        {
            f"{key}-value-col": columns[_position(columns, layout.value_column)],
            f"{key}-count-col": layout.number_column
            or next((c for c in numeric if c != layout.value_column), numeric[0]),
            f"{key}-group-col": choices[_position(choices, layout.group_column)],
        },
    )
    with st.expander("Columns", expanded=not obvious):
        st.checkbox(
            "The first row names the columns",
            value=guessed.has_header,
            key=header_key,
            help="Guessed from the file; untick it if the first row is a value and its count.",
        )
        pick = st.columns(3)
        value = pick[0].selectbox("Value column", columns, key=f"{key}-value-col")
        count = pick[1].selectbox("Count column", numeric, key=f"{key}-count-col")
        group = pick[2].selectbox("Group column", choices, key=f"{key}-group-col")
    sum_duplicates = st.session_state.get(f"{key}-sum", False)
    picked_group = None if group == "(none)" else group
    try:
        return with_total_choice(
            lambda total: parsed_upload(
                data,
                source=upload.name,
                # Only the choices that differ from the guesses: the page's command then
                # names just those (the file reads the same either way).
                value=None if value == layout.value_column else value,
                count=None if count == layout.number_column else count,
                group=None if picked_group == layout.group_column else picked_group or "",
                sum_duplicates=sum_duplicates,
                header=None if header == guessed.has_header else header,
                total=total,
            ),
            f"{key}-total-{upload.file_id}",
        )
    except DuplicateValuesError as exc:
        st.warning(str(exc))
        st.checkbox("Sum the counts of repeated values", key=f"{key}-sum")
        return None
    except TableError as exc:
        st.error(str(exc))
        return None


def _position(options: list[str], wanted: str | None) -> int:
    return options.index(wanted) if wanted in options else 0


Read = TypeVar("Read")
#: The answers to a total row, in the words of the message that asks.
TOTAL_OPTIONS = {"drop": "Drop the total row", "keep": "Keep it as a value"}


def with_total_choice(read: Callable[[str], Read], key: str) -> Read | None:
    """``read(total)``, asking first what a row that sums the others is, if there is one.

    ``read`` takes :mod:`ldpcore.data.totals`' choice. Until the person answers, the page
    shows the question and nothing computed from the file (None); the answer is kept
    per file (``key`` names the file), so a new file is asked about afresh. Other
    problems propagate, as ``read`` raises them.
    """
    try:
        return read("ask")
    except TotalRowError as exc:
        said = st.container()  # the message above the question it asks
        choice = st.radio(
            "A row sums the others",
            list(TOTAL_OPTIONS),
            index=None,
            format_func=TOTAL_OPTIONS.__getitem__,
            key=key,
            horizontal=True,
        )
        if choice is None:
            said.warning(str(exc), icon=":material/functions:")
            return None
        said.caption(
            f"The row {exc.label!r} ({exc.number:,.6g}, the sum of the others) is "
            + ("dropped." if choice == "drop" else "kept as a value.")
        )
        return read(choice)


def checked_collected(data: bytes, name: str, settings: dict[str, object]) -> bool:
    """Say what a collected file looks like if its settings could not have made it.

    Said before any method runs; a row that sums the others is asked about first (before
    a count above n could blame n), and the answer is added to ``settings`` as
    ``total``. False: the file cannot be read yet (said once).
    """
    settings["total"] = "ask"

    def read(total: str) -> tuple[str, ...]:
        settings["total"] = total
        return collected_notes(data, name, settings)

    file_key = hashlib.sha1(data, usedforsecurity=False).hexdigest()[:16]
    notes = run_or_explain(
        lambda: with_total_choice(read, f"collected-total-{file_key}"), "Reading…"
    )
    if notes is None:
        return False
    for note in notes:
        st.warning(f"{name}: {note}", icon=":material/rule:")
    return True


#: The prior choices for Bayes on collected output.
PRIORS = ("Learned from the reports", "Jeffreys (weak)", "Uniform", "From a histogram I have")


def prior_choice() -> tuple[str, Dataset | None, float | None] | None:
    """Bayes's prior: its kind, and for an informed one the histogram and its weight."""
    kind = st.radio(
        "Prior",
        PRIORS,
        horizontal=True,
        key="collected-prior",
        help="What you believed before the reports. The learned prior lets the reports "
        "choose how concentrated the values are (a few common and many nearly absent, or "
        "all alike); Jeffreys' prior fixes that at one value; a histogram from an earlier "
        "survey or a census says more, worth as many users as you state.",
    )
    if kind != PRIORS[3]:
        return kind, None, None
    histogram = histogram_picker("prior")
    if histogram is None:
        return None
    weight = st.number_input(
        "The prior is worth (users)",
        min_value=1,
        max_value=bounds.N_USERS_MAX,
        value=1_000,
        key="collected-prior-weight",
        help="How many users' true values the histogram counts as. A reliable, recent census "
        "deserves more; an old or different population less. It is added to Jeffreys' prior.",
    )
    return kind, histogram, float(weight)


def value_order(dataset: Dataset) -> Dataset:
    """The data in the order a person picks: the file's, or by the values' numbers.

    Asked only when every value is a number and the file lists them out of numeric order:
    ranges of values and quantiles follow this order.
    """
    ordered = dataset.by_number()
    if ordered is None or ordered is dataset:
        return dataset
    order = st.radio(
        "Order of the values (ranges and quantiles read it)",
        ("As in the file", "By their numbers"),
        horizontal=True,
        key="yours-order",
        help="The file lists its values out of numeric order; ranges of values follow "
        "the order chosen here.",
    )
    return ordered if order == "By their numbers" else dataset
