"""A2UI surfaces (generative UI) as the reference client shows them: a ``present`` tool call.

An ``ACTIVITY_SNAPSHOT`` with ``activityType: "a2ui-surface"`` carries
``content.a2ui_operations``: A2UI operations (``createSurface``, ``updateComponents``,
``updateDataModel``, ``deleteSurface``; versions ``v0.9`` and ``v1.0``) that build
surfaces of components. ``@assistant-ui/react-ag-ui`` 0.0.58 (through
``@assistant-ui/react-generative-ui`` 0.0.16) folds each snapshot's operations into
surfaces (:func:`apply_operations`) and converts every surface whose root component it can
render into assistant-ui's generative-UI tree (:func:`surface_spec`), shown as a tool-call
part: toolCallId ``a2ui:<surfaceId>``, toolName ``present``, the tree as args (argsText is
its JSON), result ``{}``.

Both functions are pure and never raise on malformed input: an operation or component they
cannot read is skipped with a warning, as the reference's are. One deliberate bound: an
``updateDataModel`` path index more than :data:`MAX_INDEX_GAP` past the end of a list is
skipped (JavaScript grows a sparse array; a Python list would allocate every hole).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from agui_fsm.aggregator.parts import MISSING, json_stringify

A2UI_SURFACE_ACTIVITY_TYPE = "a2ui-surface"
A2UI_TOOL_NAME = "present"
A2UI_TOOL_CALL_PREFIX = "a2ui:"
OPERATION_KEYS = ("createSurface", "updateComponents", "updateDataModel", "deleteSurface")
VERSIONS = ("v0.9", "v1.0")
DEPTH_CAP = 32
TEMPLATE_ITEM_CAP = 100
NODE_BUDGET = 5000
MAX_INDEX_GAP = 10_000
SUPPORTED_COMPONENTS = frozenset(
    {"Text", "Image", "Row", "Column", "Card", "Divider", "Button", "TextField", "CheckBox"}
)
_INDEX = re.compile(r"0|[1-9][0-9]*")
_HEADER = re.compile(r"h[1-6]")


class _Hole:
    """An index a JavaScript array was never given (``undefined``; ``null`` in JSON)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "HOLE"


HOLE: Any = _Hole()


@dataclass
class Surface:
    """One A2UI surface: its components by id (in the order first set) and its data model."""

    surface_id: str
    components: dict[str, dict[str, Any]] = field(default_factory=dict)
    data_model: Any = MISSING

    def copy(self) -> Surface:
        return Surface(self.surface_id, dict(self.components), self.data_model)


def tool_call_id(surface_id: str) -> str:
    """The toolCallId of the ``present`` part that shows a surface."""
    return A2UI_TOOL_CALL_PREFIX + surface_id


def is_a2ui_part_id(tool_call_id: Any) -> bool:
    """Whether a tool-call part's id names an A2UI surface (the reference's ``a2ui:`` parts)."""
    return isinstance(tool_call_id, str) and tool_call_id.startswith(A2UI_TOOL_CALL_PREFIX)


# -- operations -------------------------------------------------------------------------


def _surface_id_of(payload: dict[str, Any]) -> str | None:
    surface_id = payload.get("surfaceId")
    return surface_id if isinstance(surface_id, str) and surface_id else None


def _upsert_components(
    surface: Surface, components: Any, warnings: list[str], operation: int
) -> None:
    if not isinstance(components, list):
        warnings.append(f"Operation at index {operation} has malformed components.")
        return
    for number, component in enumerate(components):
        if (
            not isinstance(component, dict)
            or not isinstance(component.get("id"), str)
            or not component["id"]
            or not isinstance(component.get("component"), str)
            or not component["component"]
        ):
            warnings.append(f"Component at index {number} in operation {operation} is malformed.")
            continue
        surface.components[component["id"]] = dict(component)


def _decode_pointer(path: str) -> list[str] | None:
    if path in ("", "/"):
        return []
    if not path.startswith("/"):
        return None
    return [s.replace("~1", "/").replace("~0", "~") for s in path[1:].split("/")]


def _is_index(segment: str) -> bool:
    return _INDEX.fullmatch(segment) is not None


def _set_at_pointer(model: Any, path: str, value: Any) -> tuple[bool, Any]:
    segments = _decode_pointer(path)
    if segments is None:
        return False, model
    if not segments:
        return True, value

    def update(current: Any, at: int) -> Any:
        segment = segments[at]
        last = at == len(segments) - 1
        if isinstance(current, list):
            if segment != "-" and not _is_index(segment):
                return current
            clone = list(current)
            target = len(clone) if segment == "-" else int(segment)
            if target - len(clone) > MAX_INDEX_GAP:
                return current
            while len(clone) <= target:
                clone.append(HOLE)
            child = clone[target]
            clone[target] = value if last else update(MISSING if child is HOLE else child, at + 1)
            return clone
        clone_map = dict(current) if isinstance(current, dict) else {}
        if last:
            clone_map[segment] = value
        else:
            child = clone_map.get(segment)
            if child is None:
                following = segments[at + 1]
                child = [] if _is_index(following) or following == "-" else {}
            clone_map[segment] = update(child, at + 1)
        return clone_map

    return True, update(model, 0)


def _data_model_value(payload: dict[str, Any]) -> Any:
    for key in ("contents", "value", "data"):
        if key in payload:
            return payload[key]
    return MISSING


def apply_operations(
    state: dict[str, Surface], operations: Any
) -> tuple[dict[str, Surface], list[str]]:
    """The surfaces after ``operations`` (``content.a2ui_operations``), and the warnings for
    what was skipped. ``state`` is not changed."""
    surfaces = dict(state)
    warnings: list[str] = []
    if not isinstance(operations, list):
        return surfaces, ["A2UI operations must be an array."]
    for index, entry in enumerate(operations):
        if not isinstance(entry, dict):
            warnings.append(f"Operation at index {index} is malformed.")
            continue
        version = entry.get("version")
        if version not in VERSIONS:
            warnings.append(f"Operation at index {index} has an unsupported version.")
            continue
        keys = [k for k in entry if k != "version"]
        if len(keys) != 1:
            warnings.append(f"Operation at index {index} must contain exactly one operation key.")
            continue
        key = keys[0]
        if key not in OPERATION_KEYS:
            warnings.append(f'Unknown A2UI operation "{key}" at index {index}.')
            continue
        payload = entry[key]
        if not isinstance(payload, dict):
            warnings.append(f"Operation at index {index} has a malformed payload.")
            continue
        surface_id = _surface_id_of(payload)
        if surface_id is None:
            warnings.append(f"Operation at index {index} has no valid surfaceId.")
            continue
        if key == "createSurface":
            surface = Surface(surface_id)
            if version == "v1.0" and "dataModel" in payload:
                surface.data_model = payload["dataModel"]
            if version == "v1.0" and "components" in payload:
                _upsert_components(surface, payload["components"], warnings, index)
            surfaces[surface_id] = surface
            continue
        if key == "deleteSurface":
            surfaces.pop(surface_id, None)
            continue
        current = surfaces.get(surface_id)
        if current is None:
            warnings.append(
                f'Operation at index {index} references missing surface "{surface_id}".'
            )
            continue
        surface = current.copy()
        if key == "updateComponents":
            _upsert_components(surface, payload.get("components", MISSING), warnings, index)
            surfaces[surface_id] = surface
            continue
        value = _data_model_value(payload)
        if value is MISSING:
            warnings.append(f"Operation at index {index} has no data model value.")
            continue
        path = payload.get("path")
        path = "/" if path is None else path
        if not isinstance(path, str):
            warnings.append(f"Operation at index {index} has a malformed data model path.")
            continue
        ok, model = _set_at_pointer(surface.data_model, path, value)
        if not ok:
            warnings.append(f"Operation at index {index} has an invalid JSON Pointer path.")
            continue
        surface.data_model = model
        surfaces[surface_id] = surface
    return surfaces, warnings


# -- conversion to the generative-UI tree ----------------------------------------------


def _resolve_pointer(source: Any, path: str) -> Any:
    segments = _decode_pointer(path)
    if segments is None:
        return MISSING
    current = source
    for segment in segments:
        if isinstance(current, list):
            if not _is_index(segment):
                return MISSING
            at = int(segment)
            current = current[at] if at < len(current) else MISSING
            if current is HOLE:
                current = MISSING
            continue
        if not isinstance(current, dict) or segment not in current:
            return MISSING
        current = current[segment]
    return current


def _is_binding(value: Any) -> bool:
    return isinstance(value, dict) and len(value) == 1 and isinstance(value.get("path"), str)


def _is_template_children(value: Any) -> bool:
    if not isinstance(value, dict) or len(value) != 1:
        return False
    template = value.get("template")
    return (
        isinstance(template, dict)
        and len(template) == 2
        and isinstance(template.get("componentId"), str)
        and isinstance(template.get("path"), str)
    )


def _materialize(value: Any, source: Any) -> Any:
    if _is_binding(value):
        return _resolve_pointer(source, value["path"])
    if isinstance(value, list):
        items = (_materialize(v, source) for v in value if v is not HOLE)
        return [v for v in items if v is not MISSING]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, entry in value.items():
        resolved = _materialize(entry, source)
        if resolved is not MISSING:
            out[key] = resolved
    return out


def _first_defined(props: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if key in props:
            return props[key]
    return MISSING


def _string_prop(props: dict[str, Any], keys: tuple[str, ...]) -> Any:
    value = _first_defined(props, keys)
    return value if isinstance(value, str) else MISSING


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _with(out: dict[str, Any], **values: Any) -> dict[str, Any]:
    """``out`` with every value that is not :data:`MISSING`, in the order given."""
    for key, value in values.items():
        if value is not MISSING:
            out[key] = value
    return out


def _keep(value: Any, kind: Any) -> Any:
    """``value`` if it is of ``kind`` (``"number"`` for a JSON number), else MISSING."""
    if kind == "number":
        return value if _is_number(value) else MISSING
    return value if isinstance(value, kind) else MISSING


@dataclass
class _Conversion:
    surface: Surface
    warnings: list[str]
    emitted: int = 0
    depth_warned: bool = False
    budget_warned: bool = False
    template_cap_warned: bool = False

    def reserve_node(self) -> bool:
        if self.emitted >= NODE_BUDGET:
            if not self.budget_warned:
                self.warnings.append(f"A2UI node budget of {NODE_BUDGET} was reached.")
                self.budget_warned = True
            return False
        self.emitted += 1
        return True


def _action(node: dict[str, Any], props: dict[str, Any], source: Any, context: _Conversion) -> Any:
    action = props.get("action", MISSING)
    if isinstance(action, str):
        name = action
    elif isinstance(action, dict) and isinstance(action.get("name"), str):
        name = action["name"]
    else:
        return MISSING
    if not name:
        return MISSING
    raw = action.get("context", MISSING) if isinstance(action, dict) else MISSING
    resolved = MISSING if raw is MISSING else _materialize(raw, source)
    return _with(
        {
            "type": "a2ui:action",
            "name": name,
            "surfaceId": context.surface.surface_id,
            "sourceComponentId": node["id"] if isinstance(node.get("id"), str) else "",
        },
        context=resolved,
    )


def _mapped(
    node: dict[str, Any], props: dict[str, Any], source: Any, context: _Conversion
) -> dict[str, Any] | None:
    component = node.get("component")
    if component == "Text":
        text = _string_prop(props, ("text", "value"))
        variant = props.get("variant", MISSING)
        if isinstance(variant, str) and _HEADER.fullmatch(variant):
            return _with({"$type": "Header"}, text=text)
        if variant == "caption":
            return _with({"$type": "Caption"}, value=text)
        return _with({"$type": "Markdown"}, value=text)
    if component == "Image":
        size = props.get("size", MISSING)
        return _with(
            {"$type": "Image"},
            src=_string_prop(props, ("src", "url")),
            alt=_string_prop(props, ("alt", "altText")),
            size=size if isinstance(size, str) or _is_number(size) else MISSING,
            round=_keep(props.get("round", MISSING), bool),
        )
    if component == "Row":
        return _with(
            {"$type": "Row"},
            gap=_keep(props.get("gap", MISSING), "number"),
            align=_keep(_first_defined(props, ("align", "alignment")), str),
            justify=_keep(_first_defined(props, ("justify", "distribution")), str),
        )
    if component == "Column":
        return _with(
            {"$type": "Col"},
            gap=_keep(props.get("gap", MISSING), "number"),
            align=_keep(_first_defined(props, ("align", "alignment")), str),
        )
    if component == "Card":
        return _with(
            {"$type": "Card"},
            title=_keep(props.get("title", MISSING), str),
            padding=_keep(props.get("padding", MISSING), "number"),
            background=_keep(props.get("background", MISSING), str),
        )
    if component == "Divider":
        return _with({"$type": "Divider"}, flush=_keep(props.get("flush", MISSING), bool))
    if component == "Button":
        return _with(
            {"$type": "Button"},
            label=_string_prop(props, ("label", "text")),
            buttonStyle=_keep(props.get("buttonStyle", MISSING), str),
            block=_keep(props.get("block", MISSING), bool),
            submit=_keep(props.get("submit", MISSING), bool),
            **{"$action": _action(node, props, source, context)},
        )
    binding = _first_defined(node, ("text", "value", "binding"))
    segments = _decode_pointer(binding["path"]) if _is_binding(binding) else None
    name = segments[-1] if segments else MISSING
    label = _string_prop(props, ("label",))
    if component == "TextField":
        multiline = props.get("multiline", MISSING)
        if not isinstance(multiline, bool):
            multiline = True if props.get("textFieldType") == "longText" else MISSING
        return _with(
            {"$type": "Input"},
            placeholder=_string_prop(props, ("placeholder",)),
            multiline=multiline,
            label=label,
            name=name,
        )
    if component == "CheckBox":
        return _with(
            {"$type": "Checkbox"},
            label=label,
            name=name,
            defaultChecked=_keep(_first_defined(props, ("defaultChecked", "value")), bool),
        )
    return None


def _template(
    node: dict[str, Any],
    children: dict[str, Any],
    source: Any,
    context: _Conversion,
    depth: int,
    visited: set[str],
) -> dict[str, Any] | None:
    if not context.reserve_node():
        return None
    listed = _resolve_pointer(source, children["template"]["path"])
    if not isinstance(listed, list):
        context.warnings.append(
            f'Template on component "{node.get("id", "")}" did not resolve to a list.'
        )
        return {"$type": "ListView", "children": []}
    count = min(len(listed), TEMPLATE_ITEM_CAP)
    if len(listed) > TEMPLATE_ITEM_CAP and not context.template_cap_warned:
        context.warnings.append(f"A2UI template expansion was capped at {TEMPLATE_ITEM_CAP} items.")
        context.template_cap_warned = True
    items = []
    for at in range(count):
        if not context.reserve_node():
            break
        item = listed[at]
        child = _convert(
            children["template"]["componentId"],
            MISSING if item is HOLE else item,
            context,
            depth + 1,
            visited,
        )
        items.append({"$type": "ListViewItem", **({"children": child} if child else {})})
    return {"$type": "ListView", "children": items}


def _convert(
    component_id: str, source: Any, context: _Conversion, depth: int, visited: set[str]
) -> dict[str, Any] | None:
    if depth >= DEPTH_CAP:
        if not context.depth_warned:
            context.warnings.append(f"A2UI depth cap of {DEPTH_CAP} was reached.")
            context.depth_warned = True
        return None
    if component_id in visited:
        context.warnings.append(f'A2UI component cycle detected at "{component_id}".')
        return None
    node = context.surface.components.get(component_id)
    if node is None:
        context.warnings.append(f'A2UI component "{component_id}" was not found.')
        return None
    visited.add(component_id)
    try:
        children = node.get("children", MISSING)
        if _is_template_children(children):
            return _template(node, children, source, context, depth, visited)
        component = node.get("component")
        if not isinstance(component, str) or component not in SUPPORTED_COMPONENTS:
            context.warnings.append(f'Unknown A2UI component "{component or ""}" was skipped.')
            return None
        if not context.reserve_node():
            return None
        props = {}
        for key, value in node.items():
            if key in ("id", "component", "children"):
                continue
            resolved = _materialize(value, source)
            if resolved is not MISSING:
                props[key] = resolved
        mapped = _mapped(node, props, source, context)
        if mapped is None:
            return None
        converted = []
        if isinstance(children, list):
            for child_id in children:
                if not isinstance(child_id, str):
                    context.warnings.append(
                        f'Component "{node.get("id", "")}" has a malformed child reference.'
                    )
                    continue
                child = _convert(child_id, source, context, depth + 1, visited)
                if child:
                    converted.append(child)
        return {**mapped, **({"children": converted} if converted else {})}
    finally:
        visited.discard(component_id)


def surface_spec(surface: Surface) -> tuple[dict[str, Any] | None, list[str]]:
    """The generative-UI tree of a surface (None when it has no renderable ``root``), and the
    warnings for what was skipped."""
    if "root" not in surface.components:
        return None, ['A2UI root component "root" was not found.']
    context = _Conversion(surface, [])
    try:
        return _convert("root", surface.data_model, context, 0, set()), context.warnings
    except (TypeError, ValueError, RecursionError):
        context.warnings.append("A2UI surface conversion encountered malformed input.")
        return None, context.warnings


def as_json(value: Any) -> Any:
    """A tree with its holes as JSON ``null``, as ``JSON.stringify`` writes them."""
    if value is HOLE:
        return None
    if isinstance(value, list):
        return [as_json(v) for v in value]
    if isinstance(value, dict):
        return {k: as_json(v) for k, v in value.items()}
    return value


def present_part(surface_id: str, spec: dict[str, Any]) -> dict[str, Any]:
    """The tool-call part that shows a surface's tree."""
    args = as_json(spec)
    return {
        "type": "tool-call",
        "toolCallId": tool_call_id(surface_id),
        "toolName": A2UI_TOOL_NAME,
        "args": args,
        "argsText": json_stringify(args),
        "result": {},
    }
