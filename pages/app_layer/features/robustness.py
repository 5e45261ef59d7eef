"""Choose ε's fake-user question: how many would lift a rare value into the top k

The number is :func:`ldpcore.attacks.reach.top_k_question`'s (the fewest fake users that
put the value in the top k at least half the time, in a normal model of the estimates:
no simulation, so a page moves its inputs freely); the words are
:func:`ldpcore.present.run_sentences.top_k_question_words` and the table
:func:`ldpcore.present.tables.fake_users_table`, which the decision record files too.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from ldpcore.attacks.fakes import described_attacks
from ldpcore.attacks.reach import TopKQuestion, top_k_question
from ldpcore.data.datasets import Dataset
from ldpcore.present.run_sentences import fake_users_caption, top_k_question_words
from ldpcore.present.tables import fake_users_table
from ldpcore.protocols import protocol_class

K_MAX = 50


def fake_users_section(
    dataset: Dataset, n: int, answer_epsilon: float | None, protocol: str
) -> TopKQuestion | None:
    """A rare value and k chosen; the fake users needed at the answer's ε and around it.

    Returns the question answered (the decision record files the same), or None where
    the protocol has no maximal-gain report to count with.
    """
    st.header("How many fake users would push a rare value into the top k?")
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
    epsilon = answer_epsilon if answer_epsilon is not None else 1.0
    if "mga" not in described_attacks(protocol_class(protocol)):
        if protocol_class(protocol).real_valued_reports:
            st.info(
                f"{protocol}'s reports are real numbers: one fake user can send any number, "
                "so a single one can lift a value into the top k unless the server clips "
                "reports. The Fake users page runs the attacks it takes."
            )
            return None
        if protocol_class(protocol).composite:
            st.info(
                f"{protocol}'s fake users push a range of values up, not one value into the "
                "top k: the Fake users page runs them against a range, each method beside Base."
            )
            return None
        st.info(
            f"{protocol} describes no maximal-gain report, so this question is not answered "
            "for it here; the Fake users page runs the attacks it takes."
        )
        return None
    labels = [str(x) for x in dataset.labels]
    question = top_k_question(
        protocol, frequencies, n, labels=labels, target=labels.index(label), k=k, epsilon=epsilon
    )
    st.markdown(top_k_question_words(question))
    st.dataframe(fake_users_table(question), hide_index=True, key="choose-fake-table")
    st.caption(fake_users_caption(question))
    return question


__all__ = ["fake_users_section"]
