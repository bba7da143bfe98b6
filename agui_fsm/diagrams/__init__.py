"""State diagrams drawn from the machine declarations: DOT (via ``graphviz``) and Mermaid.

Two views of every machine: ``readable`` (the default: :mod:`.chart` folds the
table into a statechart with phases, merged edges and self-loops listed inside
the states) and ``full`` (every edge as declared). The overview draws the
machines and the links between them (:mod:`agui_fsm.machines.links`). DOT and
Mermaid text need no binary; SVG and PNG are rendered by Graphviz's ``dot``.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterable
from pathlib import Path

import graphviz

from agui_fsm.diagrams.dot import HEADER, to_readable_graphviz
from agui_fsm.diagrams.full import edge_label, to_full_graphviz, to_full_mermaid
from agui_fsm.diagrams.mermaid import to_readable_mermaid
from agui_fsm.diagrams.overview import NAME as OVERVIEW
from agui_fsm.diagrams.overview import to_overview_graphviz, to_overview_mermaid
from agui_fsm.errors import AguiFsmError
from agui_fsm.machines import ALL_TABLES, MachineTable

FORMATS = ("dot", "svg", "png", "mermaid")
DETAILS = ("readable", "full")
SUFFIX = {"dot": "dot", "svg": "svg", "png": "png", "mermaid": "mmd"}

__all__ = [
    "DETAILS",
    "FORMATS",
    "HEADER",
    "OVERVIEW",
    "SUFFIX",
    "GraphvizMissingError",
    "edge_label",
    "file_name",
    "render",
    "render_overview",
    "write_diagrams",
]


class GraphvizMissingError(AguiFsmError):
    """SVG or PNG was asked for but Graphviz's ``dot`` is not installed."""


def _check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise ValueError(f"unknown diagram format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt in ("svg", "png") and shutil.which("dot") is None:
        raise GraphvizMissingError(
            f"rendering {fmt.upper()} needs Graphviz's 'dot' binary, which is not on PATH. "
            "Install it (Debian/Ubuntu: apt-get install graphviz; macOS: brew install "
            "graphviz) or use --format dot or --format mermaid, which need no binary."
        )


def _emit(graph: graphviz.Digraph, mermaid: str, fmt: str) -> bytes:
    if fmt == "mermaid":
        return mermaid.encode()
    if fmt == "dot":
        return graph.source.encode()
    return graph.pipe(format=fmt)


def render(table: MachineTable, fmt: str, detail: str = "readable") -> bytes:
    """One machine in ``fmt`` (one of :data:`FORMATS`), ``detail`` one of :data:`DETAILS`."""
    if detail not in DETAILS:
        raise ValueError(f"unknown detail {detail!r}; choose one of {', '.join(DETAILS)}")
    _check_format(fmt)
    if detail == "full":
        return _emit(to_full_graphviz(table), to_full_mermaid(table), fmt)
    return _emit(to_readable_graphviz(table), to_readable_mermaid(table), fmt)


def render_overview(fmt: str, tables: Iterable[MachineTable] = ALL_TABLES) -> bytes:
    """The overview of ``tables`` and the links between them, in ``fmt``."""
    _check_format(fmt)
    tables = list(tables)
    return _emit(to_overview_graphviz(tables), to_overview_mermaid(tables), fmt)


def file_name(name: str, fmt: str, detail: str = "readable") -> str:
    """``run.svg`` for the readable view, ``run-full.svg`` for the full one."""
    return f"{name}{'-full' if detail == 'full' else ''}.{SUFFIX[fmt]}"


def write_diagrams(
    out: Path,
    formats: Iterable[str],
    tables: Iterable[MachineTable] = ALL_TABLES,
    detail: str = "readable",
    overview: bool = True,
    write: Callable[[Path, bytes], None] = Path.write_bytes,
) -> list[Path]:
    """Write every machine (and the overview) in every format under ``out`` (created with
    its parents when missing), each file by ``write(path, data)``; the paths written, in
    order."""
    out.mkdir(parents=True, exist_ok=True)
    tables, formats = list(tables), list(formats)
    written = []
    for table in tables:
        for fmt in formats:
            path = out / file_name(table.name, fmt, detail)
            write(path, render(table, fmt, detail))
            written.append(path)
    if overview:
        for fmt in formats:
            path = out / file_name(OVERVIEW, fmt)
            write(path, render_overview(fmt, tables))
            written.append(path)
    return written
