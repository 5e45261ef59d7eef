"""A live poll's reports: the report space, the export file and the class's estimates.

Each report a browser sends is a row of the protocol's report file
(:mod:`ldpcore.collection.report_files`): ``value`` for GRR, ``seed_a, seed_b, bucket`` for OLH
(seeds as decimal text: JavaScript numbers cannot hold 64 bits) and ``bits`` (hex,
packed little-endian) for OUE. :func:`check_report` refuses anything outside that space,
so a stored report is exactly what an ``ldpcore aggregate`` of the exported file reads.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ldpcore.errors import InputError
from ldpcore.protocols import FrequencyOracle, get_protocol

if TYPE_CHECKING:
    import pandas as pd

    from ldpcore.collection.estimates import Collected
    from ldpcore.live.store import Poll

#: The protocols a browser runs (issue 24): small reports, randomized in a few lines of
#: JavaScript whose distribution the browser tests check against the exact channel.
LIVE_PROTOCOLS = ("GRR", "OUE", "OLH")
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


def poll_protocol(name: str, epsilon: float, options: int) -> FrequencyOracle:
    """The protocol a poll's browsers run (``options`` values; OLH's default ``g``)."""
    return get_protocol(name, epsilon=epsilon, domain_size=options)


def browser_parameters(protocol: FrequencyOracle) -> dict[str, Any]:
    """What the browser's randomizer needs, computed here once (one source of truth).

    Examples
    --------
    >>> round(browser_parameters(poll_protocol("GRR", math.log(3), 2))["p"], 12)
    0.75
    """
    name = protocol.name
    params: dict[str, Any] = {"protocol": name, "d": protocol.domain_size}
    if name == "GRR":
        params["p"] = float(protocol.p)
    elif name == "OUE":
        params["p"] = float(protocol.p)
        params["q"] = float(protocol.q)
    elif name == "OLH":
        params["g"] = int(protocol.g)  # type: ignore[attr-defined]
        params["p"] = float(protocol.p)
    else:
        raise InputError(f"a browser runs {', '.join(LIVE_PROTOCOLS)}; got {name}")
    return params


def check_report(protocol: FrequencyOracle, report: Mapping[str, Any]) -> dict[str, Any]:
    """The report as its report-file row, or :class:`InputError` if outside the space.

    Examples
    --------
    >>> check_report(poll_protocol("GRR", 1.0, 7), {"value": 3})
    {'value': 3}
    >>> check_report(poll_protocol("GRR", 1.0, 7), {"value": 7})
    Traceback (most recent call last):
    ...
    ldpcore.errors.InputError: a GRR report is a value in [0, 7); got {'value': 7}
    """
    name = protocol.name
    if not isinstance(report, Mapping):
        raise InputError(f"a {name} report is a mapping of its columns; got {report!r}")
    columns = protocol.report_columns()
    if set(report) != set(columns):
        raise InputError(
            f"a {name} report has the fields {', '.join(columns)}; got "
            f"{', '.join(map(str, report)) or 'none'}"
        )
    if name == "GRR":
        value = _whole(report["value"])
        if value is None or not 0 <= value < protocol.domain_size:
            raise InputError(
                f"a GRR report is a value in [0, {protocol.domain_size}); got {dict(report)!r}"
            )
        return {"value": value}
    if name == "OLH":
        seeds = [_whole(report[c]) for c in ("seed_a", "seed_b")]
        bucket = _whole(report["bucket"])
        g = int(protocol.g)  # type: ignore[attr-defined]
        if (
            any(s is None or not 0 <= s < 2**64 for s in seeds)
            or bucket is None
            or not (0 <= bucket < g)
        ):
            raise InputError(
                f"an OLH report is two 64-bit seeds and a bucket in [0, {g}); got {dict(report)!r}"
            )
        return {"seed_a": str(seeds[0]), "seed_b": str(seeds[1]), "bucket": bucket}
    if name == "OUE":
        bits = report["bits"]
        d = protocol.domain_size
        width = 2 * math.ceil(d / 8)
        ok = isinstance(bits, str) and len(bits) == width and _is_hex(bits)
        # Padding bits past d must be 0: a report is one of the 2^d vectors, nothing else.
        if ok and d % 8:
            ok = int(bits[-2:], 16) >> (d % 8) == 0
        if not ok:
            raise InputError(
                f"an OUE report is {d} bits as {width} hex digits (little-endian bytes, "
                f"unused bits 0); got {dict(report)!r}"
            )
        return {"bits": bits.lower()}
    raise InputError(f"a browser runs {', '.join(LIVE_PROTOCOLS)}; got {name}")


def _whole(value: object) -> int | None:
    """An int from an int or its decimal text (never a float: seeds must stay exact)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 20:
        return int(value)
    return None


def _is_hex(text: str) -> bool:
    return all(ch in "0123456789abcdefABCDEF" for ch in text)


def reports_frame(protocol: FrequencyOracle, rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """The reports as the protocol's report-file table (text form, as in CSV files)."""
    import numpy as np  # noqa: PLC0415
    import pandas as pd  # noqa: PLC0415

    columns = protocol.report_columns()
    if protocol.name == "OLH":
        frame = pd.DataFrame(
            {
                "seed_a": np.array([int(r["seed_a"]) for r in rows], dtype=np.uint64),
                "seed_b": np.array([int(r["seed_b"]) for r in rows], dtype=np.uint64),
                "bucket": np.array([int(r["bucket"]) for r in rows], dtype=np.int64),
            }
        )
    else:
        frame = pd.DataFrame({c: [r[c] for r in rows] for c in columns})
    # Through the protocol's own reader and writer: the file is what aggregate reads.
    reports = protocol.frame_to_reports(frame, source="the poll's reports")
    return protocol.reports_to_frame(reports, text=True)


def export_reports(poll: Poll, rows: Sequence[Mapping[str, Any]], output: str | Path) -> int:
    """Write the poll's reports as a CSV report file (with its ``# ldpcore`` line).

    Returns the number of reports written. ``ldpcore aggregate --input FILE`` reads it
    with ``--protocol``, ``--epsilon`` and ``--domain-size`` as the first line records.
    """
    protocol = poll_protocol(poll.protocol, poll.epsilon, len(poll.options))
    text = export_text(protocol, rows)
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


def class_collected(poll: Poll, rows: Sequence[Mapping[str, Any]]) -> Collected:
    """The class's reports as collected output: counts, n and the Base estimate (Eq. 2)."""
    import numpy as np  # noqa: PLC0415

    from ldpcore.collection.estimates import Collected  # noqa: PLC0415

    protocol = poll_protocol(poll.protocol, poll.epsilon, len(poll.options))
    reports = protocol.frame_to_reports(reports_frame(protocol, rows), source="the poll")
    counts = np.asarray(protocol.aggregate(reports), dtype=np.float64)
    estimate = protocol.estimate(counts, len(rows))
    return Collected(poll.options, protocol, len(rows), "reports", estimate)


__all__ = [
    "LIVE_PROTOCOLS",
    "PRESETS",
    "browser_parameters",
    "check_report",
    "class_collected",
    "export_reports",
    "export_text",
    "poll_protocol",
    "reports_frame",
]
