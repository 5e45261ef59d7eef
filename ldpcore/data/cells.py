"""A CSV's cells, read by pandas' C parser, with each row's width and line.

pandas reads quotes as Python's ``csv`` module does (a quote opens a cell only at its
start; ``""`` inside a quoted cell is one quote), a million rows in about a second where
the ``csv`` module's row-by-row reader took six. What pandas does not keep, a
row's width (it fills a short row with blank cells) and the line a row ends on (a quoted
cell may span lines), is counted here, so a message can say "line 7: expected 3 columns,
got 2" as the row-by-row reader did. ``devtools/csv_reference.py`` keeps that reader as the
slow path the tests compare with. What the cells mean is :mod:`ldpcore.data.tables`'.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from ldpcore.errors import TableError

#: Told ``(done, total)`` as a long read goes on (the CLI's progress line).
Progress = Callable[[int, int], None]
Cells = NDArray[np.object_]

#: Rows pandas parses at a time; the progress callback is told after each chunk.
_CHUNK_ROWS = 1 << 16
#: pandas' C parser when a row has more cells than the columns it was given.
_WIDER_ROW = re.compile(r"Expected \d+ fields in line \d+, saw (\d+)")
#: pandas' C parser when a quote opens a cell and the file ends before it closes.
_OPEN_QUOTE = re.compile(r"EOF inside string starting at row (\d+)")


@dataclass(frozen=True)
class Grid:
    """A file's non-blank rows, column by column.

    Attributes
    ----------
    columns : list of object ndarray
        Each column's cells, stripped; ``""`` where a cell is blank or the row ends
        before it (``widths`` tells which).
    widths : ndarray of int64
        How many cells each row has.
    lines : ndarray of int64
        The line each row ends on (a quoted cell may span lines), for messages.
    """

    columns: list[Cells]
    widths: NDArray[np.int64]
    lines: NDArray[np.int64]
    #: Columns converted by :meth:`numbers` (a million cells take 0.1 s: once is enough).
    converted: dict[int, NDArray[np.float64] | None] = field(default_factory=dict)

    def numbers(self, i: int) -> NDArray[np.float64] | None:
        """Column ``i`` as numbers, if ``float`` reads every cell (a blank it does not)."""
        if i not in self.converted:
            self.converted[i] = as_numbers(self.columns[i])
        return self.converted[i]

    @property
    def rows(self) -> int:
        """How many rows."""
        return int(self.widths.size)

    def below_first(self) -> Grid:
        """The rows after the first (the data, when the first row is a header)."""
        return Grid([c[1:] for c in self.columns], self.widths[1:], self.lines[1:])

    def cells(self, row: int) -> list[str]:
        """One row's cells, as many as it has."""
        return [str(c[row]) for c in self.columns[: int(self.widths[row])]]


def _parse(
    text: str,
    delimiter: str,
    width: int,
    progress: Callable[[int], None] | None = None,
    rows: int | None = None,
) -> list[Cells]:
    """Every row's raw cells (blank lines too, as rows of ``""``), ``width`` columns wide.

    pandas' C parser refuses a row wider than ``width`` (its message says how wide, and
    the caller reads again) except the first, which it cuts short without a word; so the
    text is read after a first line of ``width`` blank cells, which is then dropped.
    ``rows``: read only so many rows.
    """
    import pandas as pd  # noqa: PLC0415 (a page that never reads a file never pays for it)

    reader = pd.read_csv(
        io.StringIO(delimiter * (width - 1) + "\n" + text),
        sep=delimiter,
        header=None,
        names=range(width),
        index_col=False,
        dtype=object,
        na_filter=False,  # "", "NA" and "nan" are cells like any other; the checks say what
        skip_blank_lines=False,  # one row per line, so a row's line can be counted
        engine="c",
        chunksize=_CHUNK_ROWS,
        nrows=None if rows is None else rows + 1,
    )
    pieces = []
    done = -1
    with reader:
        for frame in reader:
            pieces.append([frame[i].to_numpy(dtype=object) for i in range(width)])
            done += len(frame)
            if progress is not None:
                progress(done)
    return [np.concatenate([piece[i] for piece in pieces])[1:] for i in range(width)]


def _count(cells: Cells, piece: str) -> NDArray[np.int64]:
    return np.fromiter((cell.count(piece) for cell in cells), np.int64, cells.size)


def read_grid(text: str, delimiter: str, source: str, progress: Progress | None) -> Grid:
    r"""The cells of every non-blank row, by pandas' C parser, with each row's width and line.

    pandas reads quotes as Python's ``csv`` module does (a quote opens a cell only at its
    start; ``""`` inside a quoted cell is one quote) but fills a short row with blank
    cells. A row's width is therefore counted: its delimiters in the text, less those
    inside its cells' values. Line ends are made ``\n`` first, so a file saved with old
    Mac line ends (``\r``) reads, and lines are counted as an editor counts them.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    # Counted in the UTF-8 bytes: an ASCII byte is never part of another character.
    encoded = np.frombuffer(text.encode(), np.uint8)
    line_ends = np.flatnonzero(encoded == ord("\n"))
    if not text.endswith("\n"):
        line_ends = np.append(line_ends, encoded.size)
    lines = line_ends.size
    # at[k]: the delimiters in the first k lines.
    at = np.concatenate(
        [[0], np.searchsorted(np.flatnonzero(encoded == ord(delimiter)), line_ends)]
    )
    quoted = '"' in text

    def told(rows: int) -> None:
        # Without quotes a row is a line; with them, about one (the last call is exact).
        if progress is not None and 0 < rows < lines:
            progress(len(text) * rows // lines, len(text))

    width = int(np.diff(at).max(initial=0)) + 1
    while True:
        try:
            raw = _parse(text, delimiter, width, told)
            break
        except ValueError as exc:  # pandas' ParserError and EmptyDataError are ValueErrors
            message = str(exc)
            wider = _WIDER_ROW.search(message)
            if wider is not None and int(wider.group(1)) > width:
                width = int(wider.group(1))  # a quoted cell spans lines: the row is wider
                continue
            opened = _OPEN_QUOTE.search(message)
            if opened is not None:
                line = _line_of_row(text, delimiter, width, int(opened.group(1)) - 1)
                raise TableError(
                    f'{source}, line {line}: a quote (") opens a cell that never closes; '
                    "close it, or remove it if it is part of the value"
                ) from None
            if "No columns to parse" in message:
                raise TableError(
                    f"{source} is empty; expected a CSV with a value and a count column"
                ) from None
            raise TableError(f"{source}: not a readable CSV ({message})") from None
    if progress is not None:
        progress(len(text), len(text))
    newlines = np.zeros(raw[0].size, np.int64)
    inner = np.zeros(raw[0].size, np.int64)  # delimiters inside cells' values
    if quoted and raw[0].size == lines:  # no cell spans lines: row i is line i
        # Only a quoted cell holds a delimiter, so only rows with a quote need counting.
        rows = np.unique(np.searchsorted(line_ends, np.flatnonzero(encoded == ord('"'))))
        for column in raw:
            inner[rows] += _count(column[rows], delimiter)
    elif quoted:
        for column in raw:
            newlines += _count(column, "\n")
            inner += _count(column, delimiter)
    ends = np.arange(1, raw[0].size + 1) + np.cumsum(newlines)
    widths = 1 + at[ends] - at[ends - newlines - 1] - inner
    strip = np.frompyfunc(str.strip, 1, 1)  # str's own rule, looped in C
    columns: list[Cells] = [strip(column) for column in raw]  # type: ignore[misc]
    filled = np.logical_or.reduce([column != "" for column in columns])
    widths = widths[filled]
    columns = columns[: int(widths.max(initial=1))]  # rows of blanks only are skipped
    return Grid([c[filled] for c in columns], widths, ends[filled])


def _line_of_row(text: str, delimiter: str, width: int, row: int) -> int:
    """The line a row starts on, ``row`` counted from 0 (the rows before it read)."""
    before = _parse(text, delimiter, width, rows=row) if row else []
    return row + 1 + sum(int(_count(cells, "\n").sum()) for cells in before)


def as_numbers(cells: Cells) -> NDArray[np.float64] | None:
    """The cells as numbers if ``float`` reads every one (numpy converts with its rules)."""
    try:
        return cells.astype(np.float64)
    except (ValueError, TypeError):
        return None
