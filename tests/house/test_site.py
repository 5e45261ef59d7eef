"""The documentation site, built as ``make docs`` builds it, and the README as its front door.

The site is built once for this module (strict mode: any warning fails the build), then
read as a person would reach it: every command, protocol, method and page is in it, each
link and picture it holds leads somewhere, and the code its pages show runs.
"""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from devtools import docs_pages
from devtools.screenshots import SHOTS, recorded

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
#: The README's limit: a front door, with everything else in the site.
README_LINES = 250


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built by the command ``make docs`` runs, into a folder of this test's."""
    folder = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(folder)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert built.returncode == 0, built.stderr[-4000:]
    return folder


def _text(path: Path) -> str:
    """A built page's text, tags dropped and entities read, whitespace made single."""
    raw = re.sub(r"<[^>]+>", " ", path.read_text(encoding="utf-8"))
    return " ".join(html.unescape(raw).split())


def test_every_subcommand_is_in_the_site_with_its_own_help(site: Path) -> None:
    page = _text(site / "reference" / "commands.html")
    for name, text in docs_pages.command_helps().items():
        usage = " ".join(text.split("\n\n", 1)[0].split())
        assert usage in page, f"the site's command reference lacks {name}'s --help"


def test_every_registered_protocol_and_method_is_in_the_site(site: Path) -> None:
    from ldpcore.postprocess import METHODS  # noqa: PLC0415 (read at test time: toys)
    from ldpcore.protocols import PROTOCOLS  # noqa: PLC0415

    for page, registry in (("protocols", PROTOCOLS), ("methods", METHODS)):
        built = (site / "reference" / f"{page}.html").read_text(encoding="utf-8")
        missing = [
            n for n in registry if f"<code>{html.escape(n, quote=False)}</code>" not in built
        ]
        assert not missing, f"reference/{page}.html does not list {missing}"
        for name, cls in registry.items():
            assert html.escape(cls.description, quote=False).split("\n")[0][:40] in built, name


def test_every_page_of_the_app_is_in_the_site_with_its_picture(site: Path) -> None:
    from pages.app_layer.controls.navigation import PAGES  # noqa: PLC0415

    gallery = (site / "app" / "pages.html").read_text(encoding="utf-8")
    record = recorded()
    for _path, title, _extra in PAGES:
        assert f">{html.escape(title, quote=False)}<" in gallery, title
        shown = [name for name, shot in record.items() if shot["title"] == title]
        assert shown, f"no picture of the {title} page (make screenshots)"
        for name in shown:
            assert f"assets/screens/{name}.png" in gallery, name


def test_every_benchmark_section_is_a_results_page_with_its_command(site: Path) -> None:
    _opening, sections = docs_pages.benchmark_sections()
    index = _text(site / "results" / "index.html")
    assert "Every target, where it stands" in index  # the targets lead the section
    for section in sections[2:]:
        page = site / "results" / f"{section.slug}.html"
        assert page.exists(), section.title
        for command in docs_pages.commands_of(section.body):
            assert command in _text(page), (section.title, command)


class _Links(HTMLParser):
    """Every href and src of a page, and every id it defines."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name in {"href", "src"}:
                self.links.append(value)
            elif name == "id":
                self.ids.add(value)


def test_every_link_and_picture_in_the_built_site_leads_somewhere(site: Path) -> None:
    pages: dict[Path, _Links] = {}
    for path in site.rglob("*.html"):
        parser = _Links()
        parser.feed(path.read_text(encoding="utf-8"))
        pages[path.resolve()] = parser
    broken = []
    checked = 0
    for path, parser in pages.items():
        for link in parser.links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith(("//", "mailto:", "data:", "javascript:")):
                continue
            checked += 1
            # 404.html is served at any depth, so its links start at the site's root.
            base = site if parts.path.startswith("/") else path.parent
            target = path if not parts.path else (base / unquote(parts.path.lstrip("/"))).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{path.relative_to(site)} → {link}")
            elif parts.fragment and target in pages and parts.fragment not in pages[target].ids:
                broken.append(f"{path.relative_to(site)} → {link} (no such anchor)")
    assert checked > 100 * len(pages) // 10, checked  # the parser found the links
    assert not broken, "\n".join(broken[:30])


def test_the_site_reaches_nothing_off_this_machine(site: Path) -> None:
    """Built offline and read offline: no page loads a script, style or font from the web."""
    loaded = []
    for path in site.rglob("*.html"):
        for link in re.findall(
            r'<(?:script|link)[^>]+(?:src|href)="(https?:[^"]+)"', path.read_text()
        ):
            loaded.append(f"{path.name}: {link}")
    assert not loaded, loaded[:10]


def test_the_readme_is_a_front_door_that_opens_with_a_picture() -> None:
    lines = README.splitlines()
    assert len(lines) <= README_LINES, f"the README has {len(lines)} lines; at most {README_LINES}"
    first = next(line for line in lines[1:] if line.strip())
    picture = re.fullmatch(r"!\[[^\]]+\]\(([^)]+\.png)\)", first.strip())
    assert picture, f"the README's first thing after its title is not a picture: {first!r}"
    assert (ROOT / picture.group(1)).exists(), picture.group(1)
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README):
        if not target.startswith("http"):
            assert (ROOT / target).exists(), f"the README links to {target}, which is not there"


def test_the_pictures_record_names_every_picture_and_a_page_of_the_app() -> None:
    """Every picture the screenshot script declares is in git with its record; a
    picture's page is one of the app's (the browser tier checks they still match)."""
    from pages.app_layer.controls.navigation import PAGES  # noqa: PLC0415

    record = recorded()
    assert list(record) == [shot.name for shot in SHOTS], "run make screenshots"
    titles = {title for _path, title, _extra in PAGES}
    for shot in SHOTS:
        assert record[shot.name]["title"] == shot.title in titles, shot.name
        png = docs_pages.SCREENS_RECORD.parent / f"{shot.name}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", png


def _python_blocks() -> list[tuple[str, str]]:
    blocks = []
    for path in sorted((ROOT / "docs").rglob("*.md")):
        for code in re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S):
            blocks.append((path.relative_to(ROOT).as_posix(), code))
    return blocks


@pytest.mark.parametrize(("page", "code"), _python_blocks(), ids=lambda value: value[:30])
def test_the_python_the_site_shows_runs(page: str, code: str) -> None:
    """Each page's Python example, run as a reader would paste it."""
    ran = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert ran.returncode == 0, f"{page}:\n{ran.stderr[-2000:]}"
