"""The import graph of the product follows the layers of docs/architecture.md, enforced by a table:
each layer names the layers it may import (`ALLOWED`), and every import of every module is checked
against it — read with `ast`, so an import inside a function or under `TYPE_CHECKING` counts too,
and so does a module named to `importlib.import_module` or `__import__` (a rule must not reach up,
not even by name). Nothing imports `handlers/` but the entry point, there is no cycle, and the rules
engine imports the standard library alone.

The table keeps the ports pointing inward: the domain's types and the `Store`/`Repo` port
(`bot.domain`) lie below both the application core and the storage, so storage implements the
core's port and the core names no database; the web layer calls the service and the core's
`Announce` port, never the Telegram glue; texts and handlers name no storage; storage reads no
settings. The operator's tools (the log set-up, the start-up wait, `backup`, `migrate-db`) are a
layer of their own above the core and the storage; `bot.redact`, the one mask of secrets, lies below
everything that prints a setting.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Final

import pytest

ROOT: Final = Path(__file__).resolve().parents[1]
PACKAGES: Final = ("scoring", "locales", "bot", "handlers")

# The layers, each with the module prefixes in it (the longest prefix decides).
LAYERS: Final[dict[str, tuple[str, ...]]] = {
    "locales": ("locales",),
    "scoring": ("scoring",),
    "domain": ("bot.domain",),
    "redact": ("bot.redact",),
    "settings": ("bot.settings", "bot.settings_checks"),
    "sheet": ("bot.sheet",),
    "storage": ("bot.storage",),
    "core": ("bot.core",),
    "texts": ("bot.texts",),
    "tg": ("bot.telegram",),
    "outbound": ("bot.telegram.outbound",),
    "inbound": ("bot.telegram.inbound",),
    "web": ("bot.web",),
    "handlers": ("handlers", "bot.telegram.inbound.handlers"),
    "ops": ("bot.logs", "bot.startup", "bot.backup", "bot.migrate"),
    "entry": ("bot.app", "bot.__main__"),
}
# Which layers each layer may import (its own always).
ALLOWED: Final[dict[str, frozenset[str]]] = {
    "locales": frozenset(),
    "scoring": frozenset({"locales"}),
    "domain": frozenset(),
    "redact": frozenset(),
    "settings": frozenset({"redact"}),
    "sheet": frozenset({"scoring", "locales"}),
    "storage": frozenset({"domain", "redact"}),
    "core": frozenset({"domain", "scoring", "locales"}),
    "texts": frozenset({"core", "domain", "scoring", "locales"}),
    "tg": frozenset({"texts", "core", "domain", "sheet", "settings", "scoring", "locales"}),
    "outbound": frozenset(
        {"tg", "texts", "core", "domain", "sheet", "settings", "scoring", "locales"}
    ),
    "inbound": frozenset(
        {"outbound", "tg", "texts", "core", "domain", "sheet", "settings", "scoring", "locales"}
    ),
    "web": frozenset({"texts", "core", "domain", "sheet", "scoring", "locales"}),
    "handlers": frozenset(
        {"inbound", "outbound", "tg", "texts", "core", "domain", "scoring", "locales"}
    ),
    "ops": frozenset({"settings", "storage", "core", "domain", "redact", "scoring", "locales"}),
    "entry": frozenset(LAYERS) - {"entry"},
}
# Pairs that must stay forbidden whatever the table becomes (importer layer, imported layer).
FORBIDDEN: Final = frozenset(
    {
        ("web", "tg"),
        ("texts", "storage"),
        ("handlers", "storage"),
        ("storage", "settings"),
        ("storage", "core"),
        ("core", "storage"),
        ("tg", "storage"),
        ("inbound", "storage"),
        ("outbound", "storage"),
        ("outbound", "inbound"),
        ("core", "tg"),
        ("domain", "core"),
    }
)
ENTRY: Final = "entry"
# Imports by name still to be removed (none: `replay --sheet` finds the picture by entry point).
PENDING: Final[frozenset[tuple[str, str]]] = frozenset()


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def modules() -> dict[str, Path]:
    """Every product module by its dotted name."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[module_name(path)] = path
    return found


def is_package(name: str) -> bool:
    return modules()[name].name == "__init__.py"


def imported(name: str) -> Iterator[tuple[str, int]]:
    """The absolute names a module imports (`from X import Y` gives X.Y when that is a module),
    with the line of each import."""
    package = name if is_package(name) else name.rpartition(".")[0]
    yield from imports_in(modules()[name].read_text(encoding="utf-8"), package)


def imports_in(source: str, package: str) -> Iterator[tuple[str, int]]:
    """The absolute names `source`, a module of `package`, imports, with their lines."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                yield (full if full in modules() else base), node.lineno
        elif isinstance(node, ast.Call) and _loader(node.func) and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                yield first.value, node.lineno


def _loader(func: ast.expr) -> bool:
    """`importlib.import_module(...)`, `import_module(...)` or `__import__(...)`."""
    if isinstance(func, ast.Attribute):
        return func.attr == "import_module"
    return isinstance(func, ast.Name) and func.id in ("import_module", "__import__")


def layer_of(name: str) -> str | None:
    """The layer a product module belongs to (None for a bare package like `bot`)."""
    best: tuple[str, int] | None = None
    for layer, prefixes in LAYERS.items():
        for prefix in prefixes:
            inside = name == prefix or name.startswith(prefix + ".")
            if inside and (best is None or len(prefix) > best[1]):
                best = (layer, len(prefix))
    return best[0] if best is not None else None


def product(name: str) -> str | None:
    """The product module `name` is or lies in, if any (`bot.telegram.keyboards.JoinCb` → the module)."""
    while name:
        if name in modules():
            return name
        name = name.rpartition(".")[0]
    return None


def edges(*, pending: bool = False) -> Iterator[tuple[str, str, int]]:
    """(importer, imported product module, line) over the whole product; the PENDING ones only
    when asked for."""
    for name in modules():
        for target, line in imported(name):
            module = product(target)
            if (
                module is not None
                and module != name
                and (pending or (name, module) not in PENDING)
            ):
                yield name, module, line


def test_every_product_module_has_a_layer() -> None:
    loose = [n for n in modules() if layer_of(n) is None and not is_package(n)]
    assert loose == [], "add these modules to LAYERS (docs/architecture.md names their folder)"


def test_each_layer_imports_only_the_layers_its_row_of_the_table_allows() -> None:
    wrong = []
    for importer, module, line in edges():
        low, high = layer_of(importer), layer_of(module)
        if low is None or high is None or low == high or high in ALLOWED[low]:
            continue
        wrong.append(
            f"{modules()[importer].relative_to(ROOT)}:{line}: {importer} ({low}) imports "
            f"{module} ({high})"
        )
    assert wrong == []


def test_the_table_forbids_what_must_never_be_imported() -> None:
    """web→tg, texts→storage, handlers→storage, storage→settings and the others of FORBIDDEN
    stay out of the table, and the table allows no cycle between layers."""
    assert not {(a, b) for a, b in FORBIDDEN if b in ALLOWED[a]}
    graph = {layer: set(allowed) for layer, allowed in ALLOWED.items()}
    assert find_cycle(graph) is None, find_cycle(graph)


def test_only_the_entry_point_imports_handlers() -> None:
    wrong = sorted(
        f"{importer} imports {module}"
        for importer, module, _ in edges()
        if layer_of(module) == "handlers" and layer_of(importer) not in ("handlers", ENTRY)
    )
    assert wrong == []


def test_the_product_has_no_import_cycle() -> None:
    graph: dict[str, set[str]] = {name: set() for name in modules()}
    for importer, module, _ in edges():
        graph[importer].add(module)
    # Importing `a.b` runs `a/__init__.py` first: a package's init counts as imported too.
    for importer in graph:
        for module in list(graph[importer]):
            parent = module.rpartition(".")[0]
            while parent:
                if parent in graph and parent != importer and not importer.startswith(parent):
                    graph[importer].add(parent)
                parent = parent.rpartition(".")[0]
    cycle = find_cycle(graph)
    assert cycle is None, " → ".join(cycle or [])


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of `graph` as a path that returns to its start, or None."""
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path: list[str] = []
        on_path: set[str] = set()
        stack: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        path.append(start)
        on_path.add(start)
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                on_path.discard(node)
                done.add(node)
            elif child in on_path:
                return [*path[path.index(child) :], child]
            elif child not in done:
                stack.append((child, iter(sorted(graph[child]))))
                path.append(child)
                on_path.add(child)
    return None


@pytest.mark.parametrize("name", sorted(n for n in modules() if n.startswith("scoring")))
def test_scoring_imports_only_the_standard_library(name: str) -> None:
    """style.md §2.1: the rules engine is standard library only (and the catalogue below it, for
    the CLI's messages: locales/ is standard library only itself)."""
    foreign = sorted(
        target
        for target, _ in imported(name)
        if not target.startswith(("scoring", "locales"))
        and target.partition(".")[0] not in sys.stdlib_module_names
        and (name, product(target)) not in PENDING
    )
    assert foreign == []


def test_each_pending_exception_still_exists() -> None:
    """An exception that the code no longer needs is deleted from PENDING, so none hides a new one."""
    found = {(a, b) for a, b, _ in edges(pending=True)}
    assert found >= PENDING, f"delete from PENDING: {sorted(PENDING - found)}"


def test_imports_in_functions_by_name_and_relative_ones_all_count() -> None:
    source = (
        "import importlib\n"
        "from . import offers\n"
        "def f():\n"
        "    from bot.sheet import x\n"
        "    importlib.import_module('bot.render')\n"
        "    __import__('handlers')\n"
    )
    names = [name for name, _ in imports_in(source, "scoring")]
    assert names == ["importlib", "scoring.offers", "bot.sheet", "bot.render", "handlers"]


def test_the_cycle_finder_finds_a_cycle() -> None:
    """The cycle test can fail: a graph with a cycle is reported."""
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_each_layer_of_the_table_is_where_docs_architecture_draws_it() -> None:
    """Modules land in the layers the architecture page names."""
    where = {
        "locales.catalog": "locales",
        "scoring.deal": "scoring",
        "bot.domain.ports": "domain",
        "bot.sheet.raster": "sheet",
        "bot.storage.sqlite": "storage",
        "bot.core.uow": "core",
        "bot.texts.deal_steps": "texts",
        "bot.telegram.outbound.outbox": "outbound",
        "bot.telegram.inbound.context": "inbound",
        "bot.telegram.keyboards": "tg",
        "bot.web.api": "web",
        "bot.telegram.inbound.handlers.deal": "handlers",
        "bot.app": "entry",
        "bot.__main__": "entry",
        "bot.migrate": "ops",
        "bot.logs": "ops",
        "bot.startup": "ops",
        "bot.backup": "ops",
        "bot.redact": "redact",
        "bot.settings": "settings",
        "bot.settings_checks": "settings",
    }
    assert {name: layer_of(name) for name in where} == where
    assert set(ALLOWED) == set(LAYERS)


def test_the_fsm_storage_is_chosen_in_one_place() -> None:
    """bot/telegram/inbound/fsm.py alone names an aiogram FSM storage (and subclasses aiogram's base for
    the storage in the database it chooses)."""
    naming = {
        name
        for name in modules()
        for target, _ in imported(name)
        if target.startswith("aiogram.fsm.storage")
    }
    assert naming == {"bot.telegram.inbound.fsm"}


@pytest.mark.parametrize("name", sorted(n for n in modules() if n.startswith("locales")))
def test_the_catalogue_imports_only_the_standard_library(name: str) -> None:
    """locales/ lies below the rules engine, so it may import nothing of the product."""
    foreign = sorted(
        target
        for target, _ in imported(name)
        if not target.startswith("locales")
        and target.partition(".")[0] not in sys.stdlib_module_names
    )
    assert foreign == []


@pytest.mark.parametrize("name", sorted(modules()))
def test_no_product_module_over_600_lines_and_no_class_over_300(name: str) -> None:
    """Small modules whose names say what they hold, small classes."""
    text = modules()[name].read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 600
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ClassDef):
            assert node.end_lineno is not None
            assert node.end_lineno - node.lineno + 1 <= 300, node.name
