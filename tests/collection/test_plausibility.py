"""What a collected file that the protocol could not have made is told, for every
protocol: the notes name their numbers as the rest of the tool does, never in
e-notation (a count total once read "2.22996e+07")."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ldpcore.collection.estimates import plausibility_notes
from ldpcore.protocols import get_protocol, protocol_names

E_NOTATION = re.compile(r"\de[+-]?\d")
N = 22_299_600
D = 16


@pytest.mark.parametrize("name", protocol_names(D))
def test_an_implausible_collection_is_told_in_numbers_without_e_notation(name: str) -> None:
    oracle = get_protocol(name, epsilon=1.0, domain_size=D)
    histogram = np.random.default_rng(1).multinomial(N, np.full(D, 1 / D)).astype(float)
    # Counts that are a histogram of true values, and those counts read as estimates
    # (frequencies in the millions): both far from anything the protocol makes.
    notes = plausibility_notes(oracle, 1_000, counts=histogram, estimates=histogram)
    assert notes, name
    for note in notes:
        assert not E_NOTATION.search(note), note
