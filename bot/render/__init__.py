"""Moved to `bot.sheet` (issue 10): this name stays until every caller imports `bot.sheet`."""

from bot.sheet import Correction, Layout, layout_sheet, render_sheet_png

__all__ = ["Correction", "Layout", "layout_sheet", "render_sheet_png"]
