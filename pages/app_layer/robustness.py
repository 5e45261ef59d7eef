"""Choose ε's fake-user question: how many would lift a rare value into the top k (issue 56).

The number is the closed form :func:`ldpcore.attacks.reach.fakes_to_enter_top_k` (no
simulation: a page moves its inputs freely); the words are
:func:`ldpcore.present.run_sentences.fake_users_to_top_k_words`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from ldpcore.attacks.reach import fakes_to_enter_top_k
from ldpcore.data.datasets import Dataset
from ldpcore.present.run_sentences import fake_users_to_top_k_words
from ldpcore.protocols import get_protocol, protocol_class

#: The ε the table compares with the answer's: strong privacy to weak.
GRID = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
K_MAX = 50


def fake_users_section(
    dataset: Dataset, n: int, answer_epsilon: float | None, protocol: str
) -> None:
    """A rare value and k chosen; the fake users needed at the answer's ε and around it."""
    st.subheader("How many fake users would push a rare value into the top k?")
    d = dataset.domain_size
    frequencies = dataset.frequencies()
    order = np.argsort(-frequencies, kind="stable")
    # Rare values first in the list: the question is about them.
    candidates = [str(dataset.labels[i]) for i in order[::-1]]
    left, right = st.columns([3, 1])
    label = left.selectbox(
        "A rare value",
        candidates,
        index=min(len(candidates) - 1, len(candidates) // 4),
        key="choose-fake-target",
        help="Values from the rarest up. Fake accounts could push it up to look popular.",
    )
    k = int(
        right.number_input("k", 1, max(1, min(K_MAX, d - 1)), min(10, d - 1), key="choose-fake-k")
    )
    target = [str(x) for x in dataset.labels].index(label)
    epsilon = answer_epsilon if answer_epsilon is not None else 1.0
    if "mga" not in protocol_class(protocol).fake_attacks:
        if protocol_class(protocol).real_valued_reports:
            st.info(
                f"{protocol}'s reports are real numbers: one fake user can send any number, "
                "so a single one can lift a value into the top k unless the server clips "
                "reports. The Fake users page runs the attacks it takes."
            )
            return
        st.info(
            f"{protocol} describes no maximal-gain report, so this question is not answered "
            "for it here; the Fake users page runs the attacks it takes."
        )
        return
    grid = sorted({*GRID, epsilon})
    needed = [
        (
            e,
            fakes_to_enter_top_k(
                get_protocol(protocol, epsilon=e, domain_size=d),
                frequencies,
                n,
                target=target,
                k=k,
            ),
        )
        for e in grid
    ]
    st.markdown(
        fake_users_to_top_k_words(
            label, k, protocol=protocol, epsilon=epsilon, n=n, by_epsilon=needed
        )
    )
    st.dataframe(
        pd.DataFrame(
            {
                "ε": grid,
                "fake users needed": [m for _, m in needed],
                "share of all reports": [None if m is None else m / (n + m) for _, m in needed],
            }
        ),
        hide_index=True,
        key="choose-fake-table",
        column_config={"share of all reports": st.column_config.NumberColumn(format="percent")},
    )
    st.caption(
        f"{label!r} holds {frequencies[target]:.3%} of the {n:,} users. The fake users "
        "send the maximal-gain report (Cao, Jia and Gong 2021): the report that raises "
        f"the target's {protocol} estimate most; the numbers are in expectation. The Fake "
        "users page simulates every attack against every method."
    )


__all__ = ["fake_users_section"]
