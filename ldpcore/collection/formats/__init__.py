"""Report files per protocol: their columns, both ways, and one report in words.

* :mod:`~ldpcore.collection.formats.base` — :class:`ReportFormat`, what a family declares;
* :mod:`~ldpcore.collection.formats.checks` — the column checks they share;
* one module per family: ``value`` (a value in ``[0, d)``: GRR and any protocol mixing
  in :class:`~ldpcore.protocols.base.ValueReports`), ``olh``, ``unary``,
  ``subset_selection``, ``hadamard``, ``she``, ``dbitflip``, ``trees`` (a level, then
  that level's oracle's columns), ``positions`` (the Square Wave's), ``haar`` (a level,
  a Hadamard row and a bit).

A protocol's format is found by its class, the nearest registered ancestor first (L-GRR
reads as GRR, THE and the L-UE chains as unary encoding). A new protocol registers its
own here: its reports are its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from ldpcore.collection.formats import (
    dbitflip,
    haar,
    hadamard,
    olh,
    positions,
    she,
    subset_selection,
    trees,
    unary,
    value,
)
from ldpcore.collection.formats.base import ReportFormat
from ldpcore.errors import InputError
from ldpcore.protocols import (
    OLH,
    SHE,
    DBitFlipPM,
    FrequencyOracle,
    HaarHRR,
    HadamardResponse,
    Hierarchy,
    SquareWave,
    SubsetSelection,
    UnaryEncoding,
    ValueReports,
    entry_for,
)

#: Protocol class → its family's report format. Keyed by class object (mixins and
#: abstract families included); read-only.
REPORT_FORMATS: Final[Mapping[type, ReportFormat]] = MappingProxyType(
    {
        ValueReports: value.FORMAT,
        OLH: olh.FORMAT,
        UnaryEncoding: unary.FORMAT,
        SubsetSelection: subset_selection.FORMAT,
        HadamardResponse: hadamard.FORMAT,
        SHE: she.FORMAT,
        DBitFlipPM: dbitflip.FORMAT,
        SquareWave: positions.FORMAT,
        HaarHRR: haar.FORMAT,
        # A hierarchy's rows: a level, then that level's oracle's own columns, read by
        # the lookup below (defined after this table, so called through a lambda).
        Hierarchy: trees.tree_format(lambda oracle: report_format(oracle)),  # noqa: PLW0108
    }
)


def report_format(protocol: FrequencyOracle | type[FrequencyOracle]) -> ReportFormat:
    """The report format registered for ``protocol`` (an instance or a class)."""
    found = entry_for(REPORT_FORMATS, protocol)
    if found is None:
        name = protocol.name if hasattr(protocol, "name") else str(protocol)
        raise InputError(f"{name} reports cannot be written to a file yet: no format is registered")
    return found


__all__ = ["REPORT_FORMATS", "ReportFormat", "report_format"]
