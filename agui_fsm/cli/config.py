"""``[tool.agui-fsm]`` in a backend's ``pyproject.toml``: validator settings kept with the code.

::

    [tool.agui-fsm]
    fail-on = "warning"          # or "error" (the default)
    group = true                 # fold repeats of a rule into one line
    docs-url = "https://example.org/agui/rules.html"   # where you publish docs/rules.md

    [tool.agui-fsm.rules]
    TOOL-010 = "off"             # off | info | warning | error
    RUN-006 = "error"

    [tool.agui-fsm.probe]        # agui-fsm probe
    timeout = 20                 # seconds
    probes = ["text-turn", "frontend-tool"]
    protocol-version = "1.0"

    [tool.agui-fsm.probe.frontend-tool]
    message = "Use the tool agui_probe_echo with x = 1"   # a probe's options (docs/probe.md)

``agui-fsm validate`` and ``probe`` (and ``inspect``, for the rules and docs-url) read the
nearest ``pyproject.toml`` from the current directory up (or ``--config FILE``); command-line
options win over it. Reports link a rule to ``docs-url`` plus the rule's anchor
(``#tool-006``; or ``{id}`` / ``{anchor}`` in the address) only when it is set; otherwise they
name ``agui-fsm rules ID``, which prints the rule's documentation from the package.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agui_fsm.conformance.context import severities
from agui_fsm.conformance.report import FAIL_ON
from agui_fsm.errors import UsageError
from agui_fsm.limits import check_seconds

SECTION = "agui-fsm"
_KEYS = frozenset({"docs-url", "fail-on", "group", "probe", "rules"})
_PROBE_KEYS = frozenset({"timeout", "probes", "protocol-version"})


@dataclass(slots=True)
class ProbeSettings:
    """What ``[tool.agui-fsm.probe]`` says; None where it says nothing."""

    timeout: float | None = None
    probes: list[str] | None = None
    protocol_version: str | None = None
    options: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass(slots=True)
class Settings:
    """What a ``[tool.agui-fsm]`` table says; None where it says nothing."""

    rules: dict[str, str] = field(default_factory=dict)
    fail_on: str | None = None
    group: bool | None = None
    docs_url: str | None = None
    probe: ProbeSettings = field(default_factory=ProbeSettings)
    source: Path | None = None


def find_pyproject(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` with a ``[tool.agui-fsm]`` table, from ``start`` up."""
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                text = candidate.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if _may_name_section(text) and SECTION in _toml(text).get("tool", {}):
                return candidate
    return None


def _may_name_section(text: str) -> bool:
    # A table named agui-fsm spells the name, or hides it in a quoted key's escapes: most
    # pyproject.toml files need no TOML parse (nor tomllib's import) to be ruled out.
    return SECTION in text or "\\u" in text or "\\U" in text


def _toml(text: str) -> dict[str, Any]:
    """The document, or {} when ``text`` is not valid TOML (it names no table then)."""
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}


def load(path: Path) -> Settings:
    """Read ``[tool.agui-fsm]`` from ``path``; a missing table gives empty settings.

    Raises :class:`~agui_fsm.errors.UsageError` for an unreadable file, an unknown key, an
    unknown rule id or level.
    """
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{path} is not valid TOML: {exc}") from exc
    table: Any = data.get("tool", {}).get(SECTION, {})
    where = f"{path} [tool.{SECTION}]"
    if not isinstance(table, dict):
        raise UsageError(f"{where} must be a table")
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise UsageError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {sorted(_KEYS)}")
    settings = Settings(source=path)
    rules = table.get("rules", {})
    if not isinstance(rules, dict) or not all(isinstance(v, str) for v in rules.values()):
        raise UsageError(f"{where}: rules must map rule ids to off|info|warning|error")
    rules = {rule_id.upper(): level.lower() for rule_id, level in rules.items()}
    try:
        severities(rules)
    except UsageError as exc:
        raise UsageError(f"{where}: {exc}") from exc
    settings.rules = rules
    fail_on = table.get("fail-on")
    if fail_on is not None and fail_on not in FAIL_ON:
        raise UsageError(f"{where}: fail-on must be one of {', '.join(FAIL_ON)}")
    settings.fail_on = fail_on
    group = table.get("group")
    if group is not None and not isinstance(group, bool):
        raise UsageError(f"{where}: group must be true or false")
    settings.group = group
    docs_url = table.get("docs-url")
    if docs_url is not None and not _is_address(docs_url):
        raise UsageError(f"{where}: docs-url must be an http(s) address, e.g. https://host/rules")
    settings.docs_url = docs_url
    settings.probe = _probe_settings(table.get("probe", {}), f"{path} [tool.{SECTION}.probe]")
    return settings


def _probe_settings(table: Any, where: str) -> ProbeSettings:
    """The ``probe`` table: its own keys, and one table of options per probe."""
    from agui_fsm.probes.catalogue import PROBES, options_for  # only a probe table needs it

    if not isinstance(table, dict):
        raise UsageError(f"{where} must be a table")
    unknown = sorted(set(table) - _PROBE_KEYS - set(PROBES))
    if unknown:
        known = sorted(_PROBE_KEYS) + list(PROBES)
        raise UsageError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {known}")
    settings = ProbeSettings()
    timeout = table.get("timeout")
    try:
        settings.timeout = check_seconds(timeout, "timeout")
    except ValueError:
        raise UsageError(f"{where}: timeout must be a finite number of seconds above 0") from None
    probes = table.get("probes")
    if probes is not None:
        if not isinstance(probes, list) or any(p not in PROBES for p in probes):
            raise UsageError(f"{where}: probes must be a list of {', '.join(PROBES)}")
        settings.probes = probes
    version = table.get("protocol-version")
    if version is not None and not isinstance(version, str):
        raise UsageError(f'{where}: protocol-version must be a string such as "1.0"')
    settings.protocol_version = version
    for name in PROBES:
        options = table.get(name)
        if options is None:
            continue
        if not isinstance(options, dict):
            raise UsageError(f"{where}: {name} must be a table of that probe's options")
        try:
            options_for(name, options)
        except ValueError as exc:
            raise UsageError(f"{where}: {exc}") from None
        settings.options[name] = options
    return settings


def _is_address(value: Any) -> bool:
    from urllib.parse import urlsplit

    if not isinstance(value, str):
        return False
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def settings_for(config: Path | None) -> Settings:
    """The settings of ``config`` (``--config``), else of :func:`find_pyproject` from the
    current directory, else none; :class:`~agui_fsm.errors.UsageError` as :func:`load`."""
    path = config if config is not None else find_pyproject(Path.cwd())
    return load(path) if path is not None else Settings()


def rule_levels(values: tuple[str, ...]) -> dict[str, str]:
    """``--rule ID=LEVEL`` options as ``{ID: level}``, checked."""
    import click

    levels = {}
    for value in values:
        rule_id, sep, level = value.partition("=")
        if not sep:
            raise click.BadParameter(f"{value!r} is not ID=LEVEL", param_hint="--rule")
        levels[rule_id.strip().upper()] = level.strip().lower()
    try:
        severities(levels)
    except UsageError as exc:
        raise click.BadParameter(str(exc), param_hint="--rule") from exc
    return levels
