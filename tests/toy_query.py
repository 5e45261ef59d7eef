"""A toy query kind in one file: the totals of consecutive blocks of values ("blocks").

It exists to prove the recipe in ARCHITECTURE.md ("add a query kind"): one class with
its parser, canonical text, builder and words; tests/house/test_extending.py registers it in
a temporary registry and runs a simulation and the command line on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ldpcore._validation import check_int
from ldpcore.errors import InputError
from ldpcore.queries.query import Query
from ldpcore.queries.specs import QueryData, QuerySpec, query_help
from ldpcore.specs import parse_number


@dataclass(frozen=True)
class BlocksQuery(QuerySpec):
    """The total frequency of each block of ``size`` consecutive values."""

    size: int
    kind: ClassVar[str] = "blocks"
    usage: ClassVar[str] = "blocks:size=B"

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", check_int(self.size, name="size", minimum=1))

    @classmethod
    def from_options(cls, options: Mapping[str, str], text: str) -> BlocksQuery:
        if set(options) != {"size"}:
            raise InputError(query_help(text))
        return cls(check_int(parse_number(options["size"], "size"), name="size", minimum=1))

    def __str__(self) -> str:
        return f"blocks:size={self.size}"

    def build(self, data: QueryData, *, seed: int = 0) -> Query:
        values = np.arange(data.domain_size)
        starts = range(0, data.domain_size, self.size)
        return Query(
            self.kind,
            str(self),
            tuple(values[a : a + self.size] for a in starts),
            tuple(f"block {i + 1}" for i in range(len(starts))),
            "ranges",
        )

    def in_words(self) -> str:
        return f"blocks of {self.size} values"
