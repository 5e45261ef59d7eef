"""The one place that says which parameter values ldpcore accepts.

Sliders, the command line, validation and the tests all import these numbers,
so a limit changes in one place only.
"""

from __future__ import annotations

from typing import Final

#: Smallest accepted privacy budget. Below it every protocol's estimates are
#: pure noise at any realistic n, and e^ε − 1 underflows towards 0 in the formulas.
EPSILON_MIN: Final[float] = 1e-3
#: Largest accepted privacy budget. OLH's hash range g = round(e^ε + 1) must stay
#: below 2^32 for its 64-bit hash arithmetic; e^20 ≈ 4.9e8 leaves ample room.
EPSILON_MAX: Final[float] = 20.0

#: Domain sizes accepted by the core. d = 1 has nothing to estimate.
DOMAIN_SIZE_MIN: Final[int] = 2
DOMAIN_SIZE_MAX: Final[int] = 1_000_000

#: Number of users accepted by the core (int64 counts stay exact far beyond this).
N_USERS_MIN: Final[int] = 1
N_USERS_MAX: Final[int] = 10**12

#: Trials per experiment.
TRIALS_MIN: Final[int] = 1
TRIALS_MAX: Final[int] = 10_000

#: Rounds of one repeated collection (a report each): ten years of weekly reports, or
#: nearly three of daily ones; the rounds' support counts are kept, T × d of them.
ROUNDS_MIN: Final[int] = 1
ROUNDS_MAX: Final[int] = 1000
#: Rounds the exact figures take (ε after T reports, the average's variance): they cost
#: O(d) whatever T is, so an hourly collection over years is answered too.
EXACT_ROUNDS_MAX: Final[int] = 1_000_000

#: The per-user path materialises every report: keep it to sizes a laptop handles.
PER_USER_N_MAX: Final[int] = 50_000_000

#: Largest file read as a histogram or as collected LDP output (uploads and --input),
#: in bytes. 20 MiB holds a million ``value,count`` rows; the app's uploader uses
#: the same limit (``.streamlit/config.toml``, ``server.maxUploadSize``).
UPLOAD_BYTES_MAX: Final[int] = 20 * 2**20

#: The ε range the advice searches (the app's slider range).
EPSILON_RANGE: Final[tuple[float, float]] = (0.05, 10.0)
assert EPSILON_MIN <= EPSILON_RANGE[0] < EPSILON_RANGE[1] <= EPSILON_MAX

#: The n range :func:`ldpcore.advice.advise_users` searches.
USERS_RANGE: Final[tuple[int, int]] = (100, 10**9)

# The grids the app's sliders offer, inside the ranges above: a slider position is a value
# people can quote, and the largest ones are what a page can compute while a person waits.
# fmt: off
# One row per decade, so the spacing of the steps reads at a glance (one a line hides it).
#: ε steps: round, roughly log-spaced, across :data:`EPSILON_RANGE`.
EPSILON_STEPS: Final[tuple[float, ...]] = (
    0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9,
    1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0,
    10.0,
)
# fmt: on
assert (EPSILON_STEPS[0], EPSILON_STEPS[-1]) == EPSILON_RANGE
#: The most trials a slider offers (the command line takes up to :data:`TRIALS_MAX`):
#: 200 paired trials already put a method's MSE ratio within a few percent.
TRIALS_SLIDER_MAX: Final[int] = 200
#: The largest domain a slider offers (the command line takes up to
#: :data:`DOMAIN_SIZE_MAX`).
DOMAIN_SLIDER_MAX: Final[int] = 100_000
assert TRIALS_MIN < TRIALS_SLIDER_MAX <= TRIALS_MAX
assert DOMAIN_SIZE_MIN < DOMAIN_SLIDER_MAX <= DOMAIN_SIZE_MAX
