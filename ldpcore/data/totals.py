"""A spreadsheet's total row: found on every file read, and never taken for a value.

A histogram exported from a spreadsheet often ends (or starts) with a row that sums the
others. Read as a value it becomes the most frequent one, doubles the number of users
and moves every answer computed from the file, silently. So every reader of a table
(:func:`ldpcore.data.tables.read_numbers`, under histograms, Choose ε's data, priors and
collected output alike) looks for such a row before any other check of the totals,
and asks what to do with it: drop it, or keep it because it really is a value (a value
held by exactly half of the users is one). The question is the same on the pages and
on the command line (``--drop-total`` / ``--keep-total``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from ldpcore.errors import InputError, TableError
from ldpcore.formats import format_as_written

#: What to do with a total row: refuse the file until told (the default), drop the row,
#: or keep it as a value.
TOTAL_CHOICES = ("ask", "drop", "keep")
#: The command-line flag of each choice but the default.
TOTAL_FLAGS = {"drop": "--drop-total", "keep": "--keep-total"}
#: How close (relative) a row must be to the sum of the others to be taken for their
#: total: a spreadsheet's sum of the same numbers, in floating point.
_RELATIVE_TOLERANCE = 1e-9
#: Frequencies' total is about 1, a value of half the users 0.5: the line between.
_FREQUENCY_TOTAL_ABOVE = 0.75
#: How close (absolute) a row of frequencies must be to the others' sum: a spreadsheet
#: shows a total of estimates rounded (0.8777, or 0.88), while the rows it sums keep more
#: digits. Above 3/4, a row this close to the sum of the others is no value: real values
#: that large leave the others about 1 − 0.75 between them.
_FREQUENCY_PRINTED = 0.005


class TotalRowError(TableError):
    """A row holds the sum of all the others; the caller asks to drop or keep it.

    Attributes
    ----------
    label : str
        The row's value.
    number : float
        Its number (the sum of the others).
    """

    def __init__(self, message: str, label: str, number: float) -> None:
        super().__init__(message)
        self.label = label
        self.number = number


def check_total_choice(choice: object) -> str:
    """``choice`` if it is one of :data:`TOTAL_CHOICES`, else an :class:`InputError`."""
    if choice not in TOTAL_CHOICES:
        raise InputError(f"total must be one of {', '.join(TOTAL_CHOICES)}; got {choice!r}")
    return str(choice)


def total_row(numbers: NDArray[np.float64], *, frequencies: bool = False) -> int | None:
    """The index of a row whose number is the sum of all the others, if one is.

    At least two of the other rows must be above 0: a total of one value is that value,
    so a row equal to a single other (support counts 1, 0, 0, 1 from a class of one) is
    two equal values, not a total. With ``frequencies`` (Base estimates, which sum to
    about 1) the row must also be above 3/4: a total of frequencies is about 1, while a
    value that holds half of the users has 0.5, the sum of the others, too; and it may
    differ from the others' sum by the rounding a spreadsheet prints a total with (0.005).

    Examples
    --------
    >>> total_row(np.array([3.0, 5.0, 8.0])), total_row(np.array([3.0, 5.0, 9.0]))
    (2, None)
    >>> total_row(np.array([8.0, 3.0, 5.0])), total_row(np.array([1.0, 0.0, 0.0, 1.0]))
    (0, None)
    >>> total_row(np.array([0.8777, 0.31234, -0.0121, 0.57749]), frequencies=True)
    0
    """
    if numbers.size < 3:
        return None
    top = int(np.argmax(numbers))
    if np.count_nonzero(numbers > 0) < 3:  # the row and at least two others
        return None
    rest = float(numbers.sum() - numbers[top])
    slack = _RELATIVE_TOLERANCE * rest
    if frequencies:
        slack = max(slack, _FREQUENCY_PRINTED)
    close = abs(float(numbers[top]) - rest) <= slack
    about_one = not frequencies or numbers[top] > _FREQUENCY_TOTAL_ABOVE
    return top if rest > 0 and close and about_one else None


def total_message(source: str, label: str, number: float) -> str:
    """What a refused total row is told with: what it looks like, and both ways on."""
    held = format_as_written(number)
    return (
        f"{source}: the row {label!r} holds {held}, the sum of all the other rows: "
        "it looks like a total, not a value. Drop it (Drop the total row, or "
        f"{TOTAL_FLAGS['drop']}), or keep it if it really is a value "
        f"(Keep it as a value, or {TOTAL_FLAGS['keep']})"
    )


def resolve_total(
    labels: Sequence[str],
    numbers: NDArray[np.float64],
    groups: Sequence[str],
    *,
    choice: str,
    source: str,
    frequencies: bool = False,
) -> tuple[list[str], NDArray[np.float64], list[str], str | None]:
    """The rows without their total row when ``choice`` is ``"drop"``, and what was done.

    The last item is ``"drop"`` or ``"keep"`` when a total row was found and dropped or
    kept, None when there was none (so a command that reproduces the read names the
    choice only where it mattered). ``frequencies`` as for :func:`total_row`.

    Raises
    ------
    TotalRowError
        When a total row is found and ``choice`` is ``"ask"``.
    """
    check_total_choice(choice)
    at = total_row(numbers, frequencies=frequencies)
    if at is None:
        return list(labels), numbers, list(groups), None
    if choice == "keep":
        return list(labels), numbers, list(groups), "keep"
    if choice == "ask":
        label, number = str(labels[at]), float(numbers[at])
        raise TotalRowError(total_message(source, label, number), label, number)
    keep = np.arange(numbers.size) != at
    kept_groups = [g for i, g in enumerate(groups) if i != at] if len(groups) else []
    return [s for i, s in enumerate(labels) if i != at], numbers[keep], kept_groups, "drop"


__all__ = [
    "TOTAL_CHOICES",
    "TOTAL_FLAGS",
    "TotalRowError",
    "check_total_choice",
    "resolve_total",
    "total_message",
    "total_row",
]
