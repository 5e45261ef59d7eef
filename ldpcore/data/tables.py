"""Reading tables people bring: histograms and collected LDP output as CSV or TSV.

Everything a person can get wrong in a file ends in :class:`TableError` (a
``ValueError``) whose message names the line or column and says what to change.
Only the ``csv`` module touches the text: never ``eval``, never pickle.

The flow is two steps so an interface can ask when the file is ambiguous:
:func:`inspect_table` reads the layout (delimiter, header, which columns are
numeric, a guess for the value / number / group columns), then
:func:`read_numbers` reads one number per value with the columns chosen.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ldpcore import bounds
from ldpcore.errors import InputError

#: Told ``(done, total)`` as a long read goes on (the CLI's progress line).
Progress = Callable[[int, int], None]

#: Header names taken to mean "the value" / "the count" / "the group" (lower case).
VALUE_NAMES = ("value", "values", "item", "label", "name", "key", "category", "word", "emoji")
COUNT_NAMES = ("count", "counts", "n", "frequency", "freq", "users", "number", "total")
ESTIMATE_NAMES = ("estimate", "estimates", "frequency", "f", "base")
GROUP_NAMES = ("group", "groups", "class", "continent", "region")
#: Delimiters the sniffer chooses between.
DELIMITERS = ",\t;|"
#: How many duplicate values a message lists before "and N more".
_LIST_AT_MOST = 5


class TableError(InputError):
    """A file that cannot be used as it is; the message says what to change."""


class DuplicateValuesError(TableError):
    """Some values appear on more than one row (the caller may offer to sum them).

    Attributes
    ----------
    duplicates : tuple of str
        The repeated values, in order of first appearance.
    """

    def __init__(self, message: str, duplicates: tuple[str, ...]) -> None:
        super().__init__(message)
        self.duplicates = duplicates


@dataclass(frozen=True)
class TableLayout:
    """What :func:`inspect_table` found in a file.

    Attributes
    ----------
    columns : tuple of str
        Column names (from the header, or ``column 1``, ``column 2``, … without one).
    has_header : bool
        Whether the first line is a header.
    delimiter : str
        The sniffed delimiter.
    rows : int
        Data rows (blank lines skipped).
    numeric : tuple of str
        Columns whose every non-blank cell reads as a number.
    value_column, number_column, group_column : str or None
        The guessed columns (None when the file does not make it obvious).
    """

    columns: tuple[str, ...]
    has_header: bool
    delimiter: str
    rows: int
    numeric: tuple[str, ...]
    value_column: str | None
    number_column: str | None
    group_column: str | None


@dataclass(frozen=True)
class NumberTable:
    """One number per value, read from a file by :func:`read_numbers`.

    Attributes
    ----------
    labels : tuple of str
        The values, in file order (duplicates merged when asked).
    numbers : ndarray of float64
        The number of each value.
    groups : tuple of str, optional
        Each value's group, when a group column was chosen.
    """

    labels: tuple[str, ...]
    numbers: NDArray[np.float64]
    groups: tuple[str, ...] | None


def decode(data: bytes, *, source: str) -> str:
    """UTF-8 text of an upload (a byte-order mark is dropped), with the size limits checked."""
    if len(data) == 0:
        raise TableError(f"{source} is empty; expected a CSV with a value and a count column")
    if len(data) > bounds.UPLOAD_BYTES_MAX:
        raise TableError(
            f"{source} is {len(data) / 2**20:.1f} MiB; the limit is "
            f"{bounds.UPLOAD_BYTES_MAX // 2**20} MiB (aggregate rows with equal values first)"
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TableError(
            f"{source} is not UTF-8 text (byte {exc.start}); save it as 'CSV UTF-8' and retry"
        ) from None
    if "\x00" in text:
        raise TableError(f"{source} contains NUL bytes; it looks like a binary file, not a CSV")
    if not text.strip():
        raise TableError(f"{source} is empty; expected a CSV with a value and a count column")
    return text


def _sniff(text: str) -> str:
    sample = "\n".join(text.splitlines()[:50])
    try:
        return csv.Sniffer().sniff(sample, delimiters=DELIMITERS).delimiter
    except csv.Error:
        first = sample.splitlines()[0] if sample else ""
        return max(DELIMITERS, key=first.count) if any(c in first for c in DELIMITERS) else ","


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _rows(
    text: str, delimiter: str, source: str, progress: Progress | None = None
) -> list[tuple[int, list[str]]]:
    """Non-blank rows with their line numbers, cells stripped.

    ``progress(characters read, characters)`` every 65,536 rows: a million-row file takes
    seconds to read, and a person should see it move.
    """
    buffer = io.StringIO(text)
    reader = csv.reader(buffer, delimiter=delimiter)
    rows: list[tuple[int, list[str]]] = []
    try:
        for row in reader:
            cells = [cell.strip() for cell in row]
            if any(cells):  # stripped once: a million-row upload spent 4 s stripping twice
                rows.append((reader.line_num, cells))
            if progress is not None and not reader.line_num % 65_536:
                progress(buffer.tell(), len(text))
    except csv.Error as exc:
        raise TableError(f"{source}, line {reader.line_num}: not a readable CSV ({exc})") from None
    if progress is not None:
        progress(len(text), len(text))
    return rows


def _guess(names: Sequence[str], columns: Sequence[str]) -> str | None:
    lowered = [c.lower() for c in columns]
    for name in names:
        if name in lowered:
            return columns[lowered.index(name)]
    return None


def _guess_header(rows: list[tuple[int, list[str]]], number_names: Sequence[str]) -> bool:
    """Whether the first row names the columns.

    Yes when none of its cells is a number ("value,count"), or when one of them is a
    number column's name over a column of numbers ("city,2019,count"); a first line
    like "apple,12" or "count,15" (the word "count") is data. Headers made only of
    numbers besides text ("city,2019,2020") look like data: callers let people say so.
    """
    first = rows[0][1]
    if len(rows) == 1 or not any(_is_number(cell) for cell in first):
        return True
    names = {name.lower() for name in number_names}
    return any(
        cell.lower() in names
        and all(len(cells) > i and _is_number(cells[i]) for _, cells in rows[1:])
        for i, cell in enumerate(first)
    )


def _layout(
    text: str,
    source: str,
    number_names: Sequence[str],
    header: bool | None = None,
    progress: Progress | None = None,
) -> tuple[TableLayout, list[tuple[int, list[str]]]]:
    delimiter = _sniff(text)
    rows = _rows(text, delimiter, source, progress)
    if not rows:
        raise TableError(f"{source} is empty; expected a CSV with a value and a count column")
    first = rows[0][1]
    has_header = _guess_header(rows, number_names) if header is None else header
    width = max(len(cells) for _, cells in rows)
    if has_header:
        columns = [cell or f"column {i + 1}" for i, cell in enumerate(first)]
        columns += [f"column {i + 1}" for i in range(len(columns), width)]
        data = rows[1:]
    else:
        columns = [f"column {i + 1}" for i in range(width)]
        data = rows
    if len(set(c.lower() for c in columns)) != len(columns):
        raise TableError(f"{source}: the header names a column twice ({', '.join(columns)})")
    numeric = tuple(
        name
        for i, name in enumerate(columns)
        if data
        and all(len(cells) > i for _, cells in data)
        and all(_is_number(cells[i]) for _, cells in data if cells[i])
        and any(cells[i] for _, cells in data)
    )
    number = _guess(number_names, columns) if has_header else None
    if number is None and len(numeric) == 1:
        number = numeric[0]
    group = _guess(GROUP_NAMES, columns) if has_header else None
    value = _guess(VALUE_NAMES, columns) if has_header else None
    if value is None:
        others = [c for c in columns if c not in {number, group}]
        text_columns = [c for c in others if c not in numeric]
        value = (text_columns or others or [None])[0]  # type: ignore[list-item]
    if number is None and not has_header and len(columns) == 2:  # "3,10": value, then count
        value, number = columns[0], columns[1]
    layout = TableLayout(
        columns=tuple(columns),
        has_header=has_header,
        delimiter=delimiter,
        rows=len(data),
        numeric=numeric,
        value_column=value,
        number_column=number,
        group_column=group,
    )
    return layout, data


def inspect_table(
    data: bytes, *, source: str = "the file", numbers: str = "counts", header: bool | None = None
) -> TableLayout:
    r"""Read a file's layout and guess its columns.

    Parameters
    ----------
    data : bytes
        The file's content (CSV or TSV; delimiter sniffed; UTF-8 with or without BOM).
    source : str
        How messages name the file.
    numbers : {"counts", "estimates"}
        Which header names to look for in the number column.
    header : bool, optional
        Whether the first row names the columns (default: guessed).

    Examples
    --------
    >>> inspect_table(b"word\tusers\nhi\t3\nyo\t4\n").number_column
    'users'
    """
    names = COUNT_NAMES if numbers == "counts" else ESTIMATE_NAMES + COUNT_NAMES
    return _layout(decode(data, source=source), source, names, header)[0]


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
    progress: Progress | None = None,
) -> NumberTable:
    r"""One number per value from a CSV/TSV, validated.

    Parameters
    ----------
    data : bytes
        The file's content.
    source : str
        How messages name the file.
    value_column, number_column, group_column : str, optional
        The columns to use (default: :func:`inspect_table`'s guesses; ``group_column``
        ``""`` means none).
    numbers : {"counts", "estimates"}
        ``"counts"`` must be whole numbers ≥ 0, not all zero; ``"estimates"`` may
        be negative or fractional (Base estimates are), but must be finite.
    sum_duplicates : bool
        Add up the numbers of a value that appears on several rows instead of
        raising :class:`DuplicateValuesError`.
    header : bool, optional
        Whether the first row names the columns (default: guessed).
    users : bool
        Whether counts are users (a histogram: their total is bounded by the users
        supported). Support counts are not: each report supports many values (an OLH
        report about d/(e^ε + 1)), so their total can exceed n many times over.
    progress : callable, optional
        ``progress(characters read, characters)`` while the rows are read.

    Returns
    -------
    NumberTable

    Raises
    ------
    TableError
        For every problem, with a message that says what to change.

    Examples
    --------
    >>> read_numbers(b"value,count\na,1\nb,2\na,3\n", sum_duplicates=True).numbers.tolist()
    [4.0, 2.0]
    """
    if numbers not in {"counts", "estimates"}:
        raise InputError(f"numbers must be 'counts' or 'estimates', got {numbers!r}")
    names = COUNT_NAMES if numbers == "counts" else ESTIMATE_NAMES + COUNT_NAMES
    layout, rows = _layout(decode(data, source=source), source, names, header, progress)
    what = "count" if numbers == "counts" else "number"
    at = _choose_columns(
        layout,
        source=source,
        what=what,
        value_column=value_column,
        number_column=number_column,
        group_column=layout.group_column if group_column is None else (group_column or None),
    )
    labels, raw, groups, repeated = _collect(
        rows, at, layout, source=source, numbers=numbers, sum_duplicates=sum_duplicates
    )
    if repeated and not sum_duplicates:
        shown = ", ".join(repr(d) for d in repeated[:_LIST_AT_MOST])
        more = f" and {len(repeated) - _LIST_AT_MOST} more" if len(repeated) > _LIST_AT_MOST else ""
        raise DuplicateValuesError(
            f"{source}: {len(repeated)} value(s) appear on more than one row ({shown}{more}); "
            f"sum their {what}s or remove the repeats",
            repeated,
        )
    if len(labels) < bounds.DOMAIN_SIZE_MIN:
        raise TableError(
            f"{source} has {len(labels)} value(s); at least {bounds.DOMAIN_SIZE_MIN} are needed "
            f"(one row per value: value, {what})"
        )
    if len(labels) > bounds.DOMAIN_SIZE_MAX:
        raise TableError(
            f"{source} has {len(labels):,} values; at most {bounds.DOMAIN_SIZE_MAX:,} are "
            "supported (cut the rarest values or merge them into an 'other' value)"
        )
    array = np.array(raw, dtype=np.float64)
    if numbers == "counts":
        if not array.any():
            raise TableError(f"{source}: every count is 0; there are no users")
        if users and array.sum() > bounds.N_USERS_MAX:
            raise TableError(
                f"{source}: the counts add up to {array.sum():,.0f} users; "
                f"at most {bounds.N_USERS_MAX:,} are supported"
            )
    return NumberTable(tuple(labels), array, None if at[2] is None else tuple(groups))


def _choose_columns(
    layout: TableLayout,
    *,
    source: str,
    what: str,
    value_column: str | None,
    number_column: str | None,
    group_column: str | None,
) -> tuple[int, int, int | None]:
    """Column positions of (value, number, group), with a message for every bad choice."""
    columns = list(layout.columns)
    value_column = value_column or layout.value_column
    number_column = number_column or layout.number_column
    if not layout.numeric and number_column is None:
        raise TableError(
            f"{source} has no numeric column; a histogram needs a column of {what}s "
            f"(columns found: {', '.join(columns)})"
        )
    if number_column is None:
        raise TableError(
            f"{source} has several numeric columns ({', '.join(layout.numeric)}); "
            f"choose the {what} column"
        )
    for name in (value_column, number_column, group_column):
        if name is not None and name not in columns:
            raise TableError(f"{source} has no column {name!r}; columns: {', '.join(columns)}")
    if value_column is None or value_column == number_column:
        raise TableError(f"{source}: choose a value column other than the {what} column")
    group_at = None if group_column is None else columns.index(group_column)
    return columns.index(value_column), columns.index(number_column), group_at


def _collect(
    rows: list[tuple[int, list[str]]],
    at: tuple[int, int, int | None],
    layout: TableLayout,
    *,
    source: str,
    numbers: str,
    sum_duplicates: bool,
) -> tuple[list[str], list[float], list[str], tuple[str, ...]]:
    """Labels, numbers, groups and the repeated values, row by row."""
    at_value, at_number, at_group = at
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
        number = _number(cells[at_number], label=label, line=line, source=source, kind=numbers)
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
    return labels, raw, groups, tuple(repeated)


def _number(cell: str, *, label: str, line: int, source: str, kind: str) -> float:
    where = f"{source}, line {line}: the {'count' if kind == 'counts' else 'number'} of {label!r}"
    if not cell:
        raise TableError(f"{where} is blank; write 0 if no one holds this value")
    try:
        value = float(cell)
    except ValueError:
        raise TableError(f"{where} is {cell!r}, not a number") from None
    if math.isnan(value):
        raise TableError(f"{where} is NaN (not a number); write the actual number")
    if math.isinf(value):
        raise TableError(f"{where} is infinite; write the actual number")
    if kind == "counts":
        if value < 0:
            raise TableError(f"{where} is negative ({cell}); counts are numbers of users, >= 0")
        if value != round(value):
            raise TableError(f"{where} is {cell}, not a whole number; counts count users")
    return value
