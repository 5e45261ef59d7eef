"""Figure builders: which methods a by-rank chart draws, and one style per method."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.trials import run
from ldpcore.postprocess import method_names
from ldpcore.present import figures

ALL = tuple(method_names())
SEVEN_OTHERS = ("Norm", "Norm-Mul", "MLE", "IBU", "Power", "Post-Pos", "Base-Pos")


def _per_item(methods: tuple[str, ...]):
    config = ExperimentConfig(
        dataset="zipf:d=16,s=1.5", n=2000, protocol="OLH", epsilon=1.0, trials=2, methods=methods
    )
    return run(config)


@pytest.mark.parametrize(
    "methods,featured,expected",
    [
        (ALL, figures.FEATURED, [m for m in ALL if m in figures.FEATURED]),
        (ALL, None, list(ALL)),
        (ALL[:6], figures.FEATURED, list(ALL[:6])),  # few methods: all drawn
        # none of the featured methods chosen: all drawn, in the order chosen
        (SEVEN_OTHERS, figures.FEATURED, list(SEVEN_OTHERS)),
    ],
)
def test_by_rank_charts_draw_featured_methods(methods, featured, expected) -> None:
    result = _per_item(methods)
    estimates = figures.estimates_by_rank(result.per_item, featured=featured)
    lines = [t.name for t in figures.text.legend_traces(estimates)]
    assert lines == ["truth", *expected]
    bands = [t for t in estimates.data if t.fill == "toself"]
    if len(expected) <= figures.BANDS_UP_TO:  # each line with its band, hidden with it
        assert [(t.legendgroup, t.fill) for t in bands] == [(m, "toself") for m in expected]
    else:
        assert not bands
    bias = figures.by_rank(result.per_item, "bias", title="Bias", featured=featured)
    assert [t.name for t in figures.text.legend_traces(bias)] == expected


def test_the_estimate_bands_hold_95_percent_of_single_estimates() -> None:
    """Mean ± 1.96 sd (over the trials, as per_item reports it) of the single-trial
    estimates: the band's edges, recomputed from the trials."""
    config = ExperimentConfig(
        dataset="zipf:d=8,s=1.5",
        n=2000,
        protocol="GRR",
        epsilon=1.0,
        trials=40,
        methods=("Base",),
    )
    result = run(config)
    figure = figures.estimates_by_rank(result.per_item, log_y=False)
    band = next(t for t in figure.data if t.showlegend is False)
    answers = result.answers[0]  # (trials, values), values in domain order = rank order
    order = np.argsort(-result.truth, kind="stable")
    high = np.asarray(band.y[: len(order)])
    low = np.asarray(band.y[len(order) :])[::-1]
    np.testing.assert_allclose(high, answers.mean(0)[order] + 1.96 * answers.std(0)[order])
    np.testing.assert_allclose(low, answers.mean(0)[order] - 1.96 * answers.std(0)[order])
    inside = (answers[:, order] >= low) & (answers[:, order] <= high)
    assert 0.85 <= inside.mean() <= 1.0


def test_every_method_has_its_own_look() -> None:
    """Colour, dash and marker together tell every registered method apart; Base alone
    has the reference's look."""
    triples = {tuple(figures.method_style(m).values()) for m in ALL}
    assert len(triples) == len(ALL)
    others = {figures.method_style(m)["color"] for m in ALL if m != "Base"}
    assert figures.method_style("Base")["color"] not in others


def test_relative_bars_show_the_paired_ratio_and_its_interval() -> None:
    """ "MSE relative to Base" draws each method's paired ratio with its simultaneous
    interval as error bars (not the spread over trials divided by Base's mean)."""
    config = ExperimentConfig(
        dataset="zipf:d=32,s=1.5",
        n=5000,
        protocol="OLH",
        epsilon=1.0,
        trials=8,
        methods=("Base", "Norm-Sub", "PowerNS"),
    )
    summary = run(config).summary.set_index("method")
    figure = figures.mse_points(
        summary.reset_index(), base_mse=None, lower_bound=None, relative_to_base=True
    )
    assert "95% intervals" in figure.layout.title.text
    for trace in figure.data:
        row = summary.loc[trace.name]
        ratio = float(trace.y[0])
        assert ratio == pytest.approx(row["mse"] / summary.loc["Base", "mse"])
        assert ratio + float(trace.error_y.array[0]) == pytest.approx(row["ratio_high"])
        assert ratio - float(trace.error_y.arrayminus[0]) == pytest.approx(row["ratio_low"])
    # The breakdown draws the same paired interval as its whisker.
    breakdown = figures.error_breakdown(summary.reset_index())
    whisker = next(t for t in breakdown.data if t.type == "scatter")
    for method, x, plus, minus in zip(
        whisker.y, whisker.x, whisker.error_x.array, whisker.error_x.arrayminus, strict=True
    ):
        assert x == pytest.approx(summary.loc[method, "mse_ratio_to_base"])
        assert x + plus == pytest.approx(summary.loc[method, "ratio_high"])
        assert x - minus == pytest.approx(summary.loc[method, "ratio_low"])


def test_an_analytic_base_line_names_its_variance_source() -> None:
    """The label says where the exact Base MSE comes from, and a line without it is
    refused: a default of NDSS Eq. 3 had labelled SW's, whose variance is Li et al.'s."""
    result = _per_item(ALL)
    with pytest.raises(ValueError, match="base_source"):
        figures.mse_points(result.summary, base_mse=1e-3, lower_bound=None)
    figure = figures.mse_points(
        result.summary, base_mse=1e-3, lower_bound=None, base_source="Li et al., Sec. 4"
    )
    texts = [annotation.text for annotation in figure.layout.annotations]
    assert any("analytic Base MSE (Li et al., Sec. 4)" in text for text in texts), texts


def test_mse_axis_fits_the_bars_and_reference_lines() -> None:
    """The log axis spans the drawn values with under a decade to spare (it ran to 1)."""
    import math  # noqa: PLC0415

    result = _per_item(ALL)
    analytic = result.analytic
    figure = figures.mse_points(
        result.summary,
        base_mse=analytic["base_mse"],
        lower_bound=analytic["lower_bound"],
        base_source="NDSS Eq. 3",
    )
    low, high = figure.layout.yaxis.range
    values = [*result.summary["mse"], analytic["base_mse"], analytic["lower_bound"]]
    assert low <= math.log10(min(values)) and math.log10(max(values)) <= high
    assert math.log10(min(values)) - low < 1 and high - math.log10(max(values)) < 1


@pytest.mark.parametrize("relative", [False, True])
def test_reference_lines_are_labelled_on_the_line_inside_the_axis(relative: bool) -> None:
    """Each horizontal reference line has its label at the line's height, inside the
    axis (Plotly reads an annotation's y on a log axis as log10: the labels of the
    Base-MSE and lower-bound lines had sat at 10**3e-4 ≈ 1, off the chart)."""
    import math  # noqa: PLC0415

    result = _per_item(ALL)
    analytic = result.analytic
    figure = figures.mse_points(
        result.summary,
        base_mse=analytic["base_mse"],
        lower_bound=analytic["lower_bound"],
        relative_to_base=relative,
        base_source="NDSS Eq. 3",
    )
    lines = [shape.y0 for shape in figure.layout.shapes if shape.y0 == shape.y1]
    assert len(lines) == (1 if relative else 2)
    low, high = figure.layout.yaxis.range if not relative else (-math.inf, math.inf)
    labels = {round(annotation.y, 9): annotation.text for annotation in figure.layout.annotations}
    for y in lines:
        at = round(math.log10(y), 9)
        assert at in labels, (y, labels)
        assert low <= at <= high
    if not relative:
        assert set(labels.values()) == {
            "analytic Base MSE (NDSS Eq. 3)",
            figures.LOWER_BOUND_NAME,
        }


def test_estimates_by_rank_draws_negative_estimates() -> None:
    """A symmetric-log axis: Base's negative means are drawn below 0 (a log axis dropped
    them), the consistent methods never go there, and hovers carry the real values."""
    import numpy as np  # noqa: PLC0415

    config = ExperimentConfig(
        dataset="zipf:d=256,s=1.5",
        n=20_000,
        protocol="OLH",
        epsilon=1.0,
        trials=3,
        methods=("Base", "Norm-Sub"),
    )
    per_item = run(config).per_item
    figure = figures.estimates_by_rank(per_item)
    traces = {trace.name: trace for trace in figure.data}
    base_means = per_item[per_item["method"] == "Base"]["mean"]
    assert (base_means < 0).any()  # the setting has negative means to show
    assert np.nanmin(traces["Base"].y) < 0 and np.nanmin(traces["Norm-Sub"].y) >= 0
    # Hovers carry the real values, in percent (frequencies are read as percentages).
    assert sorted(traces["Base"].customdata) == pytest.approx(sorted(100 * base_means))
    # The sign and the order are kept: the transform is monotone.
    y, real = np.asarray(traces["Base"].y), np.asarray(traces["Base"].customdata)
    assert np.all(np.sign(y) == np.sign(real))
    assert np.all(np.diff(y[np.argsort(real)]) >= 0)
    assert any(label.startswith("−") for label in figure.layout.yaxis.ticktext)
    assert all(label.endswith("%") for label in figure.layout.yaxis.ticktext)


# Machado, Oliveira & Fernandes (2009), severity 1.0, on linear RGB.
CVD = {
    "protanopia": np.array(
        [
            [0.152286, 1.052583, -0.204868],
            [0.114503, 0.786281, 0.099216],
            [-0.003882, -0.048116, 1.051998],
        ]
    ),
    "deuteranopia": np.array(
        [
            [0.367322, 0.860646, -0.227968],
            [0.280085, 0.672501, 0.047413],
            [-0.011820, 0.042940, 0.968881],
        ]
    ),
    "typical vision": np.eye(3),
}


def _lab(rgb: tuple[int, int, int], vision: str) -> np.ndarray:
    """CIELAB (D65) of an sRGB colour as seen with ``vision``."""
    c = np.asarray(rgb) / 255.0
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    seen = np.clip(CVD[vision] @ linear, 0.0, 1.0)
    xyz = (
        np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
        @ seen
        / np.array([0.95047, 1.0, 1.08883])
    )
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def _rgb(colour: str) -> tuple[int, int, int]:
    red, green, blue = colour[colour.index("(") + 1 : colour.index(")")].split(",")
    return int(red), int(green), int(blue)


@pytest.mark.parametrize("vision", list(CVD))
def test_methods_stay_apart_for_colour_blind_readers(vision: str) -> None:
    """two methods drawn with the same dash differ in colour by ΔE ≥ 15 (CIELAB)
    as a protanope or deuteranope sees them; markers are not counted, since long lines
    are drawn without them."""
    styles = {name: figures.method_style(name) for name in ALL}
    for a, b in itertools.combinations(ALL, 2):
        if styles[a]["dash"] != styles[b]["dash"]:
            continue
        distance = float(
            np.linalg.norm(
                _lab(_rgb(styles[a]["color"]), vision) - _lab(_rgb(styles[b]["color"]), vision)
            )
        )
        assert distance >= 15, (vision, a, b, distance)


def test_the_simulation_finds_a_pair_that_only_colour_blind_readers_confuse() -> None:
    """The check has teeth: a red and a green of similar lightness stay apart in typical
    vision and merge for a deuteranope."""
    red, green = (204, 102, 119), (68, 170, 153)  # where a green and a pink meet in deutan
    assert np.linalg.norm(_lab(red, "typical vision") - _lab(green, "typical vision")) > 40
    assert (
        np.linalg.norm(_lab((68, 170, 153), "deuteranopia") - _lab((231, 41, 138), "deuteranopia"))
        < 15
    )


def test_a_chart_is_described_and_tabulated_with_its_real_values() -> None:
    """The text alternative names the chart, its series and axes; the table holds the
    real frequencies where the drawn ones are on a symmetric-log scale."""
    result = _per_item(("Base", "Norm-Sub"))
    figure = figures.estimates_by_rank(result.per_item)  # log_y: drawn values are transformed
    sentence = figures.describe(figure)
    assert sentence.startswith('Chart "Estimates vs truth, by true rank": lines of "truth", "Base"')
    assert "(16 points)" in sentence and "against rank of the value" in sentence
    table = figures.figure_table(figure)
    assert set(table["series"]) == {"truth", "Base", "Norm-Sub"}  # bands left out
    truth = table[table["series"] == "truth"]["y"].to_numpy(dtype=float)
    np.testing.assert_allclose(np.sort(truth), np.sort(result.truth))
    bars = figures.mse_points(result.summary, base_mse=None, lower_bound=None)
    assert 'dots of "Base", "Norm-Sub" (2 points)' in figures.describe(bars)
    rows = figures.figure_table(bars)
    assert (rows["low"] <= rows["y"]).all() and (rows["y"] <= rows["high"]).all()


def test_table_numbers_never_break_and_read_back() -> None:
    """Numbers split as "3.69e-" / "6" in a narrow cell. The ×10 form holds no break opportunity
    (no hyphen, space or slash, by Unicode's line-breaking classes) and reads back."""
    from ldpcore.formats import format_error, read_error  # noqa: PLC0415

    rng = np.random.default_rng(25)
    for value in np.concatenate([10.0 ** rng.uniform(-15, 15, 500), [0.0, 1.0, 0.5]]):
        text = format_error(float(value))
        assert not any(ch in text for ch in "-‐ /e+"), text
        assert read_error(text) == pytest.approx(float(f"{value:.3g}"), rel=1e-12), text


def test_sweep_bands_are_trial_quantiles_positive_on_a_log_axis() -> None:
    """± one SD plunged to 10⁻⁶ on Queries' log axes; the band is now the middle
    80% of trials, checked against the per-trial MSEs recomputed from the raw answers."""
    from ldpcore.experiments.sweeps import sweep  # noqa: PLC0415

    config = ExperimentConfig(
        dataset="zipf:d=256,s=1.5",
        n=2000,
        protocol="GRR",
        epsilon=0.5,
        trials=30,
        methods=("Base", "Norm-Sub"),
        query="set:rho=0.01",
    )
    frame = sweep(config, "rho", [0.01, 0.05])
    # A skewed per-trial MSE: the old band's lower edge (mean − SD) leaves the axis.
    assert (frame["mse_std"] > frame["mse"]).any()
    figure = figures.curves(frame, "rho", title="t", x_title="ρ", y_title="MSE")
    bands = [trace for trace in figure.data if trace.fill == "toself"]
    assert len(bands) == 2
    for trace in bands:
        assert (np.asarray(trace.y) > 0).all()
    # Independent path: each trial's MSE from the kept answers, then numpy's quantiles.
    for rho in (0.01, 0.05):
        result = run(dataclasses.replace(config, query=f"set:rho={rho}"))
        for row, method in enumerate(config.methods):
            per_trial = ((result.answers[row] - result.truth) ** 2).mean(axis=1)
            shown = frame[(frame["rho"] == rho) & (frame["method"] == method)].iloc[0]
            assert shown["mse_low"] == pytest.approx(np.percentile(per_trial, 10), rel=1e-12)
            assert shown["mse_high"] == pytest.approx(np.percentile(per_trial, 90), rel=1e-12)
            assert shown["mse_low"] <= np.median(per_trial) <= shown["mse_high"]


def test_reference_lines_have_legend_entries() -> None:
    import pandas as pd  # noqa: PLC0415

    frame = pd.DataFrame({"method": ["Base", "Base"], "epsilon": [1.0, 2.0], "mse": [1e-3, 5e-4]})
    figure = figures.curves(
        frame,
        "epsilon",
        title="t",
        x_title="ε",
        y_title="MSE",
        references=[("lower bound", np.array([1e-4, 5e-5]), "dot")],
    )
    named = [trace.name for trace in figures.text.legend_traces(figure)]
    assert figure.layout.showlegend is not False
    assert "lower bound" in named and "Base" in named


def test_charts_carry_plotly_white_exactly_and_stay_validated() -> None:
    """The template is set without Plotly's second validation (15–19 ms a chart): the JSON
    must be what ``update_layout(template="plotly_white")`` gives, and later layout
    changes must still be checked."""
    frame = pd.DataFrame({"epsilon": [0.5, 1.0], "mse": [1e-4, 4e-5], "method": ["Base"] * 2})
    figure = figures.error_against_epsilon(frame, target_pp=1.0, protocol="OLH")
    validated = go.Figure().update_layout(template="plotly_white")
    assert figure.layout.template.to_plotly_json() == validated.layout.template.to_plotly_json()
    with pytest.raises(ValueError, match="Invalid property"):
        figure.update_layout(not_a_property=1)


def _every_chart() -> dict[str, go.Figure]:
    """One of each chart the app draws, from a small real run."""
    result = _per_item(ALL)
    summary = result.summary
    table = pd.DataFrame(
        {
            "value": ["a", "b", "c"],
            "base_estimate": [0.5, 0.6, -0.1],
            "estimate": [0.45, 0.5, 0.05],
            "low": [0.3, 0.35, 0.0],
            "high": [0.6, 0.65, 0.2],
        }
    )
    sweep = pd.DataFrame(
        {
            "method": ["Base", "Base", "Norm-Sub", "Norm-Sub"],
            "rho": [0.1, 0.5, 0.1, 0.5],
            "mse": [1e-3, 2e-3, 5e-4, 8e-4],
        }
    )
    return {
        "estimates by rank": figures.estimates_by_rank(result.per_item),
        "bias by rank": figures.by_rank(result.per_item, "bias", title="Bias by rank"),
        "MSE points": figures.mse_points(
            summary, base_mse=1e-3, lower_bound=1e-4, base_source="NDSS Eq. 3"
        ),
        "MSE points, relative": figures.mse_points(
            summary, base_mse=None, lower_bound=None, relative_to_base=True
        ),
        "error breakdown": figures.error_breakdown(summary, recommended="Norm-Sub"),
        "curves": figures.curves(sweep, "rho", title="MSE against ρ", x_title="ρ", y_title="MSE"),
        "top values": figures.top_values(["a", "b"], [3, 1]),
        "consistent estimates": figures.estimates_with_intervals(table),
        "class": figures.poll_estimates(table, "Norm-Sub"),
        "class, Base only": figures.poll_estimates(table, "Norm-Sub", base_only=True),
        "class, the reports": figures.poll_reports(["a", "b"], [3, 1]),
        "error against ε, one method": figures.error_against_epsilon(
            sweep.rename(columns={"rho": "epsilon"}).query("method == 'Base'"),
            target_pp=1.0,
            protocol="OLH",
        ),
    }


def test_every_chart_has_a_title_axis_titles_and_a_legend_for_its_series() -> None:
    """The figure walk: a reader can tell what every chart shows and whose
    line is whose, one line included."""
    for name, figure in _every_chart().items():
        assert figure.layout.title.text, name
        assert figure.layout.xaxis.title.text, f"{name}: no x-axis title"
        # Rows that name their methods need no axis title.
        rows = figure.layout.yaxis.categoryarray is not None
        assert figure.layout.yaxis.title.text or rows, f"{name}: no y-axis title"
        series = figures.text.legend_traces(figure)
        if len(series) > 1:
            assert all(t.name for t in series), f"{name}: a series without a name"
        # Bars whose category is their own name are labelled on the axis instead.
        on_axis = all(list(t.x) == [t.name] for t in series)
        if (len(series) > 1 and not on_axis) or name.endswith("one method"):
            assert figure.layout.showlegend is not False, f"{name}: no legend"
            if len(series) == 1:
                assert figure.layout.showlegend is True, f"{name}: one line, no legend"


def test_the_breakdown_stacks_bias_and_variance_to_each_methods_mse_ratio() -> None:
    """Bias² and variance over Base's MSE stack to the method's MSE ratio, rows lowest
    first; a method past the cut keeps its parts' proportions and has its value written."""
    summary = _per_item(ALL).summary
    figure = figures.error_breakdown(
        summary, query="every value's frequency", recommended="Norm-Sub"
    )
    bias, variance = figure.data[:2]
    rows = summary.set_index("method").loc[list(bias.y)]
    base = float(rows.loc["Base", "mse"])
    assert list(rows["mse"]) == sorted(rows["mse"])
    end = figure.layout.xaxis.range[1]
    total = rows["mse"].to_numpy() / base
    drawn = np.asarray(bias.x) + np.asarray(variance.x)
    np.testing.assert_allclose(drawn, np.minimum(total, end), rtol=1e-12)
    np.testing.assert_allclose(
        np.asarray(bias.x) / drawn, rows["bias_sq"].to_numpy() / rows["mse"].to_numpy()
    )
    cut = {a.y: a.text for a in figure.layout.annotations}
    assert set(cut) == set(rows.index[total > end])
    for method, text in cut.items():
        assert text.startswith(f"{total[list(rows.index).index(method)]:.3g}")
    assert figure.layout.barmode == "stack" and figure.layout.xaxis.range[0] == 0
    assert "every value's frequency" in figure.layout.title.subtitle.text


def _answer(protocol: str, epsilon: float | None, method: str = "Base", helps: bool = False):
    from types import SimpleNamespace  # noqa: PLC0415

    base = None if epsilon is None else (epsilon * 1.5 if helps else epsilon)
    return SimpleNamespace(
        protocol=protocol,
        method=method,
        epsilon=epsilon,
        epsilon_low=None if epsilon is None else epsilon * 0.9,
        epsilon_high=None if epsilon is None else epsilon * 1.1,
        base_epsilon=base,
        base_epsilon_low=base,
        base_epsilon_high=base,
        post_processing_helps=helps,
    )


def test_every_protocol_s_epsilon_is_one_row_smallest_first_with_the_target_unmet_said() -> None:
    answers = [
        _answer("GRR", 2.4),
        _answer("OLH", 0.6, "Norm-Sub", helps=True),
        _answer("HR", None),
        _answer("SS", 0.77),
    ]
    figure = figures.epsilon_per_protocol(answers, target="each within ±0.5 pp", winner="OLH")
    assert list(figure.layout.yaxis.categoryarray) == ["OLH", "SS", "GRR", "HR"]
    assert (
        figure.layout.xaxis.type == "log"
        and "smaller is more private" in figure.layout.xaxis.title.text
    )
    base, helped = figure.data
    assert list(base.y) == ["OLH", "SS", "GRR"] and list(base.x) == pytest.approx([0.9, 0.77, 2.4])
    assert base.marker.color == figures.method_style("Base")["color"]
    assert base.error_x.visible is False  # exact: no whisker of zero length
    assert list(helped.y) == ["OLH"] and list(helped.marker.color) == [
        figures.method_style("Norm-Sub")["color"]
    ]
    assert helped.x[0] + helped.error_x.array[0] == pytest.approx(0.66)
    assert [a.y for a in figure.layout.annotations] == ["HR"]
    assert "not met" in figure.layout.annotations[0].text
    band = figure.layout.shapes[0]
    assert band.y0 < 0 < band.y1  # the winner's row, first
    assert figure.layout.showlegend is True


def test_a_histogram_keeps_its_plot_area_whatever_its_labels() -> None:
    """Long labels are cut on the axis (whole on hover) and the figure grows by their
    height, so rotated labels never squash the bars."""
    from ldpcore.present.figures import histograms  # noqa: PLC0415

    long = ["Democratic Republic of the Congo", "Saint Vincent and the Grenadines", "Chad"]
    short = figures.top_values(["a", "b", "c"], [3, 2, 1])
    cut = figures.top_values(long, [3, 2, 1])
    assert all(len(t) <= histograms.LABEL_CHARS for t in cut.layout.xaxis.ticktext)
    assert list(cut.data[0].hovertext) == long  # whole, where a reader points
    grown = cut.layout.height - short.layout.height
    assert grown == histograms.LABEL_PX * (histograms.LABEL_CHARS - 1)


def test_the_wall_s_class_chart_reads_from_the_back_row() -> None:
    from ldpcore.present.figures import histograms  # noqa: PLC0415

    table = pd.DataFrame(
        {
            "value": ["a", "b"],
            "base_estimate": [0.6, 0.4],
            "estimate": [0.6, 0.4],
            "low": [0.5, 0.3],
            "high": [0.7, 0.5],
        }
    )
    desk = figures.poll_estimates(table, "Norm-Sub")
    wall = figures.poll_estimates(table, "Norm-Sub", wall=True)
    assert wall.layout.font.size == histograms.WALL_FONT > 12
    assert wall.layout.height >= desk.layout.height
    # The legend sits under the title, above the plot, as on every chart.
    for figure in (desk, wall):
        assert figure.layout.legend.orientation == "h" and figure.layout.legend.y < 1
        assert figure.layout.legend.yanchor == "top" and figure.layout.title.y == 1


def test_the_lesson_s_first_step_counts_the_reports_from_zero() -> None:
    """Step 1 is a chart: one bar per option, its height the reports that support it,
    on a linear axis from 0, each bar's count written on it; the wall's text enlarged."""
    from ldpcore.present.figures import histograms  # noqa: PLC0415

    options, support = ("Walk", "Bus <b>", "Car"), (4, 0, 9)
    for wall in (False, True):
        figure = figures.poll_reports(options, support, wall=wall)
        (bars,) = figure.data
        assert bars.type == "bar" and list(bars.y) == list(support)
        assert list(bars.text) == ["4", "0", "9"]
        assert figure.layout.yaxis.rangemode == "tozero" and figure.layout.yaxis.type is None
        assert "&lt;b&gt;" in figure.layout.xaxis.ticktext[1]  # the teacher's text as typed
        assert (figure.layout.font.size == histograms.WALL_FONT) is wall
