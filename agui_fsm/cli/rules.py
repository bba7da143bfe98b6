"""``agui-fsm rules``: the rule catalogue on the command line, and each rule's documentation.

Exit status: 0, or 2 for an unknown rule id (with the closest ids) or a file that cannot be
written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NoReturn

import click

from agui_fsm.conformance.rules import CATEGORIES, RULES, export_rules_json
from agui_fsm.conformance.rules_doc import rule_text, rules_markdown


@click.command()
@click.argument("rule_ids", nargs=-1, metavar="[ID]...")
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option(
    "--export",
    "export",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the JSON catalogue to this file (specs/rules.json).",
)
@click.option(
    "--docs",
    "docs",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the Markdown rule reference to this file (docs/rules.md).",
)
def rules(rule_ids: tuple[str, ...], fmt: str, export: Path | None, docs: Path | None) -> None:
    """List the conformance rules: id, severity, title, and how they compare with peers.

    With rule IDs (TOOL-006 ...), print each rule's whole documentation instead.
    """
    if rule_ids:
        _show_rules(rule_ids, fmt)
        return
    for path, text in ((export, export_rules_json), (docs, rules_markdown)):
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text(), encoding="utf-8")
            except OSError as exc:
                _fail(f"cannot write {path}: {exc.strerror or exc}")
            click.echo(f"{path}: {len(RULES)} rules")
    if export is not None or docs is not None:
        return
    if fmt == "json":
        click.echo(export_rules_json(), nl=False)
        return
    category = None
    for rule in RULES.values():
        if rule.category != category:
            category = rule.category
            click.echo(f"\n{category}: {CATEGORIES[category]}")
        peers = f"verifyEvents {rule.verify_events}"
        if rule.ag_ui_validate:
            peers += f"; ag-ui-validate {', '.join(rule.ag_ui_validate)}"
        click.echo(f"  {rule.id:<11} {rule.severity:<8} {rule.title}  [{peers}]")
    click.echo(
        f"\n{len(RULES)} rules. `agui-fsm rules ID` prints a rule's documentation; "
        "`agui-fsm rules --format json` has them all."
    )


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
