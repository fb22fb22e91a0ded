"""A minimal AI agent: an OpenAI-compatible model (the stand-in, scripted) chooses tools, the
official MCP client calls them on labbot, their answers go back to the model, until it answers in
words. The tools offered to the model are exactly what labbot's `tools/list` says."""

from __future__ import annotations

import json
from typing import Any

from mcp import ClientSession
from mcp.types import TextContent
from openai import AsyncOpenAI

MAX_TURNS = 10


async def run_agent(session: ClientSession, base_url: str, task: str) -> str:
    """Work on `task` with labbot's tools until the model answers without a tool call."""
    listed = await session.list_tools()
    tools: list[Any] = [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description or "",
                "parameters": tool.input_schema,
            },
        }
        for tool in listed.tools
    ]
    messages: list[Any] = [{"role": "user", "content": task}]
    async with AsyncOpenAI(base_url=base_url, api_key="sk-standin") as model:
        for _ in range(MAX_TURNS):
            reply = await model.chat.completions.create(
                model="stand-in-model", messages=messages, tools=tools
            )
            said = reply.choices[0].message
            if not said.tool_calls:
                return said.content or ""
            messages.append(said.model_dump(exclude_none=True))
            for call in said.tool_calls:
                assert call.type == "function"
                arguments = json.loads(call.function.arguments)
                result = await session.call_tool(call.function.name, arguments)
                (text,) = result.content
                assert isinstance(text, TextContent)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": text.text})
    raise AssertionError(f"the agent did not finish in {MAX_TURNS} turns")


def last_tool_answer(body: dict[str, Any]) -> dict[str, Any]:
    """What the last tool answered, as the model reads it in its request."""
    tool_messages = [m for m in body["messages"] if m.get("role") == "tool"]
    answer: dict[str, Any] = json.loads(tool_messages[-1]["content"])
    return answer
