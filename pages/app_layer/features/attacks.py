"""The Fake users page's controls and its cached run.

Streamlit-free work is :func:`ldpcore.experiments.poisoning.run_attack`; this keeps
one cached table per (configuration, attack, k), so every session of a class asking the
same question shares one computation.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from ldpcore.attacks import ATTACKS, AttackSpec
from ldpcore.attacks.kinds import AIMS, BETA_MAX, PICKS
from ldpcore.experiments.config import ExperimentConfig
from pages.app_layer.serving.cache import config_hash

#: The β slider's stops: up to a fifth of all reports (the papers' range), in 0.5% steps.
BETAS = tuple(round(0.005 * i, 3) for i in range(int(0.2 / 0.005) + 1))
TARGETS_MAX = 10
TOP_K_MAX = 50


def attack_controls(labels: list[str], *, ranges: bool = False) -> tuple[AttackSpec, int]:
    """The attack, its share of fake users, its targets and the top-k query's k.

    ``labels`` are the dataset's values, for naming targets. ``ranges``: the protocol
    is a tree, so the targets are one range of consecutive values and the maximal-gain
    attack aims at a reading of the tree. Every control is bound to the URL, so a link
    shows the same attack.
    """
    if ranges:
        return _range_controls(labels), 10
    kind_column, beta_column, targets_column, k_column = st.columns([3, 3, 2, 2])
    kind, beta = _kind_and_share(kind_column, beta_column, value=0.05, key="beta")
    targets = targets_column.number_input(
        "Targets r",
        min_value=1,
        max_value=TARGETS_MAX,
        value=3,
        key="targets",
        bind="query-params",
        help="How many values the fake users push up (unless they are named below).",
    )
    pick_column, named_column = st.columns([2, 3])
    pick = pick_column.selectbox(
        "Which targets",
        [*PICKS, "named"],
        key="pick",
        bind="query-params",  # the URL holds the option as shown: so the short name
        help="random: drawn at random, as Cao et al. choose them; rarest: the least "
        "frequent values (a rare value made to look popular); named: the values you name.",
    )
    named: list[str] = []
    if pick == "named":
        named = named_column.multiselect(
            "Targets",
            labels,
            default=labels[-1:],
            max_selections=TARGETS_MAX,
            key="named-targets",
            help="The values the fake users push up.",
        )
        if not named:
            named_column.warning("Name at least one value, or choose another way.")
            st.stop()
    if named:
        spec = AttackSpec(
            str(kind), beta=float(beta), targets=len(named), pick="named", named=tuple(named)
        )
    else:
        spec = AttackSpec(str(kind), beta=float(beta), targets=int(targets), pick=str(pick))
    top_k = k_column.number_input(
        "Top-k query: k",
        min_value=1,
        max_value=TOP_K_MAX,
        value=10,
        key="top_k",
        bind="query-params",
        help="Does a target make it into a method's k most frequent values?",
    )
    return spec, int(top_k)


def _kind_and_share(
    kind_column: Any, beta_column: Any, *, value: float, key: str
) -> tuple[str, float]:
    """The attack's kind and its share β of fake users, both bound to the URL."""
    kind = kind_column.selectbox(
        "Attack",
        list(ATTACKS),
        index=list(ATTACKS).index("mga"),
        key="attack",
        bind="query-params",  # the URL holds the option as shown: so the short name
        help="; ".join(f"{name}: {words}" for name, words in ATTACKS.items()),
    )
    kind_column.caption(ATTACKS[str(kind)])
    beta = beta_column.select_slider(
        "Fake users' share of all reports β",
        BETAS,
        value=value,
        key=key,
        bind="query-params",
        help=f"β = m / (n + m) for m fake users beside n honest ones; at most {BETA_MAX:.0%}.",
    )
    return str(kind), float(beta)


def _range_controls(labels: list[str]) -> AttackSpec:
    """A tree's attack: one range of consecutive values, and the reading it aims at."""
    kind_column, beta_column, length_column, aim_column = st.columns([3, 3, 2, 3])
    # β has its own key here: against a tree a few fake users already lift a range past
    # all of its mass (the gain saturates, and Norm-Sub then trims it), so 1% starts
    # where Norm-Sub's amplification shows.
    kind, beta = _kind_and_share(kind_column, beta_column, value=0.01, key="range-beta")
    length = length_column.number_input(
        "Range length",
        min_value=1,
        max_value=len(labels),
        value=min(32, len(labels)),
        key="range-length",
        bind="query-params",
        help="How many consecutive values the target range holds.",
    )
    aim = "raw"
    if kind == "mga":
        aim = aim_column.selectbox(
            "Aimed at",
            list(AIMS),
            key="aim",
            bind="query-params",
            format_func=lambda name: AIMS[name].split(":")[0],
            help="The reading of the tree the fake users are placed to raise: "
            + "; ".join(f"{name}: {words}" for name, words in AIMS.items()),
        )
    pick = st.selectbox(
        "Which range",
        [*PICKS, "named"],
        key="pick",
        bind="query-params",
        format_func=lambda name: {
            "random": "drawn at random",
            "rarest": "the least frequent range of that length",
            "named": "from a value I name",
        }[name],
    )
    if pick == "named":
        first = st.selectbox(
            "The range starts at", labels[: len(labels) - int(length) + 1], key="range-start"
        )
        start = labels.index(str(first))
        named = tuple(labels[start : start + int(length)])
        return AttackSpec(
            str(kind), beta=float(beta), targets=len(named), pick="named", named=named, aim=str(aim)
        )
    return AttackSpec(
        str(kind), beta=float(beta), targets=int(length), pick=str(pick), aim=str(aim)
    )


@st.cache_data(show_spinner=False, max_entries=32, hash_funcs=config_hash())
def dataset_labels(config: ExperimentConfig) -> list[str]:
    """The dataset's values as the page names them (cached per configuration)."""
    return [str(label) for label in config.dataset.build(config.n).labels]


@st.cache_data(show_spinner=False, max_entries=32, hash_funcs=config_hash())
def attack_tables(config: ExperimentConfig, attack: AttackSpec, top_k: int) -> dict[str, Any]:
    """The attack's run as plain tables and words (cached per configuration and attack).

    The attack arrives as the controls made it, never written as text and read back.
    """
    # pandas and scipy load with the run, not with the page.
    from ldpcore.experiments.poisoning import run_attack  # noqa: PLC0415
    from ldpcore.present.attack_sentences import attack_headline, attack_sentence  # noqa: PLC0415

    result = run_attack(config, attack, top_k=top_k)
    return {
        "summary": result.summary,
        "expected": result.expected,
        "fakes": result.fakes,
        "labels": result.labels,
        "truth": result.truth,
        "top_k": result.top_k,
        "sentence": attack_sentence(result),
        "headline": attack_headline(result),
    }


__all__ = [
    "BETAS",
    "TARGETS_MAX",
    "TOP_K_MAX",
    "attack_controls",
    "attack_tables",
    "dataset_labels",
]
