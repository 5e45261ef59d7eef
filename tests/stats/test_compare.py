"""Edge cases of the paired comparison that the decision tests do not reach."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from ldpcore.stats.compare import compare


def test_a_ratio_without_spread_whose_resamples_vanish_is_unbounded_quietly() -> None:
    # Two trials, one of them exact for both methods (a whole-domain range's answer can
    # be): the ratio has no spread, and a resample of the exact trial alone has no ratio.
    errors = np.array([[0.0, 1e-6], [0.0, 2e-6]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (found,) = compare(errors, ["Base", "Norm"], reference="Base")
    assert found.ratio == pytest.approx(2.0)
    assert found.low == 0.0 and math.isinf(found.high) and not (found.better or found.worse)
