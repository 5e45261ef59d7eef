"""Reading tables people bring: histograms and collected LDP output as CSV or TSV.

Everything a person can get wrong in a file ends in :class:`TableError` (a
``ValueError``) whose message names the line or column and says what to change.
Only the ``csv`` module and pandas' C parser touch the text: never ``eval``, never
pickle.

Two readers, one answer. A large, plain file (no quotes; every row as wide as the
first) is read column by column by pandas' C parser, and its cells are converted by
numpy with ``float``'s own rules: a million rows in about a second, where the row-by-row
``csv`` reader took six (issue 37). Anything else, and any file in which the fast
reader meets something wrong (a blank, a bad number, a repeat not to be summed), is read
again by the row-by-row reader, which alone writes the messages, so every message says
the same as before, with its line number.

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
#: Files at least this large try the columnar reader first (below it, the row reader
#: takes milliseconds and pandas' import would cost more than it saves).
_COLUMNAR_FROM_CHARACTERS = 1 << 16
#: The columnar reader parses this many characters at a time (whole lines), and says so.
_COLUMNAR_CHUNK_CHARACTERS = 1 << 18


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
    if header is None:
        header = _guess_header(
            rows[0][1],
            len(rows),
            lambda i: all(len(cells) > i and _is_number(cells[i]) for _, cells in rows[1:]),
            number_names,
        )
    has_header = header
    data = rows[1:] if has_header else rows

    def numeric(i: int) -> bool:
        return bool(
            data
            and all(len(cells) > i for _, cells in data)
            and all(_is_number(cells[i]) for _, cells in data if cells[i])
            and any(cells[i] for _, cells in data)
        )

    width = max(len(cells) for _, cells in rows)
    layout = _describe(
        rows[0][1],
        width=width,
        has_header=has_header,
        delimiter=delimiter,
        rows=len(data),
        numeric_column=numeric,
        number_names=number_names,
        source=source,
    )
    return layout, data


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


# --- the columnar reader ---------------------------------------------------------------

Cells = NDArray[np.object_]


@dataclass(frozen=True)
class _Columns:
    """A plain file read column by column: the data rows' stripped cells, per column."""

    layout: TableLayout
    columns: list[Cells]
    #: Columns without a blank cell that ``float`` reads throughout, converted once.
    numbers: dict[int, NDArray[np.float64]]


def _plain_columns(text: str, delimiter: str, progress: Progress | None) -> list[Cells] | None:
    """Every non-blank row's stripped cells, column by column; None unless the file is plain.

    Plain: no quote character (so a delimiter always separates cells and a newline always
    ends a row, as the ``csv`` reader would read them), no byte-order mark, lines that
    end in LF or CR LF,
    at least two columns, and every row exactly as wide as the first (checked by
    counting the delimiters: pandas fills a short row with blanks where the row reader
    keeps it short).
    """
    # A byte-order mark inside the text: pandas drops one at the start of each chunk.
    if '"' in text or "\ufeff" in text or text.count("\r") != text.count("\r\n"):
        return None
    chunks: list[list[Cells]] = []
    start = 0
    while start < len(text):
        # Whole lines only: the chunk ends after a newline (or at the end).
        stop = text.find("\n", min(start + _COLUMNAR_CHUNK_CHARACTERS, len(text)) - 1)
        stop = len(text) if stop < 0 else stop + 1
        chunk = _plain_chunk(text[start:stop], delimiter)
        if chunk is None:
            return None
        if chunk and chunks and len(chunk) != len(chunks[0]):
            return None
        if chunk:
            chunks.append(chunk)
        if progress is not None:
            progress(stop, len(text))
        start = stop
    if not chunks:
        return None
    limit = csv.field_size_limit()
    strip = np.frompyfunc(str.strip, 1, 1)  # str's own rule, looped in C
    columns = []
    for i in range(len(chunks[0])):
        cells = np.concatenate([chunk[i] for chunk in chunks])
        if max(map(len, cells)) > limit:
            return None  # the row reader refuses such a cell, with its message
        columns.append(strip(cells))
    blank = np.logical_and.reduce([column == "" for column in columns])
    if blank.any():  # rows of blanks only (",,"): the row reader skips them
        columns = [column[~blank] for column in columns]
    return columns


def _plain_chunk(piece: str, delimiter: str) -> list[Cells] | None:
    """The raw cells of whole lines, per column; ``[]`` for blank lines; None if not plain."""
    import pandas as pd  # noqa: PLC0415 (only large files need it)

    if not piece.strip():
        return []
    try:
        frame = pd.read_csv(
            io.StringIO(piece),
            sep=delimiter,
            header=None,
            dtype=object,
            na_filter=False,
            quoting=csv.QUOTE_NONE,
            skip_blank_lines=True,
            engine="c",
        )
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError):
        return None
    width = frame.shape[1]
    if width < 2 or piece.count(delimiter) != (width - 1) * len(frame):
        return None
    return [frame[i].to_numpy(dtype=object) for i in range(width)]


def _as_numbers(cells: Cells) -> NDArray[np.float64] | None:
    """The cells as numbers if ``float`` reads every one (numpy converts with its rules)."""
    try:
        return cells.astype(np.float64)
    except (ValueError, TypeError):
        return None


def _columnar(
    text: str,
    source: str,
    number_names: Sequence[str],
    header: bool | None,
    progress: Progress | None,
) -> _Columns | None:
    """:func:`_layout` for a plain file, by the columnar reader; None: use the row reader."""
    if len(text) < _COLUMNAR_FROM_CHARACTERS:
        return None
    delimiter = _sniff(text)
    cells = _plain_columns(text, delimiter, progress)
    if cells is None or not cells[0].size:
        return None
    first = [str(column[0]) for column in cells]
    has_header = (
        _guess_header(
            first, cells[0].size, lambda i: _as_numbers(cells[i][1:]) is not None, number_names
        )
        if header is None
        else header
    )
    data = [column[1:] for column in cells] if has_header else cells

    converted: dict[int, NDArray[np.float64]] = {}

    def numeric(i: int) -> bool:
        blank = data[i] == ""
        if blank.all():
            return False
        values = _as_numbers(data[i][~blank])
        if values is not None and not blank.any():
            converted[i] = values
        return values is not None

    layout = _describe(
        first,
        width=len(cells),
        has_header=has_header,
        delimiter=delimiter,
        rows=data[0].size,
        numeric_column=numeric,
        number_names=number_names,
        source=source,
    )
    return _Columns(layout, data, converted)


def _finite_numbers(
    values: NDArray[np.float64] | None, *, whole: bool
) -> NDArray[np.float64] | None:
    """The numbers if every one is finite (and whole and ≥ 0 if asked), else None."""
    if values is None:
        return None
    fine = np.all(np.isfinite(values))
    if whole:
        fine = fine and np.all(values >= 0) and np.all(values == np.round(values))
    return values if fine else None


def _collect_columns(
    data: _Columns,
    at: tuple[int, int, int | None],
    *,
    numbers: str,
    sum_duplicates: bool,
) -> tuple[list[str], NDArray[np.float64], list[str]] | None:
    """:func:`_collect` for the columnar reader; None wherever the row reader has a message."""
    import pandas as pd  # noqa: PLC0415

    at_value, at_number, at_group = at
    labels = data.columns[at_value]
    # Only a column without blanks was converted: a blank count has its own message.
    values = _finite_numbers(data.numbers.get(at_number), whole=numbers == "counts")
    if values is None or (labels == "").any():
        return None
    codes, unique = pd.factorize(labels)
    groups: list[str] = []
    if at_group is not None:
        group_cells = np.where(data.columns[at_group] == "", "(no group)", data.columns[at_group])
        first_row = np.full(unique.size, -1)
        first_row[codes[::-1]] = np.arange(codes.size)[::-1]  # each value's first row
        chosen = group_cells[first_row]
        if np.any(chosen[codes] != group_cells):
            return None  # a value in two groups: said by the row reader
        groups = chosen.tolist()
    if unique.size == codes.size:
        return unique.tolist(), values, groups
    if not sum_duplicates:
        return None  # the repeats are listed by the row reader
    # In file order, as the row reader adds them (np.add.at is unbuffered and in order).
    totals = np.zeros(unique.size)
    np.add.at(totals, codes, values)
    return unique.tolist(), totals, groups


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
    columnar = _columnar(text, source, names, header, None)
    return columnar.layout if columnar is not None else _layout(text, source, names, header)[0]


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

    columnar = _columnar(text, source, names, header, progress)
    collected = None
    if columnar is not None:
        at = chosen(columnar.layout)
        collected = _collect_columns(columnar, at, numbers=numbers, sum_duplicates=sum_duplicates)
    if collected is not None:
        labels, array, groups = collected
        at_group = at[2]
    else:  # the row reader: the only one that writes messages about rows
        layout, rows = _layout(text, source, names, header, progress)
        at = chosen(layout)
        at_group = at[2]
        labels, raw, groups, repeated = _collect(
            rows, at, layout, source=source, numbers=numbers, sum_duplicates=sum_duplicates
        )
        if repeated and not sum_duplicates:
            shown = ", ".join(repr(d) for d in repeated[:_LIST_AT_MOST])
            more = (
                f" and {len(repeated) - _LIST_AT_MOST} more"
                if len(repeated) > _LIST_AT_MOST
                else ""
            )
            raise DuplicateValuesError(
                f"{source}: {len(repeated)} value(s) appear on more than one row "
                f"({shown}{more}); sum their {what}s or remove the repeats",
                repeated,
            )
        array = np.array(raw, dtype=np.float64)
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
        if not array.any():
            raise TableError(f"{source}: every count is 0; there are no users")
        if users and array.sum() > bounds.N_USERS_MAX:
            raise TableError(
                f"{source}: the counts add up to {array.sum():,.0f} users; "
                f"at most {bounds.N_USERS_MAX:,} are supported"
            )
    return NumberTable(tuple(labels), array, None if at_group is None else tuple(groups))


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
