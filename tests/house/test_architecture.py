"""The house's rules that import-linter cannot see: behaviour lives behind the registries.

A method's interval kind, a protocol's browser parameters and report checks and its
likelihood are attributes or methods of the registered classes (ARCHITECTURE.md), so
no code outside a class's own file asks which class it holds: no ``isinstance``
against a registered protocol or method, and no comparison of an object's (or a
variable's) name with a registered name.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

from ldpcore.postprocess import METHODS
from ldpcore.protocols import PROTOCOLS

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted([*ROOT.joinpath("ldpcore").rglob("*.py"), *ROOT.joinpath("pages").rglob("*.py")])
#: What a switch asks for: an object's or a variable's registered name.
ASKED = {"name", "protocol", "method"}


def _registered() -> dict[str, Path]:
    """Every registered class's name and registry name, with the file that defines it."""
    found: dict[str, Path] = {}
    for registry in (PROTOCOLS, METHODS):
        for name, cls in registry.items():
            home = Path(inspect.getfile(cls)).resolve()
            found[cls.__name__] = home
            found[name] = home
    return found


def _asks(side: ast.expr) -> bool:
    return (isinstance(side, ast.Attribute) and side.attr in ASKED) or (
        isinstance(side, ast.Name) and side.id in ASKED
    )


def _switches(path: Path, registered: dict[str, Path]) -> list[str]:
    """``isinstance(x, Registered)`` and ``x.name == "Registered"`` outside its file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []

    def foreign(name: str) -> bool:
        return name in registered and registered[name] != path.resolve()

    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in {"isinstance", "issubclass"}
            and len(node.args) == 2
        ):
            kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
            names = [k.id for k in kinds if isinstance(k, ast.Name)]
            found += [f"{path.name}:{node.lineno} isinstance … {n}" for n in names if foreign(n)]
        # A switch asks which registered thing it holds (``protocol.name == "OLH"``,
        # ``name in ("GRR", "OUE")``); filtering a table's rows by a method's name is
        # reading data, not a switch, and is allowed.
        if isinstance(node, ast.Compare) and any(map(_asks, [node.left, *node.comparators])):
            for side in [node.left, *node.comparators]:
                values = side.elts if isinstance(side, ast.Tuple | ast.Set | ast.List) else [side]
                found += [
                    f"{path.name}:{node.lineno} compares with {value.value!r}"
                    for value in values
                    if isinstance(value, ast.Constant)
                    and isinstance(value.value, str)
                    and foreign(value.value)
                    # Base, the unbiased estimate itself, is every comparison's reference.
                    and value.value != "Base"
                ]
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_type_or_name_switch_outside_a_registered_class(path: Path) -> None:
    assert _switches(path, _registered()) == []


def test_the_check_finds_a_switch(tmp_path: Path) -> None:
    """The rule has teeth: a planted switch on a protocol and on a method is found."""
    planted = tmp_path / "planted.py"
    planted.write_text(
        "def f(p, m):\n"
        "    if p.name == 'OLH':\n"
        "        return 1\n"
        "    return isinstance(m, Bayes)\n",
        encoding="utf-8",
    )
    assert len(_switches(planted, _registered())) == 2


def test_only_the_launcher_uses_streamlit_internals_and_on_the_version_tested() -> None:
    """The app is written against Streamlit's public API. The launcher's few
    internals (no public API runs the server in-process after a preload) are listed
    in ``launch.PRIVATE_STREAMLIT``, tested on ``launch.STREAMLIT_TESTED``, which the
    installed Streamlit must be and ``pyproject.toml`` pins."""
    import importlib.metadata  # noqa: PLC0415

    from pages.app_layer.serving import launch  # noqa: PLC0415

    root = Path(__file__).resolve().parents[2]
    private = re.compile(
        r"^\s*(?:from (streamlit\.[\w.]+) import (\w+)|import (streamlit\.[\w.]+))", re.M
    )
    found: dict[str, set[str]] = {}
    for path in [*(root / "pages").rglob("*.py"), root / "app.py"]:
        for match in private.finditer(path.read_text(encoding="utf-8")):
            module = match.group(1) or match.group(3)
            full = (
                f"{module}.{match.group(2)}"
                if match.group(2) and module == "streamlit.web"
                else module
            )
            found.setdefault(str(path.relative_to(root)), set()).add(full)
    # "from streamlit import runtime" is private too.
    for path in [*(root / "pages").rglob("*.py"), root / "app.py"]:
        if re.search(r"^\s*from streamlit import (runtime|web)\b", path.read_text(), re.M):
            found.setdefault(str(path.relative_to(root)), set()).add("streamlit.runtime")
    assert set(found) <= {"pages/app_layer/serving/launch.py"}, found
    assert found.get("pages/app_layer/serving/launch.py", set()) <= set(launch.PRIVATE_STREAMLIT)
    installed = importlib.metadata.version("streamlit")
    assert installed.startswith(launch.STREAMLIT_TESTED + "."), installed
    pyproject = (root / "pyproject.toml").read_text()
    major, minor = launch.STREAMLIT_TESTED.split(".")
    assert f'"streamlit>={major}.{minor},<{major}.{int(minor) + 1}"' in pyproject


APP_LAYER = Path(__file__).resolve().parents[2] / "pages" / "app_layer"
STREAMLIT_IMPORT = re.compile(r"^\s*(?:import streamlit\b|from streamlit[\w.]* import )", re.M)


def _app_modules() -> list[Path]:
    return sorted(p for p in APP_LAYER.rglob("*.py") if p.name != "__init__.py")


@pytest.mark.parametrize("path", _app_modules(), ids=lambda p: str(p.relative_to(APP_LAYER)))
def test_every_app_layer_module_binds_streamlit_and_stays_short(path: Path) -> None:
    """The app layer binds the core to Streamlit: a module that needs no Streamlit
    belongs in the core (``ldpcore.serving`` and the rest), where it is tested alone."""
    text = path.read_text(encoding="utf-8")
    assert STREAMLIT_IMPORT.search(text), f"{path.name} imports no Streamlit: move it to the core"
    assert len(text.splitlines()) <= 300, f"{path.name} is over 300 lines: split it by concept"


def test_the_app_layer_s_size_beside_the_pages_is_the_one_stated() -> None:
    """ARCHITECTURE.md states the app layer's lines against the pages'; growth is said."""
    root = APP_LAYER.parent.parent
    app = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in APP_LAYER.rglob("*.py"))
    pages = sum(
        len(p.read_text(encoding="utf-8").splitlines()) for p in (root / "pages").glob("*.py")
    )
    text = " ".join((root / "ARCHITECTURE.md").read_text(encoding="utf-8").split())
    found = re.search(r"The app layer \(`pages/app_layer/`\) is ([\d,]+) lines, ([\d.]+)×", text)
    assert found, "ARCHITECTURE.md no longer states the app layer's size"
    stated = int(found.group(1).replace(",", ""))
    # Stated to the nearest 50 lines, so a small edit does not need the document edited.
    assert abs(app - stated) <= 50, (app, stated)
    assert abs(app / pages - float(found.group(2))) <= 0.05, (app, pages)


def test_the_bare_install_is_the_engine_and_each_extra_is_named() -> None:
    """``pip install ldpcore`` brings numpy, scipy and pandas; every optional module the
    code names (``ldpcore.extras``) comes with the extra its install line says, and a
    missing one reads as that install line."""
    import tomllib  # noqa: PLC0415

    from ldpcore.extras import OPTIONAL_MODULES, install_hint, missing_extra  # noqa: PLC0415

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = {re.split(r"[<>=\[ ]", spec)[0] for spec in project["dependencies"]}
    assert names == {"numpy", "scipy", "pandas"}
    extras = project["optional-dependencies"]

    def brings(extra: str) -> set[str]:
        """The distributions an extra installs, its own ``ldpcore[...]`` expanded."""
        found: set[str] = set()
        for spec in extras[extra]:
            name, _, rest = re.split(r"[<>= ]", spec)[0].partition("[")
            if name == "ldpcore":
                found |= set().union(*(brings(e) for e in rest.rstrip("]").split(",")))
            else:
                found |= {name, *rest.rstrip("]").split(",")} - {""}
        return found

    for module, (extra, _purpose) in OPTIONAL_MODULES.items():
        assert module in brings(extra), (module, extra)
    assert set(OPTIONAL_MODULES) <= brings("app") | brings("cluster")
    missing = ModuleNotFoundError("No module named 'plotly.graph_objects'")
    missing.name = "plotly.graph_objects"
    assert missing_extra(missing) == install_hint("plotly")
    assert "pip install 'ldpcore[plots]'" in install_hint("plotly")
    unknown = ModuleNotFoundError("No module named 'numpyy'")
    unknown.name = "numpyy"
    assert missing_extra(unknown) is None


#: The most lines a module of the core may have: past it, split it by concept.
MODULE_LINES = 600


@pytest.mark.parametrize(
    "path",
    sorted(ROOT.joinpath("ldpcore").rglob("*.py")),
    ids=lambda p: str(p.relative_to(ROOT / "ldpcore")),
)
def test_no_core_module_is_over_the_limit(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MODULE_LINES, f"{path.name} has {lines} lines: split it by concept"


ISSUE_NUMBER = re.compile(r"\bissues? \d+|\bissue-\d+", re.IGNORECASE)


@pytest.mark.parametrize(
    "path",
    [*SOURCES, ROOT / "app.py", *ROOT.joinpath("ldpcore").rglob("*.js")],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_the_code_gives_reasons_not_issue_numbers(path: Path) -> None:
    """A reader of the code has no issue tracker: a comment says why, not which issue."""
    found = [
        f"{path.name}:{number}"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if ISSUE_NUMBER.search(line)
    ]
    assert found == []


#: What makes a frequency oracle, and nothing else (ARCHITECTURE.md, "Add a protocol"):
#: its (p, q), estimator and variances, likelihood, samplers, randomizer and aggregation,
#: its rounds' chain, and its privacy channel. A feature's hooks live in the feature.
ORACLE_CONTRACT = {
    "p", "q", "spent_epsilon", "parameters",
    "variance", "approx_variance", "estimate", "estimate_from_tallies", "likelihood_model",
    "sample_support_counts", "sample_tallies", "support_from_tallies", "tally",
    "randomize", "aggregate", "rounds_chain",
    "worst_case_ratio", "channel_matrix", "support_matrix", "distinguishing_event",
}  # fmt: skip


def test_the_oracle_is_a_small_contract() -> None:
    from ldpcore.protocols.base import FrequencyOracle  # noqa: PLC0415

    public = {
        name
        for name, member in vars(FrequencyOracle).items()
        if not name.startswith("_")
        and (callable(member) or isinstance(member, property | classmethod | staticmethod))
    }
    assert public == ORACLE_CONTRACT
    assert len(public) <= 20
