"""Report files of hierarchies (TreeOUE, TreeOLH): their columns, both ways, in words.

A row is one user: the ``level`` they reported, then that level's report in the columns
of the level's oracle (OUE's packed bits, over the level's nodes; OLH's seeds and
bucket). :mod:`ldpcore.collection.formats` registers these functions for the protocol.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ldpcore.collection.formats.base import ReportFormat
from ldpcore.protocols.base import FrequencyOracle
from ldpcore.protocols.hierarchy import Hierarchy, TreeReports

if TYPE_CHECKING:
    import pandas as pd


def tree_format(level_format: Callable[[FrequencyOracle], ReportFormat]) -> ReportFormat:
    """The format of hierarchies whose levels' reports are read by ``level_format``.

    ``level_format`` finds a level oracle's own format (the registry's lookup).
    """

    def inner(protocol: Hierarchy) -> ReportFormat:
        return level_format(protocol.levels[0])

    return ReportFormat(
        columns=lambda protocol: _columns(protocol, inner(protocol)),
        to_frame=lambda protocol, reports, *, text: _to_frame(
            protocol, reports, inner(protocol), text=text
        ),
        from_frame=lambda protocol, frame, *, source: _from_frame(
            protocol, frame, inner(protocol), source=source
        ),
        describe=lambda protocol, reports, index: _describe(
            protocol, reports, inner(protocol), index
        ),
    )


def _columns(protocol: Hierarchy, inner: ReportFormat) -> tuple[str, ...]:
    """``level`` (1 to h), then the level oracle's columns."""
    return ("level", *inner.columns(protocol.levels[0]))


def _to_frame(
    protocol: Hierarchy, reports: TreeReports, inner: ReportFormat, *, text: bool
) -> pd.DataFrame:
    """One row per user, in the users' order."""
    import pandas as pd  # noqa: PLC0415

    levels = np.asarray(reports.levels, dtype=np.int64)
    pieces = []
    for level, (oracle, part) in enumerate(zip(protocol.levels, reports.reports, strict=True), 1):
        frame = inner.to_frame(oracle, part, text=text)
        frame.insert(0, "level", level)
        frame.index = np.flatnonzero(levels == level)
        pieces.append(frame)
    return pd.concat(pieces).sort_index().reset_index(drop=True)


def _from_frame(
    protocol: Hierarchy, frame: pd.DataFrame, inner: ReportFormat, *, source: str
) -> TreeReports:
    """Each row's level in ``[1, h]``, then each level's rows read by its oracle's format."""
    from ldpcore.collection.formats.checks import in_range, whole_numbers  # noqa: PLC0415

    levels = whole_numbers(frame["level"], source, "level", np.int64)
    in_range(levels - 1, protocol.height, source, "level (1 to the tree's height)")
    parts = tuple(
        inner.from_frame(oracle, frame.loc[levels == level].reset_index(drop=True), source=source)
        for level, oracle in enumerate(protocol.levels, start=1)
    )
    return TreeReports(levels, parts)


def _describe(
    protocol: Hierarchy, reports: TreeReports, inner: ReportFormat, index: int
) -> tuple[str, Any]:
    """The level, and that level's report in its oracle's words."""
    levels = np.asarray(reports.levels, dtype=np.int64)
    level = int(levels[index])
    within = int(np.count_nonzero(levels[:index] == level))
    oracle = protocol.levels[level - 1]
    words, single = inner.describe(oracle, reports.reports[level - 1], within)
    parts = tuple(
        single if at == level else oracle_level.randomize(np.zeros(0, dtype=np.int64), 0)
        for at, oracle_level in enumerate(protocol.levels, start=1)
    )
    nodes = oracle.domain_size
    return f"level {level} of {protocol.height} ({nodes} nodes): {words}", TreeReports(
        np.array([level]), parts
    )
