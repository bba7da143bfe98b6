"""The declared machines as a TypeScript module (``agui-fsm spec export --format ts``).

Written from :func:`agui_fsm.spec.export_spec`, the data ``specs/machines.json`` holds and
the diagrams are drawn from, so a port imports the tables rather than re-typing them: per
machine, unions of its state, trigger, guard and effect names and the table itself, typed by
them; and :func:`step`'s TypeScript twin (the first edge in declaration order whose guards
pass, as :meth:`agui_fsm.machines.table.CompiledMachine.step` takes). The port implements
the guards and the effects.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from agui_fsm.spec import export_spec
from agui_fsm.versions import REFERENCE_RELEASE

COMMAND = "agui-fsm spec export --format ts"

_PRELUDE = """\
/** A behaviour profile: `spec` is AG-UI 1.0 with every invariant holding (the default);
 * `reference` reproduces {reference} exactly. */
export type Profile = {profiles};
export const PROFILES: readonly Profile[] = [{profile_list}];

{events}

/** What the client does (or observes) that triggers a transition, each with its meaning. */
export const CLIENT_ACTIONS = {actions} as const;
export type ClientAction = keyof typeof CLIENT_ACTIONS;

export type Trigger = AguiEventTrigger | ClientAction;

/** One edge: `trigger` moves any of `source` to `dest` when every guard in `conditions`
 * holds and none in `unless` does; `effects` name what the driver then does. `profile`
 * null: the edge is in every profile. */
export interface Transition<
  S extends string = string,
  T extends Trigger = Trigger,
  G extends string = string,
  E extends string = string,
> {{
  readonly trigger: T;
  readonly source: readonly S[];
  readonly dest: S;
  readonly conditions: readonly G[];
  readonly unless: readonly G[];
  readonly effects: readonly E[];
  readonly profile: Profile | null;
}}

/** A declared lifecycle: its states, initial and terminal states, named guards and effects
 * (each with what it means), the phases the diagrams group states into, and its edges. */
export interface Machine<
  S extends string = string,
  T extends Trigger = Trigger,
  G extends string = string,
  E extends string = string,
> {{
  readonly name: string;
  readonly description: string;
  readonly states: readonly S[];
  readonly stateDocs: Readonly<Record<S, string>>;
  readonly initial: S;
  readonly terminal: readonly S[];
  readonly guards: Readonly<Record<G, string>>;
  readonly effects: Readonly<Record<E, string>>;
  readonly groups: Readonly<Record<string, readonly S[]>>;
  readonly transitions: readonly Transition<S, T, G, E>[];
}}

/** The edges of one profile, in declaration order. */
export function transitionsIn<
  S extends string,
  T extends Trigger,
  G extends string,
  E extends string,
>(
  machine: Machine<S, T, G, E>,
  profile: Profile = "spec",
): Transition<S, T, G, E>[] {{
  return machine.transitions.filter((t) => t.profile === null || t.profile === profile);
}}

/** The edge `trigger` takes from `state`: of the profile's edges from `state` on `trigger`,
 * in declaration order, the first whose `conditions` all hold and no `unless` holds
 * (`guard` answers a guard by name; by default every guard is false). undefined: none. */
export function step<S extends string, T extends Trigger, G extends string, E extends string>(
  machine: Machine<S, T, G, E>,
  state: S,
  trigger: T,
  guard: (name: G) => boolean = () => false,
  profile: Profile = "spec",
): Transition<S, T, G, E> | undefined {{
  for (const t of transitionsIn(machine, profile)) {{
    if (t.trigger !== trigger || !t.source.some((s) => s === state)) continue;
    if (t.conditions.every((name) => guard(name)) && !t.unless.some((name) => guard(name))) {{
      return t;
    }}
  }}
  return undefined;
}}
"""


def _union(names: Iterable[str]) -> str:
    names = list(names)
    return " | ".join(json.dumps(n) for n in names) if names else "never"


def _type(name: str, names: Iterable[str], doc: str = "") -> str:
    """``export type name = "a" | "b";``, one member a line when that is too long."""
    names = list(names)
    line = f"export type {name} = {_union(names)};"
    if len(line) > 100:
        line = f"export type {name} =\n" + "\n".join(f"  | {json.dumps(n)}" for n in names) + ";"
    return f"/** {doc} */\n{line}" if doc else line


def _pascal(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def _literal(value: Any, indent: int) -> str:
    """A JSON value as a TypeScript literal, nested lines indented by ``indent`` spaces."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return text.replace("\n", "\n" + " " * indent)


def _machine(machine: dict[str, Any]) -> str:
    name, kind = machine["name"].upper(), _pascal(machine["name"])
    triggers = dict.fromkeys(t["trigger"] for t in machine["transitions"])
    edges = "\n".join(
        "    " + json.dumps(t, ensure_ascii=False, separators=(", ", ": ")) + ","
        for t in machine["transitions"]
    )
    states = [s["name"] for s in machine["states"]]
    return f"""
// {machine["name"]}: {machine["description"]}
{_type(f"{kind}State", states)}
{_type(f"{kind}Trigger", triggers)}
{_type(f"{kind}Guard", machine["guards"])}
{_type(f"{kind}Effect", machine["effects"])}
export const {name}: Machine<{kind}State, {kind}Trigger, {kind}Guard, {kind}Effect> = {{
  name: {json.dumps(machine["name"])},
  description: {json.dumps(machine["description"], ensure_ascii=False)},
  states: {json.dumps(states)},
  stateDocs: {_literal({s["name"]: s["doc"] for s in machine["states"]}, 2)},
  initial: {json.dumps(machine["initial"])},
  terminal: {json.dumps(machine["terminal"])},
  guards: {_literal(machine["guards"], 2)},
  effects: {_literal(machine["effects"], 2)},
  groups: {_literal(machine.get("groups", {}), 2)},
  transitions: [
{edges}
  ],
}};
"""


def export_typescript(spec: dict[str, Any] | None = None) -> str:
    """The TypeScript module of ``spec`` (default: :func:`export_spec` of every table)."""
    spec = spec if spec is not None else export_spec()
    profiles = spec["profiles"]
    head = (
        f"// Generated by `{COMMAND}` (spec version {spec['version']}): do not edit.\n"
        "// agui-fsm's machine tables, the data of specs/machines.json and the diagrams.\n\n"
    )
    prelude = _PRELUDE.format(
        reference=REFERENCE_RELEASE,
        profiles=_union(profiles),
        profile_list=", ".join(json.dumps(p) for p in profiles),
        events=_type(
            "AguiEventTrigger",
            spec["triggers"]["agui_events"],
            "AG-UI event types that trigger a transition of some machine.",
        ),
        actions=_literal(spec["triggers"]["client_actions"], 0),
    )
    machines = "".join(_machine(m) for m in spec["machines"])
    registry = "\n".join(f"  {m['name']}: {m['name'].upper()}," for m in spec["machines"])
    return (
        head
        + prelude
        + machines
        + f"\n/** Every declared machine by name. */\nexport const MACHINES = {{\n{registry}\n}} "
        "as const;\nexport type MachineName = keyof typeof MACHINES;\n"
    )
