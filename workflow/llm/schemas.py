"""The structured answers asked of the LLM (pydantic schemas sent as tool definitions).

Kept loose on purpose (`dict[str, Any]` for schemas and params): the graph validates every
answer with the same rules as the library's templates, and the errors go back to the LLM.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class TemplateAnswer(BaseModel):
    """A Jinja2 configuration template, or the name of a built-in template that does the job."""

    library_template: str | None = Field(
        None,
        description="Name of a built-in template that does exactly what is asked; "
        "null when you write the template yourself.",
    )
    targets: list[str] = Field(
        default_factory=list, description="Names of the devices the request is about."
    )
    name: str = Field("custom", description="Short name of your template, e.g. ospf-area0.")
    description: str = Field("", description="One sentence a reviewer reads first.")
    templates: dict[str, str] = Field(
        default_factory=dict,
        description="Platform family (cisco_ios, arista_eos, ...) -> Jinja2 source, "
        "one configuration command per line.",
    )
    params_schema: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="Parameter name -> {type, description, required?, items?, fields?}.",
    )
    example_params: dict[str, Any] = Field(
        default_factory=dict, description="Realistic example values for every parameter."
    )


class ParamsAnswer(BaseModel):
    """Per-device template parameters."""

    device_params: dict[str, dict[str, Any]] = Field(
        description="Device name -> parameters matching the template's schema."
    )
