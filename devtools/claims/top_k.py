"""How many fake users lift a value into the top k: what the count means, measured.

Made from ``benchmarks/results/top_k.json`` (``bench_top_k.py --check``: at each setting,
the count the tool answers, the share of seeded collections that put the target in the
top k at it, the same at the expected-value count, and Cao et al.'s random padding).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from devtools.claims.words import count_words, results, span

Row = dict[str, Any]


def _where(row: Row) -> str:
    return (
        f"{row['protocol']} at d = {row['d']:,}, ε = {row['epsilon']:g}, n = "
        f"{count_words(row['n'])}, rank {row['rank']}, k = {row['k']}"
    )


def top_k_inside() -> str:
    """The share of collections inside the top k at the count, and at the old count."""
    record = results("top_k")
    rows = record["checks"]
    at = "; ".join(f"{100 * r['best_inside']:.1f}% ({_where(r)})" for r in rows)
    old = [100 * r["expected_inside"] for r in rows if r["expected"] != r["best"]]
    return (
        f"simulated collections at the count ({record['collections']} seeded collections "
        f"each, Zipf s = {record['data'].split('=')[1]}) put the target there {at} of the "
        f"time, against {span(old, 3)}% at the expected-value count where that count differs"
    )


def top_k_padding() -> str:
    """How many fewer fake users the attacker at its best needs than Cao et al.'s padding."""
    rows = results("top_k")["checks"]
    fewer = [100 * (1 - r["best"] / r["random_padding"]) for r in rows]
    examples = "; ".join(
        f"{r['best']:,} against {r['random_padding']:,} for {_where(r)}" for r in rows
    )
    record = results("top_k")
    return (
        f"against Cao et al.'s random padding the attacker at its best needs "
        f"{span(fewer)}% fewer fake users on these settings ({examples}; "
        f"`{record['command']}`, {record['date']})"
    )


#: Claim name → the function that makes its text.
CLAIMS: dict[str, Callable[[], str]] = {
    "top-k.inside": top_k_inside,
    "top-k.padding": top_k_padding,
}
