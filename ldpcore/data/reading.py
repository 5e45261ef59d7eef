"""How a histogram file was read: the choices a page offers, as the command line repeats them.

A page lets a person choose a file's columns, whether its first row names them, whether
repeated values are summed and whether the values are put in numeric order; the command
a page offers must read the file the same way, or it computes other numbers. Those
choices are one frozen value, :class:`Reading`, kept with the data read
(:attr:`ldpcore.data.datasets.Dataset.reading`) and written back as flags
(:meth:`Reading.flags`). What is done with a total row is the separate ``total``
(:mod:`ldpcore.data.totals`), as it is asked of every file kind.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The command-line flag of each choice, in the order they are written.
FLAGS = {
    "value_column": "--value-column",
    "count_column": "--count-column",
    "group_column": "--group-column",
}
#: What ``--group-column`` is given to say that the file has no group column.
NO_GROUP = "none"


@dataclass(frozen=True)
class Reading:
    """The choices that read a histogram file; None (or False) leaves each to the guess.

    Attributes
    ----------
    value_column, count_column : str or None
        The columns of the values and of their counts.
    group_column : str or None
        The column of each value's group; ``""`` for none, None to guess.
    header : bool or None
        Whether the first row names the columns (None: guessed).
    sum_duplicates : bool
        Whether a value listed twice has its counts summed (else it is refused).
    numeric_order : bool
        Whether the values are put in the order of their numbers (ranges and quantiles
        read the order), rather than the file's.
    """

    value_column: str | None = None
    count_column: str | None = None
    group_column: str | None = None
    header: bool | None = None
    sum_duplicates: bool = False
    numeric_order: bool = False

    def flags(self) -> list[str]:
        """The command-line flags that read a file this way (none for the guesses).

        Examples
        --------
        >>> Reading(value_column="year", count_column="films", numeric_order=True).flags()
        ['--value-column', 'year', '--count-column', 'films', '--numeric-order']
        >>> Reading(group_column="", header=False).flags()
        ['--group-column', 'none', '--no-header']
        """
        parts: list[str] = []
        for field, flag in FLAGS.items():
            value = getattr(self, field)
            if value is not None:
                parts += [flag, value or NO_GROUP]
        if self.header is not None:
            parts.append("--header" if self.header else "--no-header")
        if self.sum_duplicates:
            parts.append("--sum-duplicates")
        if self.numeric_order:
            parts.append("--numeric-order")
        return parts


__all__ = ["FLAGS", "NO_GROUP", "Reading"]
