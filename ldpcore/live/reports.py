"""A live poll's reports: the report space, the export file and the class's estimates.

Each report a browser sends is a row of the protocol's report file
(:mod:`ldpcore.collection.report_files`): ``value`` for GRR, ``seed_a, seed_b, bucket`` for OLH
(seeds as decimal text: JavaScript numbers cannot hold 64 bits) and ``bits`` (hex,
packed little-endian) for OUE. :func:`check_report` refuses anything outside that space,
so a stored report is exactly what an ``ldpcore aggregate`` of the exported file reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ldpcore.collection.report_files import frame_to_reports, report_columns, reports_to_frame
from ldpcore.errors import InputError
from ldpcore.live.browser import browser_form, report_rows_frame, runs_in_browser
from ldpcore.protocols import PROTOCOLS, FrequencyOracle, get_protocol

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from numpy.typing import NDArray

    from ldpcore.collection.estimates import Collected
    from ldpcore.live.poll import Poll


def live_protocols() -> tuple[str, ...]:
    """The protocols a browser runs, from the registry.

    Small reports, randomized in a few lines of JavaScript whose distribution the
    browser tests check against the exact channel (``runs_in_browser``).

    Examples
    --------
    >>> live_protocols()
    ('GRR', 'OLH', 'OUE')
    """
    return tuple(name for name, cls in PROTOCOLS.items() if runs_in_browser(cls))


#: Questions a teacher can start from (their options in order).
PRESETS: dict[str, tuple[str, ...]] = {
    "Which day of the week were you born?": (
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
    ),
    "How did you get here today?": ("Walk", "Bicycle", "Bus or train", "Car", "Other"),
    "Which season do you like best?": ("Spring", "Summer", "Autumn", "Winter"),
    "Have you ever cheated in an exam?": ("Yes", "No"),
}
#: The form's first question: five options, few enough for the fix to show at the
#: lesson's ε and enough for the noise to (``ldpcore.live.outlook.LESSON_EPSILON``).
LESSON_PRESET = "How did you get here today?"


def poll_protocol(name: str, epsilon: float, options: int) -> FrequencyOracle:
    """The protocol a poll's browsers run (``options`` values; OLH's default ``g``)."""
    return get_protocol(name, epsilon=epsilon, domain_size=options)


def browser_parameters(protocol: FrequencyOracle) -> dict[str, Any]:
    """What the browser's randomizer needs, computed here once (one source of truth).

    Each protocol the browser runs declares its own (:mod:`ldpcore.live.browser`).

    Examples
    --------
    >>> import math
    >>> round(browser_parameters(poll_protocol("GRR", math.log(3), 2))["p"], 12)
    0.75
    """
    _check_live(protocol)
    return browser_form(protocol).parameters(protocol)


def check_report(protocol: FrequencyOracle, report: Mapping[str, Any]) -> dict[str, Any]:
    """The report as its report-file row, or :class:`InputError` if outside the space.

    The fields are checked here; each protocol checks its values
    (:mod:`ldpcore.live.browser`).

    Examples
    --------
    >>> check_report(poll_protocol("GRR", 1.0, 7), {"value": 3})
    {'value': 3}
    >>> check_report(poll_protocol("GRR", 1.0, 7), {"value": 7})
    Traceback (most recent call last):
    ...
    ldpcore.errors.InputError: a GRR report is a value in [0, 7); got {'value': 7}
    """
    _check_live(protocol)
    name = protocol.name
    if not isinstance(report, Mapping):
        raise InputError(f"a {name} report is a mapping of its columns; got {report!r}")
    columns = report_columns(protocol)
    if set(report) != set(columns):
        raise InputError(
            f"a {name} report has the fields {', '.join(columns)}; got "
            f"{', '.join(map(str, report)) or 'none'}"
        )
    return browser_form(protocol).check_row(protocol, report)


def _check_live(protocol: FrequencyOracle) -> None:
    if not runs_in_browser(protocol):
        raise InputError(f"a browser runs {', '.join(live_protocols())}; got {protocol.name}")


def reports_frame(protocol: FrequencyOracle, rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """The reports as the protocol's report-file table (text form, as in CSV files)."""
    frame = report_rows_frame(protocol, rows)
    # Through the protocol's own reader and writer: the file is what aggregate reads.
    reports = frame_to_reports(protocol, frame, source="the poll's reports")
    return reports_to_frame(protocol, reports, text=True)


def export_reports(poll: Poll, rows: Sequence[Mapping[str, Any]], output: str | Path) -> int:
    """Write the poll's reports as a CSV report file (with its ``# ldpcore`` line).

    Returns the number of reports written. ``ldpcore aggregate --input FILE`` reads it
    with ``--protocol``, ``--epsilon`` and ``--domain-size`` as the first line records.
    """
    text = poll_export_text(poll, rows)
    path = Path(output)
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write --output {str(path)!r}: {exc.strerror}") from None
    return len(rows)


def export_text(protocol: FrequencyOracle, rows: Sequence[Mapping[str, Any]]) -> str:
    """The CSV report file's text: the parameter line, the header, one row per report."""
    from ldpcore.collection.report_files import csv_parameter_line  # noqa: PLC0415

    body = reports_frame(protocol, rows).to_csv(index=False, lineterminator="\n")
    return csv_parameter_line(protocol) + "\n" + body


def poll_export_text(poll: Poll, rows: Sequence[Mapping[str, Any]]) -> str:
    """A poll's report file: :func:`export_text` with the question and each option's text.

    They follow the parameter line as ``#`` lines, which every report reader skips: a
    report says ``value = 1``; the file says which option value 1 is.

    Examples
    --------
    >>> from ldpcore.live.poll import Poll
    >>> poll = Poll("ABCDEF", "Day?", ("Mon", "Tue"), "GRR", 1.0, 0.0, False)
    >>> print(poll_export_text(poll, [{"value": 1}]))  # doctest: +ELLIPSIS
    # ldpcore protocol=GRR ...
    # question: Day?
    # option 0: Mon
    # option 1: Tue
    value
    1
    <BLANKLINE>
    """
    protocol = poll_protocol(poll.protocol, poll.epsilon, len(poll.options))
    head, _, body = export_text(protocol, rows).partition("\n")
    notes = [f"# question: {poll.question}"]
    notes += [f"# option {i}: {option}" for i, option in enumerate(poll.options)]
    return "\n".join([head, *notes, body])


def class_support(poll: Poll, rows: Sequence[Mapping[str, Any]]) -> NDArray[np.int64]:
    """How many of the class's reports support each option (what the aggregator counts)."""
    import numpy as np  # noqa: PLC0415

    protocol = poll_protocol(poll.protocol, poll.epsilon, len(poll.options))
    reports = frame_to_reports(protocol, reports_frame(protocol, rows), source="the poll")
    return np.asarray(np.rint(protocol.aggregate(reports)), dtype=np.int64)


def class_collected(poll: Poll, rows: Sequence[Mapping[str, Any]]) -> Collected:
    """The class's reports as collected output: counts, n and the Base estimate (Eq. 2)."""
    from ldpcore.collection.estimates import Collected  # noqa: PLC0415

    protocol = poll_protocol(poll.protocol, poll.epsilon, len(poll.options))
    estimate = protocol.estimate(class_support(poll, rows), len(rows))
    return Collected(poll.options, protocol, len(rows), "reports", estimate)


def with_simulated_liars(
    poll: Poll, rows: Sequence[Mapping[str, Any]], *, target: int, liars: int
) -> Collected:
    """The class's reports and ``liars`` simulated lying students, in memory only.

    Each lying student sends the maximal-gain report for option ``target`` (Cao, Jia and
    Gong 2021: under GRR the target itself; under OUE its bit set and the rest padded to
    an honest number of ones; under OLH a hash that sends the target to the reported
    bucket), drawn exactly into the class's support counts. Nothing is written to the
    poll's store: the teacher shows what a few fake reports would do, and the class's
    own answer is untouched. The draw is seeded by the poll, the option and the number,
    so the page's refresh every few seconds shows the same simulated students.
    """
    import hashlib  # noqa: PLC0415

    import numpy as np  # noqa: PLC0415

    from ldpcore.attacks.gains import fake_support  # noqa: PLC0415
    from ldpcore.collection.estimates import Collected  # noqa: PLC0415

    if not 0 <= target < len(poll.options):
        raise InputError(f"the option pushed must be one of the {len(poll.options)} options")
    if liars < 0:
        raise InputError(f"the number of simulated lying students is at least 0, got {liars}")
    protocol = poll_protocol(poll.protocol, poll.epsilon, len(poll.options))
    seed = hashlib.sha256(f"{poll.code}:{target}:{liars}".encode()).digest()[:8]
    rng = np.random.default_rng(int.from_bytes(seed, "little"))
    fakes = fake_support(protocol, "mga", np.array([target]), liars, rng)
    users = len(rows) + liars
    estimate = protocol.estimate(class_support(poll, rows) + fakes, users)
    return Collected(poll.options, protocol, users, "reports", estimate)


__all__ = [
    "LESSON_PRESET",
    "PRESETS",
    "browser_parameters",
    "check_report",
    "class_collected",
    "class_support",
    "export_reports",
    "export_text",
    "live_protocols",
    "poll_export_text",
    "poll_protocol",
    "reports_frame",
    "with_simulated_liars",
]
