"""The slow path for ``ldpcore.data.tables``: Python's ``csv`` reader, one row at a time.

This was the product's reader until pandas' C parser replaced it (one
reader); it stays here, independent of the product's tokenising and checks, so the
tests can say that the product reads every file as ``csv`` does and writes the same
message about the same line. Its one change from the old product: line ends are made
``\\n`` first, as the product does (a file with old Mac ``\\r`` line ends used to be
refused).
"""

from __future__ import annotations

import csv
import io

import numpy as np

from ldpcore.data import tables
from ldpcore.data.tables import (
    COUNT_NAMES,
    ESTIMATE_NAMES,
    NumberTable,
    TableError,
    TableLayout,
)

Rows = list[tuple[int, list[str]]]


def _rows(text: str, delimiter: str, source: str) -> Rows:
    """Non-blank rows with the line each ends on, cells stripped."""
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    rows: Rows = []
    try:
        for row in reader:
            cells = [cell.strip() for cell in row]
            if any(cells):
                rows.append((reader.line_num, cells))
    except csv.Error as exc:
        raise TableError(f"{source}, line {reader.line_num}: not a readable CSV ({exc})") from None
    return rows


def _layout(
    text: str, source: str, names: tuple[str, ...], header: bool | None
) -> tuple[TableLayout, Rows]:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    delimiter = tables._sniff(text)
    rows = _rows(text, delimiter, source)
    if not rows:
        raise TableError(f"{source} is empty; expected a CSV with a value and a count column")
    if header is None:
        header = tables._guess_header(
            rows[0][1],
            len(rows),
            lambda i: all(len(c) > i and tables._is_number(c[i]) for _, c in rows[1:]),
            names,
        )
    data = rows[1:] if header else rows

    def numeric(i: int) -> bool:
        return bool(
            data
            and all(len(cells) > i for _, cells in data)
            and all(tables._is_number(cells[i]) for _, cells in data if cells[i])
            and any(cells[i] for _, cells in data)
        )

    layout = tables._describe(
        rows[0][1],
        width=max(len(cells) for _, cells in rows),
        has_header=header,
        delimiter=delimiter,
        rows=len(data),
        numeric_column=numeric,
        number_names=names,
        source=source,
    )
    return layout, data


def _names(numbers: str) -> tuple[str, ...]:
    return COUNT_NAMES if numbers == "counts" else ESTIMATE_NAMES + COUNT_NAMES


def inspect_table(
    data: bytes, *, source: str = "the file", numbers: str = "counts", header: bool | None = None
) -> TableLayout:
    """As :func:`ldpcore.data.tables.inspect_table`, row by row."""
    return _layout(tables.decode(data, source=source), source, _names(numbers), header)[0]


def read_numbers(
    data: bytes,
    *,
    source: str = "the file",
    value_column: str | None = None,
    number_column: str | None = None,
    group_column: str | None = None,
    numbers: str = "counts",
    sum_duplicates: bool = False,
    header: bool | None = None,
    users: bool = True,
) -> NumberTable:
    """As :func:`ldpcore.data.tables.read_numbers`, row by row."""
    what = "count" if numbers == "counts" else "number"
    layout, rows = _layout(tables.decode(data, source=source), source, _names(numbers), header)
    at_value, at_number, at_group = tables._choose_columns(
        layout,
        source=source,
        what=what,
        value_column=value_column,
        number_column=number_column,
        group_column=layout.group_column if group_column is None else (group_column or None),
    )
    needed = max(at_value, at_number, -1 if at_group is None else at_group)
    labels: list[str] = []
    raw: list[float] = []
    groups: list[str] = []
    index: dict[str, int] = {}
    repeated: dict[str, None] = {}
    for line, cells in rows:
        if len(cells) <= needed:
            raise TableError(
                f"{source}, line {line}: expected {len(layout.columns)} columns, got {len(cells)}"
            )
        label = cells[at_value]
        if not label:
            raise TableError(
                f"{source}, line {line}: the value column ({layout.columns[at_value]}) is blank"
            )
        number = tables._number(
            cells[at_number], label=label, line=line, source=source, kind=numbers
        )
        group = (cells[at_group] or "(no group)") if at_group is not None else ""
        if label in index:
            repeated[label] = None
            first = index[label]
            if not sum_duplicates:
                continue
            raw[first] += number
            if at_group is not None and groups[first] != group:
                raise TableError(
                    f"{source}, line {line}: value {label!r} is in group {group!r} here "
                    f"and {groups[first]!r} earlier; a value has one group"
                )
            continue
        index[label] = len(labels)
        labels.append(label)
        raw.append(number)
        groups.append(group)
    array = np.array(raw, dtype=np.float64)
    # What the whole table must be is one function of the product's: this reference is
    # the row-by-row tokenising and checking, which the product does another way.
    tables._check_table(
        labels,
        array,
        repeated=() if sum_duplicates else tuple(repeated),
        source=source,
        numbers=numbers,
        users=users,
    )
    return NumberTable(tuple(labels), array, None if at_group is None else tuple(groups))
