"""The OpenAI stand-in speaks both structured-output shapes ChatOpenAI uses, and says when a test
forgot to script a reply."""

from __future__ import annotations

import openai
import pytest
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, SecretStr

from tests.fakes.openai_server import OpenAIStandIn, count_tokens, structured


class Answer(BaseModel):
    device: str
    lines: list[str]


def chat(server: OpenAIStandIn) -> ChatOpenAI:
    return ChatOpenAI(api_key=SecretStr("k"), base_url=server.base_url, model="m", max_retries=0)


@pytest.mark.parametrize("method", ["json_schema", "function_calling", "json_mode"])
async def test_structured_answers_reach_chatopenai_in_the_shape_it_asked_for(method: str) -> None:
    with OpenAIStandIn() as server:
        server.script(structured({"device": "R1", "lines": ["router ospf 1"]}))
        runnable = chat(server).with_structured_output(Answer, method=method, include_raw=True)  # type: ignore[arg-type]
        result = await runnable.ainvoke("configure R1")
    assert result["parsed"] == Answer(device="R1", lines=["router ospf 1"])
    [request] = server.requests
    assert ("tools" in request.body) == (method == "function_calling")
    usage = result["raw"].usage_metadata
    assert usage["input_tokens"] == count_tokens(request.prompt_text())


async def test_a_request_without_a_scripted_reply_fails_loudly() -> None:
    with OpenAIStandIn() as server:
        with pytest.raises(openai.InternalServerError, match="no scripted reply left"):
            await chat(server).ainvoke("hello")
        assert len(server.requests) == 1
