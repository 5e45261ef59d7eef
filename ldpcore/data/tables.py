"""Reading tables people bring: histograms and collected LDP output as CSV or TSV.

Everything a person can get wrong in a file ends in :class:`TableError` (a
``ValueError``) whose message names the line or column and says what to change.
Only pandas' C parser (and ``csv``'s sniffer, for the delimiter) touch the text:
never ``eval``, never pickle.

One reader: :mod:`ldpcore.data.cells` reads the cells by pandas' C parser; the checks
here run on whole columns, and the first row that fails one is checked alone to write
its message, with its line.

The flow is two steps so an interface can ask when the file is ambiguous:
:func:`inspect_table` reads the layout (delimiter, header, which columns are
numeric, a guess for the value / number / group columns), then
:func:`read_numbers` reads one number per value with the columns chosen.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ldpcore import bounds
from ldpcore.data.cells import Grid, Progress, as_numbers, read_grid
from ldpcore.data.totals import TotalRowError, resolve_total
from ldpcore.errors import InputError, TableError

__all__ = [
    "DuplicateValuesError",
    "NumberTable",
    "Progress",
    "TableError",
    "TableLayout",
    "TotalRowError",
    "inspect_table",
    "read_numbers",
]

#: Header names taken to mean "the value" / "the count" / "the group" (lower case).
VALUE_NAMES = ("value", "values", "item", "label", "name", "key", "category", "word", "emoji")
COUNT_NAMES = ("count", "counts", "n", "frequency", "freq", "users", "number", "total")
ESTIMATE_NAMES = ("estimate", "estimates", "frequency", "f", "base")
GROUP_NAMES = ("group", "groups", "class", "continent", "region")
#: Delimiters the sniffer chooses between.
DELIMITERS = ",\t;|"
#: How many duplicate values a message lists before "and N more".
_LIST_AT_MOST = 5


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
    total : {"drop", "keep"}, optional
        What was done with the file's total row, when it had one.
    """

    labels: tuple[str, ...]
    numbers: NDArray[np.float64]
    groups: tuple[str, ...] | None
    total: str | None = None


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


def _guess(names: Sequence[str], columns: Sequence[str]) -> str | None:
    lowered = [c.lower() for c in columns]
    for name in names:
        if name in lowered:
            return columns[lowered.index(name)]
    return None


def _guess_header(
    first: Sequence[str],
    rows: int,
    numbers_below: Callable[[int], bool],
    number_names: Sequence[str],
) -> bool:
    """Whether the first row names the columns (both readers ask this).

    Yes when none of its cells is a number ("value,count"), or when one of them is a
    number column's name over a column of numbers ("city,2019,count"); a first line
    like "apple,12" or "count,15" (the word "count") is data. Headers made only of
    numbers besides text ("city,2019,2020") look like data: callers let people say so.
    ``rows`` counts the rows with the first; ``numbers_below(i)``: whether every later
    row has a number in column ``i``.
    """
    if rows == 1 or not any(_is_number(cell) for cell in first):
        return True
    names = {name.lower() for name in number_names}
    return any(cell.lower() in names and numbers_below(i) for i, cell in enumerate(first))


def _describe(
    first: list[str],
    *,
    width: int,
    has_header: bool,
    delimiter: str,
    rows: int,
    numeric_column: Callable[[int], bool],
    number_names: Sequence[str],
    source: str,
) -> TableLayout:
    """The layout from the first row and the columns' kinds (both readers share it)."""
    if has_header:
        columns = [cell or f"column {i + 1}" for i, cell in enumerate(first)]
        columns += [f"column {i + 1}" for i in range(len(columns), width)]
    else:
        columns = [f"column {i + 1}" for i in range(width)]
    if len(set(c.lower() for c in columns)) != len(columns):
        raise TableError(f"{source}: the header names a column twice ({', '.join(columns)})")
    numeric = tuple(name for i, name in enumerate(columns) if numeric_column(i))
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
    rest = [c for c in numeric if c not in {value, group}]
    if number is None and len(rest) == 1:  # "year,films": the value named, one number left
        number = rest[0]
    return TableLayout(
        columns=tuple(columns),
        has_header=has_header,
        delimiter=delimiter,
        rows=rows,
        numeric=numeric,
        value_column=value,
        number_column=number,
        group_column=group,
    )


def _layout(
    text: str,
    source: str,
    number_names: Sequence[str],
    header: bool | None = None,
    progress: Progress | None = None,
) -> tuple[TableLayout, Grid]:
    """The file's layout, and its data rows."""
    delimiter = _sniff(text)
    grid = read_grid(text, delimiter, source, progress)
    if not grid.rows:
        raise TableError(f"{source} is empty; expected a CSV with a value and a count column")
    below = grid.below_first()
    if header is None:
        header = _guess_header(
            grid.cells(0),
            grid.rows,
            lambda i: bool(np.all(below.widths > i) and below.numbers(i) is not None),
            number_names,
        )
    data = below if header else grid

    def numeric(i: int) -> bool:
        if not data.rows or np.any(data.widths <= i):
            return False
        blank = data.columns[i] == ""
        if not blank.any():
            return data.numbers(i) is not None
        return not blank.all() and as_numbers(data.columns[i][~blank]) is not None

    layout = _describe(
        grid.cells(0),
        width=len(grid.columns),
        has_header=header,
        delimiter=delimiter,
        rows=data.rows,
        numeric_column=numeric,
        number_names=number_names,
        source=source,
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
    text = decode(data, source=source)
    return _layout(text, source, names, header)[0]


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
    total: str = "ask",
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
    total : {"ask", "drop", "keep"}
        What to do with a row whose number is the sum of all the others (a
        spreadsheet's total row, :mod:`ldpcore.data.totals`): refuse the file with
        :class:`TotalRowError` (the default), drop the row, or keep it as a value. It is
        looked for before the totals are checked, so the message names the row rather
        than the number of users it doubled.

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
    text = decode(data, source=source)
    what = "count" if numbers == "counts" else "number"

    def chosen(layout: TableLayout) -> tuple[int, int, int | None]:
        return _choose_columns(
            layout,
            source=source,
            what=what,
            value_column=value_column,
            number_column=number_column,
            group_column=layout.group_column if group_column is None else (group_column or None),
        )

    layout, rows = _layout(text, source, names, header, progress)
    at = chosen(layout)
    labels, array, groups, repeated = _collect(
        rows, at, layout, source=source, numbers=numbers, sum_duplicates=sum_duplicates
    )
    total_done = None
    if sum_duplicates or not repeated:  # else the repeats are said first, below
        labels, array, groups, total_done = resolve_total(
            labels, array, groups, choice=total, source=source, frequencies=numbers == "estimates"
        )
    _check_table(
        labels,
        array,
        repeated=() if sum_duplicates else repeated,
        source=source,
        numbers=numbers,
        users=users,
    )
    return NumberTable(tuple(labels), array, None if at[2] is None else tuple(groups), total_done)


def _check_table(
    labels: Sequence[str],
    numbers_read: NDArray[np.float64],
    *,
    repeated: Sequence[str],
    source: str,
    numbers: str,
    users: bool,
) -> None:
    """What the whole table must be, once every row is fine (the messages of both readers).

    ``repeated``: the values on more than one row, when they are not to be summed.
    """
    what = "count" if numbers == "counts" else "number"
    if repeated:
        shown = ", ".join(repr(d) for d in repeated[:_LIST_AT_MOST])
        more = f" and {len(repeated) - _LIST_AT_MOST} more" if len(repeated) > _LIST_AT_MOST else ""
        raise DuplicateValuesError(
            f"{source}: {len(repeated)} value(s) appear on more than one row "
            f"({shown}{more}); sum their {what}s or remove the repeats",
            tuple(repeated),
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
    if numbers == "counts":
        if not numbers_read.any():
            raise TableError(f"{source}: every count is 0; there are no users")
        if users and numbers_read.sum() > bounds.N_USERS_MAX:
            raise TableError(
                f"{source}: the counts add up to {numbers_read.sum():,.0f} users; "
                f"at most {bounds.N_USERS_MAX:,} are supported"
            )


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
            f"choose the {what} column (on the command line, --count-column NAME)"
        )
    for name in (value_column, number_column, group_column):
        if name is not None and name not in columns:
            raise TableError(f"{source} has no column {name!r}; columns: {', '.join(columns)}")
    if value_column is None or value_column == number_column:
        raise TableError(
            f"{source}: choose a value column other than the {what} column (on the command "
            "line, --value-column NAME)"
        )
    group_at = None if group_column is None else columns.index(group_column)
    return columns.index(value_column), columns.index(number_column), group_at


def _collect(
    data: Grid,
    at: tuple[int, int, int | None],
    layout: TableLayout,
    *,
    source: str,
    numbers: str,
    sum_duplicates: bool,
) -> tuple[list[str], NDArray[np.float64], list[str], tuple[str, ...]]:
    """Labels, numbers, groups and the repeated values (in the order they repeat).

    Every check runs on whole columns; the first row that fails any of them is then
    checked alone, in the order a person reads a row (its width, its value, its number,
    its group), so the message names that row's line and its first problem.
    """
    import pandas as pd  # noqa: PLC0415

    at_value, at_number, at_group = at
    needed = max(at_value, at_number, -1 if at_group is None else at_group)
    labels, cells = data.columns[at_value], data.columns[at_number]
    codes, unique = pd.factorize(labels)
    first_row = np.full(unique.size, data.rows)
    np.minimum.at(first_row, codes, np.arange(data.rows))  # each value's first row
    groups = np.full(data.rows, "", dtype=object)
    if at_group is not None:
        groups = np.where(data.columns[at_group] == "", "(no group)", data.columns[at_group])
    values = data.numbers(at_number)
    if values is None:  # some cell is not a number: find which, cell by cell
        values = np.array([float(c) if _is_number(c) else np.nan for c in cells])
        values[cells == ""] = np.nan
    bad = (data.widths <= needed) | (labels == "") | ~np.isfinite(values)
    if numbers == "counts":
        with np.errstate(invalid="ignore"):
            bad |= (values < 0) | (values != np.round(values))
    if sum_duplicates and at_group is not None:
        bad |= groups != groups[first_row[codes]]
    if bad.any():
        row = int(np.argmax(bad))
        _say_what_is_wrong(
            data,
            row,
            at,
            layout,
            group_before=groups[first_row[codes[row]]],
            source=source,
            numbers=numbers,
        )
    first = np.arange(data.rows) == first_row[codes]
    repeated = tuple(unique[pd.unique(codes[~first])].tolist())
    if repeated and not sum_duplicates:
        return [], np.zeros(0), [], repeated
    # In file order, as a person adds them (np.add.at is unbuffered and in order).
    totals = np.zeros(unique.size)
    np.add.at(totals, codes, values)
    return unique.tolist(), totals, groups[first].tolist(), repeated


def _say_what_is_wrong(
    data: Grid,
    row: int,
    at: tuple[int, int, int | None],
    layout: TableLayout,
    *,
    group_before: str,
    source: str,
    numbers: str,
) -> None:
    """Raise the message for a row that fails a check: its first problem, with its line."""
    at_value, at_number, at_group = at
    line, cells = int(data.lines[row]), data.cells(row)
    if len(cells) <= max(at_value, at_number, -1 if at_group is None else at_group):
        raise TableError(
            f"{source}, line {line}: expected {len(layout.columns)} columns, got {len(cells)}"
        )
    label = cells[at_value]
    if not label:
        raise TableError(
            f"{source}, line {line}: the value column ({layout.columns[at_value]}) is blank"
        )
    _number(cells[at_number], label=label, line=line, source=source, kind=numbers)
    group = (cells[at_group] or "(no group)") if at_group is not None else ""
    raise TableError(
        f"{source}, line {line}: value {label!r} is in group {group!r} here "
        f"and {group_before!r} earlier; a value has one group"
    )


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
