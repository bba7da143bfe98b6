"""The conformance kit for ports: the vectors as a catalogue, a port's driver run over
them, and the first difference of each output that disagrees (``agui-fsm vectors``;
the protocol is ``specs/conformance/DRIVER.md``)."""

from agui_fsm.vectors.catalogue import (
    FEATURES,
    Catalogue,
    CatalogueError,
    Vector,
    export_kit,
    load_catalogue,
)
from agui_fsm.vectors.compare import Difference, compare_output, first_difference
from agui_fsm.vectors.driver import Driver, DriverError
from agui_fsm.vectors.report import Result, RunReport, judge, read_known, run_vectors

__all__ = [
    "FEATURES",
    "Catalogue",
    "CatalogueError",
    "Difference",
    "Driver",
    "DriverError",
    "Result",
    "RunReport",
    "Vector",
    "compare_output",
    "export_kit",
    "first_difference",
    "judge",
    "load_catalogue",
    "read_known",
    "run_vectors",
]
