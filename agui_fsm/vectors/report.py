"""A run of the vectors through a driver: what each vector came to, and the report (text,
JSON or JUnit).

Outcomes: ``passed``; ``failed`` (the output differs, the first difference says where);
``error`` (the driver gave no usable output); ``skipped`` (the driver declined a feature
the vector uses); ``known`` (failed or error, but listed in the port's known differences);
``known-passed`` (listed as known, and passes: the list is out of date).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agui_fsm.conformance.report import JUnitCase, junit_document, plural
from agui_fsm.jsonwire import dumps_text
from agui_fsm.vectors.catalogue import FEATURES, Catalogue, CatalogueError, Vector
from agui_fsm.vectors.compare import Difference, compare_output
from agui_fsm.vectors.driver import Driver, DriverError, Failed, Reply, Unsupported

OUTCOMES = ("passed", "failed", "error", "skipped", "known", "known-passed")
LABELS = {
    "failed": "FAIL",
    "error": "ERROR",
    "skipped": "SKIP",
    "known": "KNOWN",
    "known-passed": "PASSES",
}


@dataclass(frozen=True)
class Result:
    """One vector's outcome, with what to show for it."""

    vector: str
    outcome: str
    detail: str = ""
    """The first difference, the driver's failure or the reason it was skipped."""
    difference: Difference | None = None
    known: str | None = None
    """The port's reason, when the vector is in its known differences."""

    def line(self) -> str:
        """``FAIL name: $.path: expected X, got Y`` (nothing for a pass)."""
        if self.outcome == "passed":
            return ""
        if self.outcome == "known-passed":
            return (
                f"PASSES {self.vector}: listed as a known difference ({self.known}) "
                "but passes: drop it from the known list"
            )
        known = f" [known: {self.known}]" if self.outcome == "known" else ""
        return f"{LABELS[self.outcome]} {self.vector}: {self.detail}{known}"

    def as_dict(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"id": self.vector, "outcome": self.outcome}
        if self.detail:
            entry["detail"] = self.detail
        if self.difference is not None:
            entry["difference"] = self.difference.as_dict()
        if self.known is not None:
            entry["known"] = self.known
        return entry


def judge(
    vector: Vector,
    reply: Reply,
    *,
    profile: str,
    exact_errors: bool,
    known: Mapping[str, str],
) -> Result:
    """The outcome of ``reply`` for ``vector`` in ``profile`` (``known``: vector id ->
    the port's reason for differing)."""
    reason = known.get(vector.id)
    if isinstance(reply, Unsupported):
        if reply.feature in vector.features:
            because = f": {reply.reason}" if reply.reason else ""
            return Result(vector.id, "skipped", f"unsupported {reply.feature}{because}")
        what = "an unknown feature" if reply.feature not in FEATURES else "a feature"
        uses = ", ".join(vector.features) or "none"
        detail = (
            f"the driver declined {what} ({reply.feature!r}) this vector does not use "
            f"(it uses: {uses})"
        )
        return Result(vector.id, "known" if reason else "failed", detail, known=reason)
    if isinstance(reply, Failed):
        return Result(vector.id, "known" if reason else "error", reply.message, known=reason)
    mask = not exact_errors or profile in vector.error_texts_vary
    difference = compare_output(
        vector.load_expected(profile), reply.value, vector.load_scenario(), mask_errors=mask
    )
    if difference is None:
        return Result(vector.id, "known-passed" if reason else "passed", known=reason)
    outcome = "known" if reason else "failed"
    return Result(vector.id, outcome, difference.describe(), difference, reason)


@dataclass(frozen=True)
class RunReport:
    """Every vector's result under one driver, and how the run was set up."""

    results: Sequence[Result]
    profile: str
    driver: str
    exact_errors: bool
    vectors_from: str
    """The catalogue's directory and, for an exported one, the agui-fsm version."""

    @property
    def counts(self) -> Counter[str]:
        return Counter(r.outcome for r in self.results)

    @property
    def exit_code(self) -> int:
        """1 when a vector failed or the driver erred on one, else 0."""
        counts = self.counts
        return 1 if counts["failed"] or counts["error"] else 0

    def summary(self) -> str:
        counts = self.counts
        parts = [f"{counts[o]} {o}" for o in OUTCOMES if counts[o] or o == "passed"]
        texts = "compared exactly" if self.exact_errors else "masked"
        return (
            f"{plural(len(self.results), 'vector')} ({self.profile} profile, error texts "
            f"{texts}, vectors from {self.vectors_from}): {', '.join(parts)}"
        )

    def text(self) -> str:
        lines = [line for r in self.results if (line := r.line())]
        return "\n".join([*lines, self.summary()]) + "\n"

    def json(self) -> str:
        document = {
            "ok": self.exit_code == 0,
            "profile": self.profile,
            "driver": self.driver,
            "exact_errors": self.exact_errors,
            "vectors": self.vectors_from,
            "summary": {o: self.counts[o] for o in OUTCOMES},
            "results": [r.as_dict() for r in self.results],
        }
        return dumps_text(document, indent=2) + "\n"

    def junit(self) -> str:
        """One test case per vector: a failure, an error, skipped (declined features and
        known differences, with the port's reason) or passed."""
        verdicts = {"failed": "failure", "error": "error", "skipped": "skipped"}
        cases = []
        for r in self.results:
            verdict = verdicts.get(r.outcome)
            text = r.line()
            if r.outcome == "known":
                verdict = "skipped"
            cases.append(JUnitCase("agui-fsm.vectors", r.vector, verdict, r.detail, text))
        return junit_document(f"agui-fsm vectors run ({self.profile} profile)", cases)

    def render(self, fmt: str) -> str:
        return {"text": self.text, "json": self.json, "junit": self.junit}[fmt]()


def run_vectors(
    catalogue: Catalogue,
    driver: Driver,
    *,
    profile: str = "spec",
    exact_errors: bool = False,
    known: Mapping[str, str] | None = None,
) -> RunReport:
    """Every vector of ``catalogue`` through ``driver``, judged in ``profile``.

    Raises :class:`~agui_fsm.vectors.driver.DriverError` when the driver as a whole
    failed, including when it gave no output for any vector (a command that never worked
    is a broken set-up, not a port failing every vector)."""
    known = known or {}
    vectors = catalogue.vectors
    replies = driver.replies([v.scenario for v in vectors])
    if vectors and all(isinstance(r, Failed) for r in replies):
        raise DriverError(f"the driver failed on every vector; the first: {replies[0].message}")
    results = [
        judge(v, reply, profile=profile, exact_errors=exact_errors, known=known)
        for v, reply in zip(vectors, replies, strict=True)
    ]
    source = _shown(catalogue.root)
    if catalogue.written_by:
        source += f" (agui-fsm {catalogue.written_by})"
    return RunReport(results, profile, " ".join(driver.command), exact_errors, source)


def _shown(path: Path) -> str:
    """``path`` relative to the working directory when it is below it."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def read_known(path: Path, catalogue: Catalogue) -> dict[str, str]:
    """A port's known differences: a JSON object of vector id -> the reason it differs.

    Raises :class:`~agui_fsm.vectors.catalogue.CatalogueError` for a file that is not
    one, an id the catalogue does not have, or an empty reason."""
    try:
        known = json.loads(Path(path).read_text())
    except OSError as exc:
        raise CatalogueError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise CatalogueError(f"{path}: not JSON ({exc})") from exc
    if not isinstance(known, dict):
        raise CatalogueError(f"{path}: expected a JSON object of vector id -> reason")
    ids = catalogue.by_id()
    for name, reason in known.items():
        if name not in ids:
            raise CatalogueError(f"{path}: {name!r} is not a vector id (see agui-fsm vectors list)")
        if not isinstance(reason, str) or not reason.strip():
            raise CatalogueError(f"{path}: {name!r} needs a reason (a non-empty string)")
    return known
