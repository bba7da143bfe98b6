"""``agui-fsm rules``: the rule catalogue on the command line, and each rule's documentation.

Exit status: 0, or 2 for an unknown rule id (with the closest ids) or a file that cannot be
written (checked before anything is written).
"""

from __future__ import annotations

import json
from typing import NoReturn

import click

from agui_fsm.cli.outputs import (
    check_targets,
    format_given,
    output_option,
    parse_target,
    renamed,
    write_target,
)
from agui_fsm.conformance.rules import CATEGORIES, RULES, export_rules_json
from agui_fsm.conformance.rules_doc import rule_text, rules_markdown

RULES_FORMATS = ["text", "json", "markdown"]
RULES_SUFFIXES = {".txt": "text", ".json": "json", ".md": "markdown"}


@click.command()
@click.argument("rule_ids", nargs=-1, metavar="[ID]...")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(RULES_FORMATS),
    default="text",
    show_default=True,
    help="text: the catalogue, a line a rule; json: specs/rules.json; markdown: docs/rules.md "
    "(with IDs: text or json).",
)
@output_option(
    "Write the catalogue to PATH, in FORMAT (text, json, markdown), else in --format when "
    "given, else in the format PATH's suffix names (.txt .json .md); repeatable "
    "(-o specs/rules.json -o docs/rules.md).",
    multiple=True,
)
@renamed("--export", "-o json=PATH", into="output", value=lambda path: f"json={path}")
@renamed("--docs", "-o markdown=PATH", into="output", value=lambda path: f"markdown={path}")
def rules(rule_ids: tuple[str, ...], fmt: str, output: tuple[str, ...]) -> None:
    """List the conformance rules: id, severity, title, and how they compare with peers.

    With rule IDs (TOOL-006 ...), print each rule's whole documentation instead.
    """
    if rule_ids:
        if fmt == "markdown" or output:
            raise click.UsageError("with rule IDs: --format text or json, on stdout")
        _show_rules(rule_ids, fmt)
        return
    given = format_given() if output else None
    targets = [parse_target(v, RULES_FORMATS, fmt, RULES_SUFFIXES, given=given) for v in output]
    check_targets(targets)
    for target in targets:
        write_target(target, _catalogue(target.fmt))
        if target.path is not None:
            click.echo(f"{target.path}: {len(RULES)} rules")
    if not targets:
        click.echo(_catalogue(fmt), nl=False)


def _catalogue(fmt: str) -> str:
    if fmt == "json":
        return export_rules_json()
    if fmt == "markdown":
        return rules_markdown()
    lines = []
    category = None
    for rule in RULES.values():
        if rule.category != category:
            category = rule.category
            lines.append(f"\n{category}: {CATEGORIES[category]}")
        peers = f"verifyEvents {rule.verify_events}"
        if rule.ag_ui_validate:
            peers += f"; ag-ui-validate {', '.join(rule.ag_ui_validate)}"
        lines.append(f"  {rule.id:<11} {rule.severity:<8} {rule.title}  [{peers}]")
    lines.append(
        f"\n{len(RULES)} rules. `agui-fsm rules ID` prints a rule's documentation; "
        "`agui-fsm rules --format json` has them all."
    )
    return "\n".join(lines) + "\n"


def _show_rules(rule_ids: tuple[str, ...], fmt: str) -> None:
    wanted = [rule_id.strip().upper() for rule_id in rule_ids]
    unknown = [rule_id for rule_id in wanted if rule_id not in RULES]
    if unknown:
        import difflib

        hints = []
        for rule_id in unknown:
            close = difflib.get_close_matches(rule_id, RULES, n=3)
            hints.append(f"{rule_id} (did you mean {', '.join(close)}?)" if close else rule_id)
        _fail(f"no rule {'; '.join(hints)}; `agui-fsm rules` lists them all")
    if fmt == "json":
        found = [RULES[rule_id].as_dict() for rule_id in wanted]
        click.echo(json.dumps(found, indent=2, ensure_ascii=False))
        return
    click.echo("\n".join(rule_text(RULES[rule_id]) for rule_id in wanted), nl=False)


def _fail(message: str) -> NoReturn:
    click.echo(f"agui-fsm rules: {message}", err=True)
    raise SystemExit(2)
