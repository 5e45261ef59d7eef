"""Every page through Streamlit's AppTest: renders, reacts to widgets, restores from the URL."""

from __future__ import annotations

import re

import pytest
from apptest import app, chart, compared, page_caption, small, values

from ldpcore.postprocess import default_method_names, method_names
from ldpcore.present import figures
from ldpcore.present.sentences import settings_line
from ldpcore.protocols import protocol_class, protocol_names
from ldpcore.serving.settings import default_config
from pages.app_layer.controls.navigation import page_files

PAGES = list(page_files())


@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_at_defaults(page: str) -> None:
    at = app()
    at.run()
    at.switch_page(page)
    at.run()
    assert not at.exception, at.exception


def test_the_default_configuration_is_what_a_first_visitor_sees() -> None:
    """The launcher computes ``default_config()`` ahead: it must be the sidebar's first view."""
    at = app()
    at.run()
    config = default_config()
    assert config.methods == default_method_names()
    said = settings_line(config) + "."
    assert page_caption(at).startswith(said), page_caption(at)
    assert at.sidebar.caption[-1].value == (
        f"Methods: all but Bayes, LDPRecover, Consistency, Cons-NS, EM and EMS. Trials: "
        f"{config.trials}. "
        f"Seed: {config.seed}."
    )


def test_explorer_reacts_to_epsilon_protocol_and_methods() -> None:
    at = small(app())
    assert not at.exception
    before = compared(chart(at, "chart-mse"))
    assert set(before) == set(default_method_names())  # one row per method
    assert list(before) == sorted(before, key=lambda m: before[m][0])  # lowest first
    assert before["Base"][0] == 1  # the reference
    at.select_slider(key="epsilon").set_value(4.0).run()
    after = compared(chart(at, "chart-mse"))
    assert after["Base"][1] < before["Base"][1]  # more budget, less error
    at.pills(key="protocol").set_value("GRR").run()
    assert "GRR" in page_caption(at)
    at.multiselect(key="methods").set_value(["Base", "Norm-Sub"]).run()
    assert set(compared(chart(at, "chart-mse"))) == {"Base", "Norm-Sub"}
    table = at.table[0].value
    assert list(table["method"]) == ["Base", "Norm-Sub"]


def _upper(interval: str) -> float:
    """The upper end of ``"0.343 (0.301–0.392)"``."""
    return float(interval.rsplit("–", 1)[1].rstrip(")").replace("∞", "inf"))


def test_explorer_headline_and_table_carry_paired_intervals() -> None:
    at = small(app())
    at.pills(key="protocol").set_value("GRR").run()
    at.multiselect(key="methods").set_value(["Base", "Norm", "Norm-Sub", "PowerNS"]).run()
    assert not at.exception
    banners = [e.value for e in [*at.success, *at.info] if "Recommended:" in e.value]
    assert len(banners) == 1
    table = at.table[0].value.set_index("method")
    # GRR's estimates already sum to one: Norm changes nothing and is never credited.
    assert table.loc["Norm", "vs Base"] == "same answers"
    assert table.loc["Base", "vs Base"] == "reference"
    for method in ("Norm-Sub", "PowerNS"):
        lower = table.loc[method, "vs Base"] == "lower"
        assert lower == (_upper(table.loc[method, "MSE ÷ Base (95%)"]) < 1)
    # Green, and a "×" in words, only when some method is significantly better.
    assert bool(at.success) == ("lower" in set(table["vs Base"]))
    assert "1.0× lower" not in banners[0]
    _headline_matches_table(banners[0], table)
    # One number format: errors to three significant digits, whole users with separators.
    for cell in table["equivalent users n'"]:
        assert re.fullmatch(r"[1-9]\d{0,2}(,\d{3})*", cell), cell
    for cell in table["MSE"]:
        assert len(cell.split("e")[0].replace(".", "").lstrip("0")) <= 3, cell
    # A gain on the full domain is also said in users: n / ratio, from the same ratio.
    if at.success:
        chosen = banners[0].split("**")[1]
        ratio = float(table.loc[chosen, "MSE ÷ Base (95%)"].split(" ")[0])
        said = banners[0].split("with about ")[1].split(" users")[0]
        assert float(said.replace(",", "")) == pytest.approx(10_000 / ratio, rel=0.01)
    # Without Base there is no reference: said, not guessed.
    at.multiselect(key="methods").set_value(["Norm-Sub", "PowerNS"]).run()
    assert any("Add Base" in e.value for e in at.info)


#: How a headline says a significant gain over Base (sentences.gain_words).
GAIN = "× lower than the raw estimates' (Base; "


def _headline_matches_table(banner: str, table) -> None:
    """The headline's "N× lower than the raw estimates' (Base; A×–B×, …)" is the table's
    ratio, inverted."""
    if GAIN not in banner:
        return
    chosen = banner.split("**")[1]
    said = banner.split(f"{chosen}'s mean squared error is ")[1]
    factor = float(said.split("×")[0])
    low, high = (
        float(x) for x in said.split("(Base; ")[1].split(",")[0].replace("×", "").split("–")
    )
    cell = table.loc[chosen, "MSE ÷ Base (95%)"]
    ratio = float(cell.split(" ")[0])
    ratio_low, ratio_high = (float(x) for x in cell.split("(")[1].rstrip(")").split("–"))
    # Both sides are rounded to three significant digits.
    assert factor == pytest.approx(1 / ratio, rel=0.01)
    assert low == pytest.approx(1 / ratio_high, rel=0.01)
    assert high == pytest.approx(1 / ratio_low, rel=0.01)


def test_your_data_headline_matches_its_table() -> None:
    at = app()
    at.switch_page("pages/your_data.py").run()
    assert not at.exception
    banners = [e.value for e in [*at.success, *at.info] if "Recommended:" in e.value]
    assert len(banners) == 1
    table = next(frame.value for frame in at.table if "MSE ÷ Base (95%)" in frame.value)
    table = table.set_index("method")
    assert bool(at.success) == ("lower" in set(table["vs Base"]))
    assert GAIN in banners[0] or not at.success
    _headline_matches_table(banners[0], table)


def test_queries_sweeps_say_where_a_method_beats_base() -> None:
    at = small(app())
    at.multiselect(key="methods").set_value(["Base", "Norm-Sub", "PowerNS"]).run()
    at.switch_page("pages/queries.py").run()
    assert not at.exception
    headline = [e.value for e in [*at.success, *at.info]]
    assert len(headline) == 1
    credited = "is the most accurate of the methods significantly more accurate than Base"
    assert (credited in headline[0]) == bool(at.success)
    assert "ρ" in headline[0]
    at.radio(key="query").set_value("Groups").run()
    assert not at.exception


def test_ranges_by_length_compare_flat_and_hierarchies_on_the_same_trials() -> None:
    at = small(app())
    at.switch_page("pages/queries.py").run()
    at.radio(key="query").set_value("Ranges by length").run()
    assert not at.exception and not at.error
    headline = [e.value for e in at.info if "Lowest error" in e.value]
    assert len(headline) == 1
    drawn = chart(at, "chart-ranges")["data"]
    lines = [t["name"] for t in drawn if t.get("showlegend") is not False]
    flat = default_config().protocol
    assert lines[0] == f"{flat} · Base" and "TreeOUE · Consistency" in lines
    table = next(frame.value for frame in at.dataframe if "lowest error" in frame.value)
    assert list(table["range length"]) == ["1", "2", "4", "8", "16", "32", "63"]  # d = 64
    assert any("B − 1" in c.value for c in at.caption)  # why a hierarchy helps
    # A hierarchy in the sidebar: the flat reference is OUE, and the Explorer says what a
    # hierarchy is for.
    at.pills(key="protocol").set_value("TreeOUE").run()
    assert not at.exception and not at.error
    lines = [
        t["name"] for t in chart(at, "chart-ranges")["data"] if t.get("showlegend") is not False
    ]
    assert lines[0] == "OUE · Base"
    at.switch_page("pages/explorer.py").run()
    assert not at.exception and not at.error
    assert any("built for ranges" in e.value for e in at.info)


def test_the_square_wave_runs_its_own_methods_and_says_what_it_leaves_out() -> None:
    at = small(app())
    at.pills(key="protocol").set_value("SW").run()
    assert not at.exception and not at.error
    assert any("blur" in e.value for e in at.info)  # what SW is and where it pays
    table = next(frame.value for frame in at.table if "MSE ÷ Base (95%)" in frame.value)
    assert "EMS" in set(table["method"]) and "Power" not in set(table["method"])
    # Methods picked for another protocol: those SW cannot run are left out, and said.
    at.multiselect(key="methods").set_value(["Base", "Power", "EMS"]).run()
    assert not at.exception and not at.error
    assert any("Not run on SW" in c.value and "Power" in c.value for c in at.sidebar.caption)
    at.multiselect(key="methods").set_value(["Power"]).run()
    assert any("none of the methods picked runs on SW" in e.value for e in at.sidebar.error)
    # Every protocol, compared at d = 64 with the default methods: SW among them.
    at.multiselect(key="methods").set_value(["Base", "Norm-Sub", "PowerNS"]).run()
    at.toggle(key="compare").set_value(True).run()
    assert not at.exception and not at.error
    # Ranges by length: SW with EMS beside the hierarchies.
    at.switch_page("pages/queries.py").run()
    at.radio(key="query").set_value("Ranges by length").run()
    assert not at.exception and not at.error
    lines = [
        t["name"] for t in chart(at, "chart-ranges")["data"] if t.get("showlegend") is not False
    ]
    assert lines[0] == "OUE · Base" and "SW · EMS" in lines and "SW · Base" in lines


def test_the_haar_wavelet_runs_the_methods_that_read_its_estimate() -> None:
    at = small(app())
    at.pills(key="protocol").set_value("HaarHRR").run()
    assert not at.exception and not at.error
    assert any("Haar coefficient" in e.value for e in at.info)
    table = next(frame.value for frame in at.table if "MSE ÷ Base (95%)" in frame.value)
    assert "Norm-Sub" in set(table["method"]) and "MLE" not in set(table["method"])


def test_explorer_compare_protocols_facets_the_chart() -> None:
    at = small(app())
    at.multiselect(key="methods").set_value(["Base", "Norm-Sub"]).run()
    at.toggle(key="compare").set_value(True).run()
    assert not at.exception
    dots = chart(at, "chart-compare")["data"]
    # Every protocol for one collection of these ordered values; the memoized ones are
    # for collecting again (the scope's rule).
    one_shot = {name for name in protocol_names() if protocol_class(name).one_shot is None}
    assert set(values(dots[0]["x"])) == one_shot
    assert all(t["type"] == "scatter" for t in dots)  # dots on its log axis, never bars


def test_by_rank_chart_draws_the_featured_methods_or_every_method() -> None:
    at = small(app())
    drawn = chart(at, "chart-estimates")["data"]
    # Every line (a muted one too) is named; bands are the filled shapes.
    names = [t["name"] for t in drawn if t.get("fill") != "toself" and t["x"] != [None]]
    assert names[0] == "truth"
    # The featured methods and the one the page recommends, in registry order.
    banner = " ".join(str(a.value) for a in [*at.success, *at.info])
    extra = [m for m in names[1:] if m not in figures.FEATURED]
    assert len(extra) <= 1 and all(f"**{m}**" in banner for m in extra), (names, banner)
    assert names == ["truth", *(m for m in method_names() if m in {*figures.FEATURED, *extra})]
    bands = [t["legendgroup"] for t in drawn if t.get("fill") == "toself"]
    assert bands == names[1:]  # each drawn method with its 95% band
    assert any("switch on *Every method*" in c.value for c in at.caption)
    at.toggle(key="lines").set_value(True).run()
    # Every method, the ones past the palette in grey under one legend entry.
    every = chart(at, "chart-estimates")["data"]
    assert {t["name"] for t in every} >= {"truth", *default_method_names()}
    assert sum(t.get("legendgroup") == "muted" for t in every) == len(default_method_names()) - 5
    at.segmented_control(key="view").set_value("Bias by rank").run()
    drawn = [t["name"] for t in chart(at, "chart-bias")["data"] if t["x"] != [None]]
    assert sorted(drawn) == sorted(default_method_names())
    # From the URL, with a few methods picked in the sidebar: all of them are drawn.
    at = app(
        {
            "d": "64",
            "n": "10000",
            "trials": "5",
            "lines": "false",
            "methods": ["Base", "Norm", "MLE"],
        }
    )
    at.run()
    lines = chart(at, "chart-estimates")["data"]
    assert [t["name"] for t in lines if t.get("showlegend") is not False] == [
        "truth",
        "Base",
        "Norm",
        "MLE",
    ]


def test_url_restores_the_view() -> None:
    at = app(
        {
            "protocol": "OUE",
            "epsilon": "2.0",
            "d": "64",
            "n": "10000",
            "trials": "5",
            "methods": "Norm-Sub",
        }
    )
    at.run()
    assert not at.exception
    assert at.pills(key="protocol").value == "OUE"
    assert at.select_slider(key="d").value == 64
    assert "OUE, ε = 2, n = 10,000" in page_caption(at)
    assert set(compared(chart(at, "chart-mse"))) == {"Norm-Sub"}


def test_no_methods_is_explained_not_a_traceback() -> None:
    at = small(app())
    at.multiselect(key="methods").set_value([]).run()
    assert not at.exception
    assert any("at least one method" in e.value for e in at.error)


def test_tradeoffs_and_queries_pages_change_with_the_sidebar() -> None:
    at = small(app())
    at.multiselect(key="methods").set_value(["Base", "Norm-Sub"]).run()
    at.switch_page("pages/tradeoffs.py").run()
    assert not at.exception
    curve = chart(at, "chart-mse-epsilon")
    names = [t.get("name") for t in curve["data"]]
    assert "Base" in names
    # The prior-averaged bound is drawn only under every measured error, else said why not.
    beaten = any("It is not drawn here" in c.value for c in at.caption)
    assert beaten != (figures.LOWER_BOUND_NAME in names)
    at.switch_page("pages/queries.py").run()
    assert not at.exception
    sets = chart(at, "chart-sets")
    assert any(t.get("name") == "Norm-Sub" for t in sets["data"])
    at.radio(key="query").set_value("Most frequent values").run()
    assert not at.exception and chart(at, "chart-topk")["data"]


def test_learn_page_walks_through_the_steps() -> None:
    at = app()
    at.run()
    at.switch_page("pages/learn.py").run()
    assert not at.exception
    # dataframes in order: the population editor, reports, Base, methods
    reports = at.dataframe[1].value
    assert len(reports) == 20 and set(reports.columns) >= {"true value", "report", "supports"}
    methods = at.dataframe[3].value
    assert abs(methods["Norm-Sub"].sum() - 1) < 1e-3
    at.selectbox(key="preset").set_value("The paper's headline: OLH, ε = 1").run()
    assert not at.exception
    assert "hash" in at.dataframe[1].value["report"].iloc[0]


def test_bundled_sample_in_the_sidebar() -> None:
    at = small(app())
    at.pills(key="dataset").set_value("sample: zipf").run()
    assert not at.exception
    assert ", zipf, query full, 5 trials" in page_caption(at)


def test_explorer_protocol_table_behind_its_toggle() -> None:
    at = small(app())
    assert not any("worst" in " ".join(map(str, d.value.columns)).lower() for d in at.dataframe)
    at.toggle(key="protocols").set_value(True)
    at = at.run()
    assert not at.exception, at.exception
    tables = [d.value for d in at.dataframe if "protocol" in d.value.columns]
    assert tables and len(tables[-1]) >= 6


def test_pages_leave_the_shared_cached_figures_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Explorer's figures are cached once per server and shared by every session
    (copying them would cost about 50 ms per warm rerun, benchmarks/README.md), so no
    page may change them in place. After the pages that draw them have run, the cached
    figures must equal freshly built ones."""
    from ldpcore.experiments.config import ExperimentConfig  # noqa: PLC0415
    from ldpcore.present import figures  # noqa: PLC0415
    from pages.app_layer.serving import cache  # noqa: PLC0415

    at = app({"d": "64", "n": "10000", "trials": "5"})
    at.run()
    for view in ("Bias by rank", "Variance by rank", "Estimates vs truth"):
        at.segmented_control(key="view").set_value(view).run()
    at.switch_page("pages/your_data.py").run()
    assert not at.exception
    config = ExperimentConfig(
        dataset="zipf:d=64,s=1.5", n=10_000, protocol="OLH", epsilon=1.0, trials=5
    )
    built = []
    monkeypatch.setattr(figures, "estimates_by_rank", lambda *a, **k: built.append(1))
    shared = {
        "estimates": cache.by_rank_figure(config, "estimates", False),
        "mse": cache.comparison_figure(config),
    }  # the objects every session gets
    assert not built, "not the cached figures: the test would prove nothing"
    monkeypatch.undo()
    result = cache.simulate(config)
    fresh = {
        "estimates": figures.estimates_by_rank(
            result["per_item"],
            featured=figures.FEATURED,
            recommended=result["ranking"].verdict.recommended,
        ),
        "mse": figures.error_breakdown(
            result["summary"],
            recommended=result["ranking"].verdict.winner,
            query="every value's frequency",
        ),
    }
    for name, figure in fresh.items():
        assert shared[name].to_json() == figure.to_json(), name


def test_learn_compares_a_good_and_a_wrong_prior() -> None:
    """Section 6: a good prior lowers Bayes's error and a wrong one raises it, each with
    its paired interval against Jeffreys' (the default class, GRR at ε = 1)."""
    at = app()
    at.run()
    at.switch_page("pages/learn.py").run()
    at.button(key="learn-prior-demo").click().run(timeout=120)
    assert not at.exception, at.exception
    table = next(d.value for d in at.dataframe if "vs Jeffreys" in d.value.columns)
    by_row = table.set_index("estimator")
    good = by_row.loc["Bayes, good prior (last year's class)"]
    wrong = by_row.loc["Bayes, wrong prior (reversed)"]
    assert good["high"] < 1 < wrong["low"]
    text = " ".join(m.value for m in at.markdown)
    assert "significantly lower error than Jeffreys'" in text
    assert "significantly higher error than Jeffreys'" in text


def test_every_chart_has_a_text_alternative_and_its_data() -> None:
    """(WCAG 1.1.1) under each chart a sentence says what it shows, and a
    toggle opens the data behind it as a table."""
    at = small(app())
    sentences = [c.value for c in at.caption if c.value.startswith('Chart "')]
    assert any("Error per method" in s for s in sentences), sentences
    assert any("Estimates vs truth, by true rank" in s for s in sentences), sentences
    at.toggle(key="chart-mse-data").set_value(True).run()
    assert not at.exception, at.exception
    table = next(d.value for d in at.dataframe if list(d.value.columns)[:3] == ["series", "x", "y"])
    # One row per method and part (bias², variance, the interval), the method named.
    assert {"Base", "Norm-Sub"} <= set(table["x"]) and table["y"].notna().all()


def test_the_class_page_starts_a_poll_or_says_what_to_change() -> None:
    """The Class page: a poll with one option is refused in words; a good one starts with
    no key in its address, and the browser that started it (its session's key) runs it;
    another browser opening the same address sees nothing of it."""
    at = app()
    at.run()
    at.switch_page("pages/class.py")
    at.run()
    at.text_area(key="class-options-How did you get here today?").set_value("Only")
    at.button(key="class-start").click()
    at = at.run()
    assert not at.exception, at.exception
    assert "a poll needs 2 to 50 options; got 1" in at.error[0].value
    at.text_area(key="class-options-How did you get here today?").set_value("Yes\nNo")
    at.button(key="class-start").click()
    at = at.run()
    assert not at.exception, at.exception
    assert set(at.query_params) == {"poll"}, at.query_params  # no secret in the address
    code = at.query_params["poll"]
    assert " ".join(code) in " ".join(m.value for m in at.markdown)
    assert any("Waiting for the first report" in i.value for i in at.info)
    other = app({"poll": code})
    other.run()
    other.switch_page("pages/class.py")
    other.run()
    assert not other.exception, other.exception
    shown = " ".join(m.value for m in [*other.markdown, *other.caption, *other.info])
    assert " ".join(code) not in shown and "Waiting for the first report" not in shown
    assert "poll" not in other.query_params
