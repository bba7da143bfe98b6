"""A run of the vectors through a driver: what each vector came to, and the report (text,
JSON or JUnit).

Outcomes: ``passed``; ``failed`` (the output differs: the first difference, or every one,
says where); ``error`` (the driver gave no usable output); ``skipped`` (the driver declined
a feature the vector uses, or the port's expectations say skip); ``expected-fail`` (failed
or error, as the port's expectations say); ``unexpected-pass`` (the expectations say fail,
and it passes: the entry is out of date).

A port's expectations file (wpt-style, DRIVER.md "Expectations") lists vectors by id or
glob, each with the result expected (``fail`` or ``skip``), a class (:data:`CLASSES`), a
reason and a link; the summary counts the expected failures by class.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from agui_fsm.conformance.report import JUnitCase, junit_document, plural
from agui_fsm.jsonwire import dumps_text
from agui_fsm.vectors.catalogue import FEATURES, Catalogue, CatalogueError, Vector
from agui_fsm.vectors.compare import Difference, compare_output
from agui_fsm.vectors.driver import Driver, DriverError, Failed, Reply, Unsupported

OUTCOMES = ("passed", "failed", "error", "skipped", "expected-fail", "unexpected-pass")
LABELS = {
    "failed": "FAIL",
    "error": "ERROR",
    "skipped": "SKIP",
    "expected-fail": "EXPECTED-FAIL",
    "unexpected-pass": "UNEXPECTED-PASS",
}

CLASSES: dict[str, str] = {
    "differs": "the client departs from a rule of AG-UI 1.0 or of the protocol level that the "
    "vector checks: a difference its maintainers could act on",
    "choice": "AG-UI 1.0 leaves the behaviour open, and the client chose otherwise than the "
    "kit's rule",
    "cannot-express": "the client's public API cannot perform the scenario as written: a "
    "driver would have to invent the behaviour",
    "known": "an entry of a `--known` file (id -> reason, without a class)",
}
"""What kind of entry an expectation is; the summary counts expected failures by class."""

EXPECTED_RESULTS = ("fail", "skip")


@dataclass(frozen=True)
class Expectation:
    """One entry of a port's expectations: the vectors ``id`` (an id or a shell-style glob)
    matches are expected to ``fail`` (or be skipped, ``skip``), for ``reason``."""

    id: str
    expected: str
    cls: str
    reason: str
    link: str | None = None

    def as_dict(self) -> dict[str, Any]:
        entry = {"id": self.id, "expected": self.expected, "class": self.cls}
        entry["reason"] = self.reason
        if self.link:
            entry["link"] = self.link
        return entry


@dataclass(frozen=True)
class Result:
    """One vector's outcome, with what to show for it."""

    vector: str
    outcome: str
    detail: str = ""
    """The first difference, the driver's failure or the reason it was skipped."""
    differences: tuple[Difference, ...] = ()
    expectation: Expectation | None = None
    """The port's expectation for the vector, when it has one."""

    @property
    def difference(self) -> Difference | None:
        return self.differences[0] if self.differences else None

    def line(self) -> str:
        """``FAIL name: $.path: expected X, got Y`` (nothing for a pass); with more than
        one difference, each on a line of its own below."""
        if self.outcome == "passed":
            return ""
        expectation = self.expectation
        if self.outcome == "unexpected-pass" and expectation is not None:
            return (
                f"UNEXPECTED-PASS {self.vector}: expected to fail ({expectation.cls}: "
                f"{expectation.reason}) but passes: drop it from the expectations"
            )
        tag = ""
        if self.outcome == "expected-fail" and expectation is not None:
            tag = f" [{expectation.cls}: {expectation.reason}]"
        head = f"{LABELS[self.outcome]} {self.vector}: {self.detail}{tag}"
        more = [f"    {d.describe()}" for d in self.differences[1:]]
        return "\n".join([head, *more])

    def as_dict(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"id": self.vector, "outcome": self.outcome}
        if self.detail:
            entry["detail"] = self.detail
        if self.differences:
            entry["difference"] = self.differences[0].as_dict()
        if len(self.differences) > 1:
            entry["differences"] = [d.as_dict() for d in self.differences]
        if self.expectation is not None:
            entry["expectation"] = self.expectation.as_dict()
        return entry


def judge(
    vector: Vector,
    reply: Reply,
    *,
    profile: str,
    exact_errors: bool,
    expectations: Mapping[str, Expectation] | None = None,
    level: str = "application",
    every: bool = False,
) -> Result:
    """The outcome of ``reply`` for ``vector`` in ``profile`` at ``level``
    (``expectations``: vector id -> the port's expectation; ``every``: list every
    difference, not only the first)."""
    expectation = (expectations or {}).get(vector.id)
    expects_failure = expectation is not None and expectation.expected == "fail"

    def unless_expected(outcome: str, detail: str, found: Sequence[Difference] = ()) -> Result:
        outcome = "expected-fail" if expects_failure else outcome
        return Result(vector.id, outcome, detail, tuple(found), expectation)

    if isinstance(reply, Unsupported):
        features = vector.features_at(level)
        if reply.feature in features:
            because = f": {reply.reason}" if reply.reason else ""
            return Result(vector.id, "skipped", f"unsupported {reply.feature}{because}")
        what = "an unknown feature" if reply.feature not in FEATURES else "a feature"
        uses = ", ".join(features) or "none"
        return unless_expected(
            "failed",
            f"the driver declined {what} ({reply.feature!r}) this vector does not use "
            f"at the {level} level (it uses: {uses})",
        )
    if isinstance(reply, Failed):
        return unless_expected("error", reply.message)
    mask = not exact_errors or profile in vector.error_texts_vary
    found = compare_output(
        vector.load_expected(profile, level),
        reply.value,
        vector.load_scenario(),
        mask_errors=mask,
        level=level,
        every=True,
    )
    if not found:
        outcome = "unexpected-pass" if expects_failure else "passed"
        return Result(vector.id, outcome, expectation=expectation)
    count = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    return unless_expected("failed", found[0].describe() + count, found if every else found[:1])


@dataclass(frozen=True)
class RunReport:
    """Every vector's result under one driver, and how the run was set up."""

    results: Sequence[Result]
    profile: str
    driver: str
    exact_errors: bool
    vectors_from: str
    """The catalogue's directory and, for an exported one, the agui-fsm version."""
    level: str = "application"
    not_at_level: int = 0
    """Vectors left out because they have no output at this level."""

    @property
    def counts(self) -> Counter[str]:
        return Counter(r.outcome for r in self.results)

    @property
    def exit_code(self) -> int:
        """1 when a vector failed or the driver erred on one, else 0."""
        counts = self.counts
        return 1 if counts["failed"] or counts["error"] else 0

    @property
    def classes(self) -> Counter[str]:
        """Expected failures by the class of their expectation."""
        return Counter(
            r.expectation.cls
            for r in self.results
            if r.outcome == "expected-fail" and r.expectation is not None
        )

    def summary(self) -> str:
        counts, classes = self.counts, self.classes
        parts = []
        for outcome in OUTCOMES:
            if counts[outcome] or outcome == "passed":
                parts.append(f"{counts[outcome]} {outcome}")
            if outcome == "expected-fail" and classes:
                parts[-1] += f" ({', '.join(f'{classes[c]} {c}' for c in CLASSES if classes[c])})"
        texts = "compared exactly" if self.exact_errors else "masked"
        where = f"{self.level} level, " if self.level != "application" else ""
        left = ""
        if self.not_at_level:
            left = f"; {self.not_at_level} without a {self.level}-level output left out"
        return (
            f"{plural(len(self.results), 'vector')} ({where}{self.profile} profile, error texts "
            f"{texts}, vectors from {self.vectors_from}{left}): {', '.join(parts)}"
        )

    def text(self) -> str:
        lines = [line for r in self.results if (line := r.line())]
        return "\n".join([*lines, self.summary()]) + "\n"

    def json(self) -> str:
        document = {
            "ok": self.exit_code == 0,
            "profile": self.profile,
            "level": self.level,
            "driver": self.driver,
            "exact_errors": self.exact_errors,
            "vectors": self.vectors_from,
            "summary": {o: self.counts[o] for o in OUTCOMES},
            "expected_fail_by_class": dict(self.classes),
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
            if r.outcome == "expected-fail":
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
    expectations: Sequence[Expectation] = (),
    level: str = "application",
    every: bool = False,
) -> RunReport:
    """Every vector of ``catalogue`` that has an output at ``level`` through ``driver``,
    judged in ``profile`` against the port's ``expectations``.

    Raises :class:`~agui_fsm.vectors.driver.DriverError` when the driver as a whole
    failed, including when it gave no output for any vector (a command that never worked
    is a broken set-up, not a port failing every vector)."""
    if level == "protocol" and profile != "spec":
        raise CatalogueError("the protocol level has one expected output: the spec profile's")
    matched = match_expectations(expectations, catalogue)
    at_level = [v for v in catalogue.vectors if v.at_level(level)]
    skipped = [v for v in at_level if _expected(matched, v) == "skip"]
    vectors = [v for v in at_level if _expected(matched, v) != "skip"]
    replies = driver.replies([v.scenario for v in vectors])
    if vectors and all(isinstance(r, Failed) for r in replies):
        raise DriverError(f"the driver failed on every vector; the first: {replies[0].message}")
    judged = {
        v.id: judge(
            v,
            reply,
            profile=profile,
            exact_errors=exact_errors,
            expectations=matched,
            level=level,
            every=every,
        )
        for v, reply in zip(vectors, replies, strict=True)
    }
    for v in skipped:
        expectation = matched[v.id]
        judged[v.id] = Result(
            v.id, "skipped", f"expected: skip ({expectation.cls}: {expectation.reason})"
        )
    results = [judged[v.id] for v in at_level]
    source = _shown(catalogue.root)
    if catalogue.written_by:
        source += f" (agui-fsm {catalogue.written_by})"
    return RunReport(
        results,
        profile,
        " ".join(driver.command),
        exact_errors,
        source,
        level=level,
        not_at_level=len(catalogue.vectors) - len(at_level),
    )


def _expected(matched: Mapping[str, Expectation], vector: Vector) -> str | None:
    expectation = matched.get(vector.id)
    return expectation.expected if expectation is not None else None


def _shown(path: Path) -> str:
    """``path`` relative to the working directory when it is below it."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def match_expectations(
    expectations: Sequence[Expectation], catalogue: Catalogue
) -> dict[str, Expectation]:
    """Vector id -> the expectation whose id or glob matches it: an exact id wins over a
    glob, and of two globs the first listed. Raises
    :class:`~agui_fsm.vectors.catalogue.CatalogueError` for an entry matching no vector."""
    ids = [v.id for v in catalogue.vectors]
    matched: dict[str, Expectation] = {}
    for expectation in expectations:
        hits = [i for i in ids if fnmatchcase(i, expectation.id)]
        if not hits:
            raise CatalogueError(
                f"expectation {expectation.id!r} matches no vector (see agui-fsm vectors list)"
            )
        for hit in hits:
            if hit == expectation.id or hit not in matched:
                matched[hit] = expectation
    return matched


def read_expectations(path: Path, catalogue: Catalogue) -> list[Expectation]:
    """A port's expectations file (DRIVER.md "Expectations"): an object with an
    ``expectations`` list of ``{"id", "expected", "class", "reason", "link"?}``.

    Raises :class:`~agui_fsm.vectors.catalogue.CatalogueError` for a file that is not
    one: an unknown key, result or class, an empty reason, an id or glob matching no
    vector."""
    document = _read_json(path)
    entries = document.get("expectations") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise CatalogueError(f'{path}: expected an object with an "expectations" list')
    found = []
    for k, entry in enumerate(entries):
        where = f"{path}: expectations[{k}]"
        if not isinstance(entry, dict):
            raise CatalogueError(f"{where}: expected an object")
        unknown = sorted(set(entry) - {"id", "expected", "class", "reason", "link"})
        if unknown:
            raise CatalogueError(f"{where}: unknown key {unknown[0]!r}")
        if not isinstance(entry.get("id"), str) or not entry["id"]:
            raise CatalogueError(f"{where}: needs an id (a vector id or a glob)")
        if entry.get("expected") not in EXPECTED_RESULTS:
            raise CatalogueError(f"{where}: expected must be one of {', '.join(EXPECTED_RESULTS)}")
        if entry.get("class") not in CLASSES:
            raise CatalogueError(f"{where}: class must be one of {', '.join(CLASSES)}")
        reason = entry.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise CatalogueError(f"{where}: needs a reason (a non-empty string)")
        link = entry.get("link")
        if link is not None and not isinstance(link, str):
            raise CatalogueError(f"{where}: link must be a string")
        found.append(Expectation(entry["id"], entry["expected"], entry["class"], reason, link))
    match_expectations(found, catalogue)
    return found


def read_known(path: Path, catalogue: Catalogue) -> list[Expectation]:
    """A ``--known`` file (a JSON object of vector id -> the reason it differs), read as
    expectations: each entry expected to fail, of class ``known``.

    Raises :class:`~agui_fsm.vectors.catalogue.CatalogueError` for a file that is not
    one, an id the catalogue does not have, or an empty reason."""
    known = _read_json(path)
    if not isinstance(known, dict):
        raise CatalogueError(f"{path}: expected a JSON object of vector id -> reason")
    ids = catalogue.by_id()
    for name, reason in known.items():
        if name not in ids:
            raise CatalogueError(f"{path}: {name!r} is not a vector id (see agui-fsm vectors list)")
        if not isinstance(reason, str) or not reason.strip():
            raise CatalogueError(f"{path}: {name!r} needs a reason (a non-empty string)")
    return [Expectation(name, "fail", "known", reason) for name, reason in known.items()]


def _read_json(path: Path) -> Any:
    try:
        return json.loads(Path(path).read_text())
    except OSError as exc:
        raise CatalogueError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise CatalogueError(f"{path}: not JSON ({exc})") from exc
