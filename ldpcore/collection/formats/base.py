"""What a report file of one protocol family looks like, both ways, and in words.

Each family's module defines a :class:`ReportFormat`: the file's columns, the reports
as a table (text for CSV, so that every value round-trips), the reports from a table
with every column and range checked (the messages name the file and what to change),
and one report in words for the Learn walkthrough. :mod:`ldpcore.collection.formats`
finds a protocol's by its class.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ReportFormat:
    """One family's report format. Every function takes the protocol first.

    Attributes
    ----------
    columns : callable
        ``(protocol) -> tuple of str``: the column names of its report files.
    to_frame : callable
        ``(protocol, reports, *, text) -> DataFrame``: a table of ``reports`` (``text``:
        for CSV).
    from_frame : callable
        ``(protocol, frame, *, source)``: reports from a table, every column and range
        checked; :class:`~ldpcore.errors.InputError` naming ``source`` otherwise.
    describe : callable
        ``(protocol, reports, index) -> (str, reports)``: one report in words, and that
        report alone.
    """

    columns: Callable[..., tuple[str, ...]]
    to_frame: Callable[..., Any]
    from_frame: Callable[..., Any]
    describe: Callable[..., tuple[str, Any]]


__all__ = ["ReportFormat"]
