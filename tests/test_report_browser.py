"""The report in a real browser: headless Chromium, driven by Playwright.

Every chart must render (Plotly's SVG in each), with no script error, no network
request and no untrusted name turned into markup. Screenshots are written to the
test's temporary folder (or to ``$OFC_REPORT_SCREENSHOTS`` to keep them). The
tests skip only when no Chromium is installed (``apt-get install chromium``); CI
installs it. Playwright drives the system Chromium and needs no browser download.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from ofc_stats.report import write_report
from tests.test_report import EVIL_PLAYER, EVIL_TABLE, build_report_warehouse

CHROMIUM = next((path for path in (os.environ.get("OFC_STATS_CHROMIUM"),
                                   shutil.which("chromium"), shutil.which("chromium-browser"))
                 if path and Path(path).exists()), None)
if CHROMIUM is None and os.environ.get("OFC_STATS_REQUIRE_BROWSER"):
    # CI installs Chromium and sets this: a missing browser must fail, not skip.
    raise RuntimeError("OFC_STATS_REQUIRE_BROWSER is set but no Chromium is installed")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium installed (apt-get install chromium, or set "
                             "OFC_STATS_CHROMIUM to its path)")
CHART_KEYS = ["cumulative", "sessions", "fouls", "fantasyland", "royalties", "rows",
              "head-to-head", "categories"]
LAPTOP = {"width": 1366, "height": 768}


@dataclass
class Visit:
    """A page opened in the browser, with what happened while it loaded."""

    page: Page
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("browser")
    warehouse = build_report_warehouse(folder / "warehouse")
    return {name: Path(write_report(warehouse, player=player, out=folder / f"{name}.html").path)
            for name, player in (("overview", None), ("alice", "alice"),
                                 ("evil", EVIL_PLAYER))}


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"])
        yield chromium
        chromium.close()


@pytest.fixture
def visit(browser: Browser) -> Iterator[Any]:
    contexts = []

    def open_report(path: Path, offline: bool = False) -> Visit:
        context = browser.new_context(viewport=LAPTOP)
        contexts.append(context)
        if offline:
            context.set_offline(True)
        page = context.new_page()
        seen = Visit(page)
        page.on("pageerror", lambda error: seen.errors.append(str(error)))
        page.on("console", lambda message: seen.errors.append(message.text)
                if message.type == "error" else None)
        page.on("request", lambda request: seen.requests.append(request.url))

        def on_dialog(dialog: Any) -> None:
            seen.dialogs.append(dialog.message)
            dialog.dismiss()

        page.on("dialog", on_dialog)
        page.goto(path.as_uri(), wait_until="load")
        page.wait_for_function(
            "n => document.querySelectorAll('.plot .main-svg').length >= n",
            arg=len(CHART_KEYS), timeout=15_000)
        return seen

    yield open_report
    for context in contexts:
        context.close()


def screenshot_folder(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("OFC_REPORT_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def drawn(page: Page, key: str) -> dict[str, Any]:
    """What Plotly drew for one chart: its SVG layers and traces."""
    result: dict[str, Any] = page.evaluate("""key => {
        const plot = document.getElementById('plot-' + key);
        return {svgs: plot.querySelectorAll('svg.main-svg').length,
                traces: (plot.data || []).length,
                marks: plot.querySelectorAll('.trace, .hm, image').length,
                width: plot.getBoundingClientRect().width};
    }""", key)
    return result


@pytest.mark.parametrize("name", ["overview", "alice"])
def test_every_chart_renders_without_errors_and_looks_whole(
        reports: dict[str, Path], visit: Any, name: str, tmp_path: Path) -> None:
    seen = visit(reports[name])
    for key in CHART_KEYS:
        chart = drawn(seen.page, key)
        assert chart["svgs"] >= 1, key
        assert chart["traces"] >= 1, key
        assert chart["marks"] >= 1, key
        assert chart["width"] > 300, key
    assert seen.errors == []
    # Usable on a laptop: nothing sticks out sideways.
    assert seen.page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    shot = screenshot_folder(tmp_path) / f"report-{name}.png"
    seen.page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 50_000


def test_hover_shows_the_numbers(reports: dict[str, Path], visit: Any) -> None:
    page = visit(reports["alice"]).page
    page.evaluate("""() => Plotly.Fx.hover('plot-cumulative',
                                              [{curveNumber: 0, pointNumber: 3}])""")
    text = page.locator("#plot-cumulative .hoverlayer").text_content() or ""
    assert "hand 3" in text  # the line starts at hand 0, then one point per hand
    assert "points" in text


def test_untrusted_names_show_as_text_and_never_run(
        reports: dict[str, Path], visit: Any) -> None:
    player = visit(reports["evil"])
    assert player.dialogs == []
    assert player.errors == []
    assert player.page.locator("h1 .subject").inner_text() == EVIL_PLAYER
    assert EVIL_TABLE in player.page.locator(".hands-section").inner_text()
    # Only the page's own four script elements: none came from a name.
    assert player.page.evaluate("document.scripts.length") == 4
    assert player.page.evaluate("document.querySelectorAll('img').length") == 0
    overview = visit(reports["overview"])
    assert overview.dialogs == []
    legend = overview.page.locator("#plot-cumulative .legendtext").all_text_contents()
    assert EVIL_PLAYER in legend
    ticks = overview.page.locator("#plot-head-to-head .xtick text").all_text_contents()
    assert EVIL_PLAYER in ticks
    table = overview.page.locator("table.players").inner_text()
    assert EVIL_PLAYER in table


def test_the_report_makes_no_network_request(reports: dict[str, Path], visit: Any) -> None:
    for name in ("overview", "alice"):
        seen = visit(reports[name])
        assert seen.requests == [reports[name].as_uri()]
    offline = visit(reports["overview"], offline=True)  # and it draws with no network at all
    assert offline.errors == []
    assert all(drawn(offline.page, key)["svgs"] >= 1 for key in CHART_KEYS)


@pytest.fixture(scope="module")
def sample_reports(sample_warehouse: Any, tmp_path_factory: pytest.TempPathFactory
                   ) -> dict[str, Path]:
    """The sample data's overview (ten players in its legends) and one player's report."""
    folder = tmp_path_factory.mktemp("sample-reports")
    return {name: Path(write_report(sample_warehouse, player=player,
                                    out=folder / f"{name}.html").path)
            for name, player in (("sample-overview", None), ("sample-player", "ColdWhale"))}


LAYOUT_PROBLEMS = """() => {
  const box = element => element.getBoundingClientRect();
  const hits = (a, b) => a.left < b.right - 1 && b.left < a.right - 1
                         && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const inside = (a, b) => a.left >= b.left - 1 && a.right <= b.right + 1
                           && a.top >= b.top - 1 && a.bottom <= b.bottom + 1;
  const problems = [];
  let entries = 0;
  for (const plot of document.querySelectorAll('.plot')) {
    const key = plot.id.replace('plot-', '');
    const figure = box(plot.querySelector('svg.main-svg'));
    const blockers = [
      ['the toolbar', plot.querySelectorAll('.modebar')],
      ['the plot area', plot.querySelectorAll('.nsewdrag')],
      ['an axis title', plot.querySelectorAll('.xtitle, .ytitle')],
      ['a tick label', plot.querySelectorAll('.xtick text, .ytick text')],
      ['a colour bar', plot.querySelectorAll('.colorbar')]];
    for (const entry of plot.querySelectorAll('.legend .traces')) {
      entries += 1;
      const name = entry.textContent;
      const where = box(entry);
      if (!inside(where, figure)) problems.push(`${key}: legend entry ${name} outside`);
      for (const [what, elements] of blockers) {
        for (const element of elements) {
          if (hits(where, box(element))) problems.push(`${key}: ${what} covers ${name}`);
        }
      }
    }
  }
  for (const grid of document.querySelectorAll('.charts, .hands-grid')) {
    const frame = box(grid);
    const rows = {};
    for (const child of grid.children) {
      const b = box(child);
      (rows[Math.round(b.top)] = rows[Math.round(b.top)] || []).push(b);
    }
    for (const [top, row] of Object.entries(rows)) {
      const right = Math.max(...row.map(b => b.right));
      if (right < frame.right - 2) {
        problems.push(`${grid.className}: the row at ${top} px leaves ${
          Math.round(frame.right - right)} px empty`);
      }
    }
  }
  return {problems, entries};
}"""


@pytest.mark.parametrize("width", [1400, 900])
@pytest.mark.parametrize("name", ["sample-overview", "sample-player", "alice"])
def test_no_legend_entry_is_covered_and_no_half_grid_is_empty(
        reports: dict[str, Path], sample_reports: dict[str, Path], browser: Browser,
        name: str, width: int, tmp_path: Path) -> None:
    path = {**reports, **sample_reports}[name]
    context = browser.new_context(viewport={"width": width, "height": 900})
    try:
        page = context.new_page()
        page.goto(path.as_uri(), wait_until="load")
        page.wait_for_function("n => document.querySelectorAll('.plot .main-svg').length >= n",
                               arg=len(CHART_KEYS), timeout=15_000)
        for key in CHART_KEYS:  # the toolbar shows while the pointer is over a chart
            page.locator(f"#plot-{key}").hover()
            page.wait_for_timeout(50)
        found = page.evaluate(LAYOUT_PROBLEMS)
        assert found["problems"] == []
        if name.startswith("sample"):
            assert found["entries"] >= 10  # the legends were looked at
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        overview = "overview" in name
        for key in ("cumulative",) if overview else ("cumulative", "sessions", "fouls"):
            # counts tick at whole numbers (the overview's sessions are per player)
            ticks = page.locator(f"#plot-{key} .xtick text").all_text_contents()
            assert ticks, key
            assert all(re.fullmatch(r"[\d,]+", tick.replace("−", "")) for tick in ticks), (
                key, ticks)
        shot = screenshot_folder(tmp_path) / f"report-{name}-{width}.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 50_000
    finally:
        context.close()


def test_the_fantasyland_review_draws_played_beside_best(
        reports: dict[str, Path], visit: Any, tmp_path: Path) -> None:
    seen = visit(reports["alice"])
    section = seen.page.locator(".review-section")
    assert section.is_visible()
    misses = section.locator("article.miss")
    assert misses.count() >= 1
    first = misses.first
    assert first.locator(".board.subject").count() == 1  # played
    assert first.locator(".board.best").count() == 1
    best = first.locator(".board.best")
    assert best.locator(".card:not(.e)").count() == 13  # no discard recorded: 13 cards
    # Suits keep the page's four colours: a heart red, a spade near black.
    colours = seen.page.evaluate("""() => {
        const colour = s => getComputedStyle(
            document.querySelector('.review-section .card.' + s)).color;
        return {h: colour('h'), s: colour('s')};
    }""")
    assert colours["h"] == "rgb(220, 38, 38)"
    assert colours["s"] == "rgb(17, 24, 39)"
    # Played and best side by side on a laptop, nothing sticking out.
    played_box = first.locator(".board.subject").bounding_box()
    best_box = best.bounding_box()
    assert played_box is not None
    assert best_box is not None
    assert abs(played_box["y"] - best_box["y"]) < 1
    assert seen.page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert seen.errors == []
    section.screenshot(path=str(screenshot_folder(tmp_path) / "review-alice.png"))
