"""The defences measured: the ones count, the frequent itemsets and LDPRecover.

Made from ``benchmarks/results/defence.json`` (``bench_defence.py``: every report drawn,
Cao, Jia and Gong's two detections) and ``benchmarks/results/recover.json``
(``bench_recover.py``: LDPRecover against Norm-Sub, honest and attacked). A difference
whose paired 95% interval holds zero is said to be none measurable, never a number.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from devtools.claims.words import count_words, fixed_span, results, signed

Row = dict[str, Any]
ATTACK_NAMES = {"rpa": "uniform reports", "ria": "random items", "mga": "maximal gain"}


def _defence_setting() -> str:
    record = results("defence")
    s = record["setting"]
    fakes = record["protocols"][0]["attacks"][0]["fakes"]
    return (
        f"d = {s['d']:,}, n = {count_words(s['n'])}, ε = {s['epsilon']:g}, "
        f"Zipf s = {s['data'].split('=')[1]}, β = {record['beta']:g}, {fakes:,} fake users on "
        f"{record['targets']} targets, {record['trials']} collections"
    )


def _gain(g: Row) -> str:
    return f"{signed(g['mean'], '.4f')} ± {g['half']:.4f}"


def defence_how() -> str:
    """The defences' setting and command."""
    record = results("defence")
    return f"`{record['command']}` ({record['date']}): {_defence_setting()}"


def defence_table() -> str:
    """Per protocol and attack: what each defence flags and Base's gain with it."""
    lines = [
        "| protocol | attack | honest flagged: ones, itemset | fakes flagged: ones, itemset "
        "| Base gain, no defence | with the ones count | with the itemsets | itemsets, "
        "dropped only |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for p in results("defence")["protocols"]:
        extra = p["honest_extra_mse"]
        lines.append(
            f"| {p['protocol']} | none (β = 0) | extra MSE {extra['ones']:.2g}, "
            f"{extra['itemsets']:.2g} | collections with an itemset: "
            f"{p['honest_collections_with_itemset']} of {results('defence')['trials']} | | | | |"
        )
        for a in p["attacks"]:
            honest, fake, g = a["honest_flagged"], a["fakes_flagged"], a["gain"]
            lines.append(
                f"| {p['protocol']} | {a['attack']} | {honest['ones']:.2g}, "
                f"{honest['itemsets']:.2g} | {fake['ones']:.1%}, {fake['itemsets']:.1%} | "
                + " | ".join(_gain(g[k]) for k in ("none", "ones", "itemsets", "dropped"))
                + " |"
            )
    return "\n\n" + "\n".join(lines) + "\n\n"


def defence_honest() -> str:
    """What each defence costs honest data."""
    record = results("defence")
    protocols = record["protocols"]
    collections = sum(p["honest_collections_with_itemset"] for p in protocols)
    rates = [a["honest_flagged"]["ones"] for p in protocols for a in p["attacks"]]
    exact = [p["exact_false_alarm"] for p in protocols]
    worst = max(abs(p["honest_extra_mse"]["ones"]) for p in protocols)
    return (
        f"{collections} of {len(protocols) * record['trials']} honest collections had an "
        f"itemset; the ones count flagged {min(rates):.2g}–{max(rates):.2g} of honest reports "
        f"(its exact rate {', '.join(f'{e:.2g}' for e in exact)}) and added at most "
        f"{worst:.2g} to the MSE on honest data ({_defence_setting()})"
    )


def defence_itemsets() -> str:
    """The itemsets against the maximal-gain attack, read two ways."""
    parts, drops, shares = [], [], []
    for p in results("defence")["protocols"]:
        a = next(x for x in p["attacks"] if x["attack"] == "mga")
        g = a["gain"]
        parts.append(
            f"catch {a['fakes_flagged']['itemsets']:.1%} of {p['protocol']}'s fake reports and "
            f"its gain goes from {g['none']['mean']:.2f} to {_gain(g['itemsets'])}"
        )
        drops.append(f"{_gain(g['dropped'])} ({p['protocol']})")
        shares.append(f"{a['honest_flagged']['itemsets']:.1%} at {p['protocol']}")
    return (
        f"Against the maximal-gain attack the itemsets {'; they '.join(parts)}. Dropping "
        f"alone, as Cao et al. do, gives {', '.join(drops)}, because the honest reports "
        f"dropped with the fakes ({', '.join(shares)}) support every target "
        f"({_defence_setting()})"
    )


def defence_ones() -> str:
    """The ones count against each attack: what it catches."""
    parts = []
    for p in results("defence")["protocols"]:
        for a in p["attacks"]:
            caught = a["fakes_flagged"]["ones"]
            g = a["gain"]
            parts.append(
                f"{caught:.1%} of {p['protocol']}'s {ATTACK_NAMES[a['attack']]}"
                + (f" (gain {g['none']['mean']:.3f} → {g['ones']['mean']:.4f})" if caught else "")
            )
    return f"The ones count catches {', '.join(parts)} ({_defence_setting()})"


def _recover_setting() -> str:
    record = results("recover")
    s = record["setting"]
    return (
        f"d = {s['d']:,}, n = {count_words(s['n'])}, ε = {s['epsilon']:g}, "
        f"Zipf s = {s['data'].split('=')[1]}, {record['trials']} seeded collections"
    )


def _percent_of(pair: Row) -> str:
    if pair["low"] <= 0 <= pair["high"]:
        return "no measurable difference"
    return f"{signed(100 * pair['difference'] / pair['second'], '+.1f')}%"


def recover_how() -> str:
    """The honest table's setting and command."""
    record = results("recover")
    return (
        f"`{record['command']}` ({record['date']}): {_recover_setting()} per protocol; the "
        f"MSE over all values of each method on the same collections, and the paired "
        f"difference with its 95% t-interval"
    )


def recover_honest_table() -> str:
    """LDPRecover (η assumed) against Norm-Sub on honest data."""
    lines = [
        "| protocol | Norm-Sub MSE | LDPRecover MSE | LDPRecover − Norm-Sub (95%) |",
        "|---|---:|---:|---:|",
    ]
    for r in results("recover")["honest"]:
        m = r["mse"]
        lines.append(
            f"| {r['protocol']} | {m['second']:.3g} | {m['first']:.3g} | "
            + f"{signed(m['difference'], '+.2g')} ({signed(m['low'], '+.2g')} to "
            f"{signed(m['high'], '+.2g')}; {_percent_of(m)}) |"
        )
    return "\n\n" + "\n".join(lines) + "\n\n"


def recover_honest() -> str:
    """What LDPRecover costs when no one lies, per protocol."""
    record = results("recover")
    parts = [f"{r['protocol']} {_percent_of(r['mse'])}" for r in record["honest"]]
    return (
        f"On honest data, told η = {record['assumed_share']:g}, LDPRecover's error against "
        f"Norm-Sub's is {', '.join(parts)} ({_recover_setting()}, paired)"
    )


def recover_attacked() -> str:
    """Under each attack, told the attack's own η: the gain and the other values' error."""
    record = results("recover")
    rows = [r for r in record["attacked"] if abs(r["gain"]["second"]) > 0.01]
    gains = [r["gain"]["first"] / r["gain"]["second"] for r in rows]
    collateral = {
        kind: [
            r["collateral"]["first"] / r["collateral"]["second"]
            for r in record["attacked"]
            if r["attack"] == kind
        ]
        for kind in dict.fromkeys(r["attack"] for r in record["attacked"])
    }
    return (
        f"Under attack (β = {record['beta']:g}, {record['targets']} targets, told the "
        f"attack's own η), LDPRecover's gain on the targets is {fixed_span(gains)}× Norm-Sub's "
        f"wherever Norm-Sub's exceeds 0.01, and its error on the other values "
        + ", ".join(f"{fixed_span(v)}× under {ATTACK_NAMES[k]}" for k, v in collateral.items())
        + f" ({', '.join(r for r in dict.fromkeys(x['protocol'] for x in record['attacked']))}; "
        f"{_recover_setting()})"
    )


#: Claim name → the function that makes its text.
CLAIMS: dict[str, Callable[[], str]] = {
    "defence.how": defence_how,
    "defence.table": defence_table,
    "defence.honest": defence_honest,
    "defence.itemsets": defence_itemsets,
    "defence.ones": defence_ones,
    "recover.how": recover_how,
    "recover.honest-table": recover_honest_table,
    "recover.honest": recover_honest,
    "recover.attacked": recover_attacked,
}
