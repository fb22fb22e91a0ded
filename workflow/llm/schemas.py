"""The structured answers asked of the LLM (pydantic schemas sent as tool definitions).

Kept loose on purpose (`dict[str, Any]` for schemas and params): the graph validates every
answer with the same rules as the library's templates, and the errors go back to the LLM.
Field descriptions are terse: every word here is billed on every request.

Parameters come in two parts, so their cost does not grow with the lab: `common` once, and
`devices` only for the devices that differ. Per-device values from the lab (addresses,
neighbors, router-ids) are not asked at all: templates read them from `facts`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, ConfigDict, Field

from workflow.model import ParamSpec
from workflow.templates.validation import validate_params

__all__ = ["tool_definition"]


def tool_definition(model: type[BaseModel]) -> dict[str, Any]:
    """The OpenAI tool for `model`, without what JSON Schema implies anyway (defaults,
    `additionalProperties: true`): every request carries it, so every token is paid again.
    The answer is still validated by `model` itself."""

    def trim(node: Any) -> Any:
        if isinstance(node, list):
            return [trim(item) for item in node]
        if not isinstance(node, dict):
            return node
        kept = {
            key: value
            for key, value in node.items()
            if key != "default" and not (key == "additionalProperties" and value is True)
        }
        if isinstance(kept.get("properties"), dict):  # property names are not keywords
            kept["properties"] = {name: trim(v) for name, v in kept["properties"].items()}
        return {key: value if key == "properties" else trim(value) for key, value in kept.items()}

    return cast(dict[str, Any], trim(convert_to_openai_tool(model)))


class TemplateAnswer(BaseModel):
    """A Jinja2 configuration template, or a built-in one by name (and no templates)."""

    # keys beyond these are kept (`model_extra`): an `allow` the model adds is refused with a
    # reason rather than dropped unseen (workflow.safety.allowances); the tool definition omits it
    model_config = ConfigDict(extra="allow")

    name: str = "custom"
    targets: list[str] = Field(default_factory=list)
    description: str = ""
    templates: dict[str, str] = Field(default_factory=dict)
    params_schema: dict[str, Any] = Field(default_factory=dict)
    example_params: dict[str, Any] = Field(
        default_factory=dict, description="For params without default"
    )
    post_checks: list[Any] | dict[str, Any] = Field(
        default_factory=list, description="Checks after the push"
    )
    sections: list[str] = Field(default_factory=list, description="Sections it may touch")


class ParamsAnswer(BaseModel):
    """Parameters: values for every device, and each device's differences."""

    common: dict[str, Any] = Field(default_factory=dict)
    devices: dict[str, dict[str, Any]] = Field(default_factory=dict)

    def device_params(
        self, targets: Sequence[str], base: Mapping[str, Mapping[str, Any]] | None = None
    ) -> dict[str, dict[str, Any]]:
        """Each target's params: `base` (derived locally), under `common`, under its own.

        Values replace whole (a list in `devices` replaces the common list). Devices answered
        but not targeted are kept, so the parameters check names them instead of dropping them.
        """
        merged = {
            name: {**(base or {}).get(name, {}), **self.common, **self.devices.get(name, {})}
            for name in targets
        }
        extra = {name: dict(values) for name, values in self.devices.items() if name not in merged}
        return {**merged, **extra}


def split_common(
    device_params: Mapping[str, Mapping[str, Any]],
) -> dict[str, dict[str, Any]]:
    """The reverse of `ParamsAnswer.device_params`: {"common": ..., "devices": ...}, the
    compact form in which previous or derived parameters are shown to the LLM."""
    values = list(device_params.values())
    common = {
        key: value
        for key, value in (values[0].items() if values else ())
        if all(key in other and other[key] == value for other in values[1:])
    }
    devices = {
        name: own
        for name, params in device_params.items()
        if (own := {k: v for k, v in params.items() if k not in common})
    }
    return {"common": common, "devices": devices}


def expand_schema(answered: Mapping[str, Any]) -> dict[str, ParamSpec]:
    """params_schema as answered, with the shorthand expanded: "ipv4" is {"type": "ipv4"} and
    "int=10" is {"type": "int", "default": 10}. A default is normalized like a value; one that
    does not fit its type is left as written, for the template check to report."""
    schema: dict[str, ParamSpec] = {}
    for name, spec in answered.items():
        if isinstance(spec, Mapping):
            schema[name] = cast(ParamSpec, dict(spec))
        elif isinstance(spec, str):
            kind, has_default, default = (part.strip() for part in spec.partition("="))
            schema[name] = ParamSpec(type=kind)
            if has_default:
                normalized, errors = validate_params({name: ParamSpec(type=kind)}, {name: default})
                schema[name]["default"] = default if errors else normalized[name]
        else:  # neither form: the check names the type it does not know
            schema[name] = ParamSpec(type=repr(spec))
    return schema
