"""One layout, two renderers (issue 15, Deliver 5): the SVG writes the same shapes and text runs
as the PNG draws, and links every running total to the record that wrote it."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace
from fractions import Fraction

import pytest

from bot.sheet import band_key, sheet_svg
from bot.sheet.layout import layout_sheet
from bot.sheet.model import Correction, Layout, RunKind
from scoring.deal import Column
from scoring.sheet import Band, Sheet
from tests.render.factories import closed_pool_sheet, random_sheet

NS = "{http://www.w3.org/2000/svg}"


def parse(layout: Layout, sheet: Sheet) -> ET.Element:
    return ET.fromstring(sheet_svg(layout, sheet))


@pytest.mark.parametrize("players", [3, 4])
def test_every_text_run_of_the_layout_is_one_svg_text_in_the_same_place(players: int) -> None:
    sheet = random_sheet(players, deals=30, seed=players)
    layout = layout_sheet(sheet, "ru")
    svg = parse(layout, sheet)
    assert svg.get("viewBox") == f"0 0 {layout.width} {layout.height}"
    texts = svg.findall(f"{NS}text")
    assert [t.text for t in texts] == [run.text for run in layout.runs]
    for element, run in zip(texts, layout.runs, strict=True):
        assert abs(float(element.get("x", "nan")) - run.x) < 0.01
        assert element.get("fill") == run.color
        assert int(element.get("font-size", "0")) == run.size
    shapes = [e for e in svg if e.tag != f"{NS}text"]
    assert len(shapes) == len(layout.shapes)


def test_each_total_names_the_deal_and_the_band_that_wrote_it() -> None:
    sheet = random_sheet(3, deals=20, seed=5)
    layout = layout_sheet(sheet, "en")
    linked = [e for e in parse(layout, sheet).findall(f"{NS}text") if e.get("data-record")]
    runs = [r for r in layout.runs if r.record is not None and r.record >= 0]
    assert len(linked) == len(runs) > 20
    for element, run in zip(linked, runs, strict=True):
        assert run.band is not None
        index = int(element.get("data-record", "-1"))
        assert index == run.record
        assert int(element.get("data-deal", "-1")) == sheet.records[index].number
        assert element.get("data-band") == band_key(run.band)
        band_entries = [
            e
            for e in sheet.records[index].entries
            if (e.player, e.column, e.target)
            == (run.band.player, run.band.column, run.band.target)
        ]
        assert band_entries, f"deal {index} wrote nothing into {run.band}"


def test_band_keys_name_seat_column_and_target() -> None:
    assert band_key(Band(0, Column.POOL)) == "0:pool"
    assert band_key(Band(2, Column.WHISTS, 1)) == "2:whists:1"


def test_a_corrected_value_and_a_closed_pool_are_drawn_as_in_the_png() -> None:
    sheet = closed_pool_sheet()
    band = Band(0, Column.POOL)
    layout = layout_sheet(sheet, "en", corrections={(band, 0): Correction(Fraction(8), 1)})
    texts = [e.text for e in parse(layout, sheet).findall(f"{NS}text")]
    assert "8." in texts and "✔" in texts
    assert [r.kind for r in layout.runs].count(RunKind.WRONG) == 1


def test_text_is_escaped() -> None:
    sheet = random_sheet(3, deals=2, seed=1)
    layout = layout_sheet(sheet, "en")
    runs = tuple(replace(r, text="<&>") if r.kind is RunKind.NAME else r for r in layout.runs)
    svg = sheet_svg(Layout(layout.width, layout.height, layout.shapes, runs), sheet)
    assert "&lt;&amp;&gt;" in svg and "<&>" not in svg
    ET.fromstring(svg)
