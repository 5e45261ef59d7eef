"""Fake users: what lying users do to each method's answer."""

from __future__ import annotations

import streamlit as st

from ldpcore.experiments.clock import busy_now, clock_seconds
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.costs import run_seconds, within_budget
from ldpcore.formats import format_duration, format_number
from ldpcore.present.attack_sentences import attack_table, attack_top_k_words, range_attack_words
from ldpcore.present.commands import simulate_command
from ldpcore.present.figures.attacks import attack_gains, attack_top_k
from ldpcore.present.run_sentences import clock_words
from ldpcore.present.sentences import settings_line
from pages.app_layer.controls.navigation import ensure_app
from pages.app_layer.controls.widgets import require_config
from pages.app_layer.features.attacks import attack_controls, attack_tables, dataset_labels
from pages.app_layer.views.display import run_or_explain, show_chart
from pages.app_layer.views.exports import show_command

ensure_app(__file__)
st.title("Fake users")
config: ExperimentConfig = require_config()
answer_slot = st.container()  # the answer and its chart first, once the run is drawn
st.caption(
    "Every other page assumes each report came from an honest user. Here a share β of the "
    "reports come from fake users who want a few values, the targets, to look frequent "
    "(Cao, Jia and Gong, USENIX Security 2021). The honest run beside each bar is the same "
    "honest reports without them."
)
ranges = config.oracle().composite  # a tree: the fake users push one range up
if ranges:
    st.caption(range_attack_words())
attack, top_k = attack_controls(dataset_labels(config), ranges=ranges)

# An attack runs every trial twice (with and without the fake users).
seconds = 2 * run_seconds(config)
busy = busy_now()
clock = clock_seconds(seconds, busy)  # one process, beside whatever else runs now
if not within_budget(seconds) and not st.button(
    f"Run it (about {format_duration(clock)} by the clock)", key="attack-anyway", type="primary"
):
    st.info(
        f"With and without the fake users, this setting takes about {format_duration(seconds)} "
        "of computing, more than a page should wait for unasked."
        + clock_words(seconds, clock, busy)
        + " Lower d or the trials in the sidebar, or run it."
    )
    st.stop()
tables = run_or_explain(lambda: attack_tables(config, attack, top_k), "Simulating the fake users…")
if tables is None:
    st.stop()

with answer_slot:
    st.info(tables["headline"], icon=":material/report:")
    show_chart(attack_gains(tables["summary"], tables["expected"]), key="chart-attack-gain")
st.markdown(tables["sentence"])
if not ranges:
    st.markdown(attack_top_k_words(tables["summary"], tables["top_k"], attack.targets))
st.caption(
    f"{settings_line(config)}; {tables['fakes']:,} fake users beside "
    f"{config.n:,} honest ones. The targets' true total is "
    f"{format_number(tables['truth'])}. A method's gain is its estimate of the targets' "
    "total with the fake users minus its estimate without them, on the same honest "
    "reports (Cao, Jia and Gong's definition): the mean over the trials with its 95% "
    "interval. Its own bias, in grey, is its error on the targets without any attack: "
    "beside the gain, not part of it. LDPRecover (Sun et al., ICDE 2024) is always shown, "
    f"told the share of fake users (η = m/n = {tables['fakes'] / config.n:.3g}) as its paper "
    "tells the server; without the targets it is Norm-Sub of the estimate stretched by 1 + η "
    "wherever Norm-Sub keeps only values above zero, so it does not undo a targeted attack."
)
if not ranges:
    show_chart(
        attack_top_k(tables["summary"], tables["top_k"], attack.targets), key="chart-attack-top-k"
    )
st.header("Every method under attack")
st.table(attack_table(tables["summary"], ranges=ranges), hide_index=True)
st.caption(
    "Against Base: the paired difference of the gain on the same trials with its 95% "
    "interval; a method shrinks or amplifies the gain only when the interval excludes 0 "
    "and reaches beyond 5% of Base's gain (within it: about the same, the margin every "
    "verdict here uses). "
    "The MSE on the other values is the collateral damage: the mass the fake users took "
    "from them. Ranking kept: Kendall's τ between the method's ranking of all values "
    "with the fake users and without them (1: no two values swapped). In brackets, the "
    "honest run's figure. \"The same as Base\": no trial differs from Base's gain beyond "
    "rounding."
)
show_command(f"{simulate_command(config)} --attack {attack} --top-k {top_k}")
