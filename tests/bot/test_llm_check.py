"""`labbot llm check` as a user runs it (a subprocess) against the LLM server stand-ins: the
model, the strategy that works (and what was refused), latency, tokens measured or estimated;
each failure one line on stderr naming the fix."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes import llm_profiles as servers
from tests.fakes.openai_server import OpenAIStandIn, Reply, error, structured, text

ROOT = Path(__file__).resolve().parents[2]
ANSWER = {"device": "R1", "command": "show version"}


def llm_check(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "LABBOT_"))}
    return subprocess.run(
        [sys.executable, "-m", "bot", "llm", "check"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**clean, "PYTHONPATH": str(ROOT), "LABBOT_DATA_DIR": str(tmp_path), **env},
    )


def endpoint(server: OpenAIStandIn, **more: str) -> dict[str, str]:
    return {
        "OPENAI_API_KEY": "sk-lab",
        "OPENAI_BASE_URL": server.base_url,
        "LABBOT_LLM_MODEL": server.profile.name,
        **more,
    }


def test_llama_cpp_without_jinja_works_by_json_schema_and_says_tools_were_refused(
    tmp_path: Path,
) -> None:
    with OpenAIStandIn(profile=servers.LLAMA_CPP) as server:
        server.script(structured(ANSWER))
        run = llm_check(tmp_path, **endpoint(server))
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == f"endpoint  {server.base_url}"
    assert lines[1] == "model     llama-server (no --jinja)"
    assert lines[2] == "strategy  json_schema (LABBOT_LLM_OUTPUT=auto)"
    assert lines[3] == "          not tools: HTTP 500 tools param requires --jinja flag"
    assert lines[4].startswith("latency   ") and lines[4].endswith(" s")
    assert lines[5].startswith("tokens    ") and lines[5].endswith("(measured by the endpoint)")
    assert "answer    R1: show version" in lines


def test_one_answer_without_an_object_does_not_hide_that_the_server_supports_tools(
    tmp_path: Path,
) -> None:
    with OpenAIStandIn(profile=servers.VLLM_TOOL_PARSER) as server:
        server.script(text("Let me think about which device you mean."), structured(ANSWER))
        run = llm_check(tmp_path, **endpoint(server))
    assert run.returncode == 0, run.stderr
    assert "strategy  tools (LABBOT_LLM_OUTPUT=auto)\n" in run.stdout
    assert "not tools" not in run.stdout and "answer    R1: show version" in run.stdout


def test_a_server_without_usage_gets_estimated_tokens(tmp_path: Path) -> None:
    with OpenAIStandIn(profile=servers.NO_USAGE) as server:
        server.script(structured(ANSWER))
        run = llm_check(tmp_path, **endpoint(server))
    assert run.returncode == 0, run.stderr
    assert "strategy  tools (LABBOT_LLM_OUTPUT=auto)" in run.stdout
    assert "(estimated: the endpoint reports no usage)" in run.stdout


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (error(401, "Incorrect API key"), "refused the API key (401); check OPENAI_API_KEY"),
        (
            error(404, "model not found"),
            "does not know the model 'openai' (404); check LABBOT_LLM_MODEL",
        ),
        (
            structured(ANSWER, delay_seconds=3),
            "did not answer within 0.5 s; check it is up or raise LABBOT_LLM_TIMEOUT",
        ),
    ],
    ids=["401", "404", "timeout"],
)
def test_each_failure_is_one_line_naming_the_fix(
    tmp_path: Path, reply: Reply, expected: str
) -> None:
    with OpenAIStandIn() as server:
        server.script(reply)
        run = llm_check(tmp_path, **endpoint(server, LABBOT_LLM_TIMEOUT="0.5"))
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == f"labbot: the LLM endpoint at {server.base_url} {expected}\n"


def test_an_unreachable_endpoint_and_a_missing_key_are_one_line_each(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: connection refused
    url = f"http://127.0.0.1:{port}/v1"
    run = llm_check(tmp_path, OPENAI_API_KEY="k", OPENAI_BASE_URL=url)
    assert run.returncode == 2 and len(run.stderr.splitlines()) == 1
    assert run.stderr.startswith(f"labbot: cannot reach the LLM endpoint at {url}")
    assert run.stderr.rstrip().endswith("check OPENAI_BASE_URL and that the server is up")
    run = llm_check(tmp_path)
    assert run.returncode == 2
    assert (
        run.stderr.startswith("labbot: OPENAI_API_KEY is not set")
        and len(run.stderr.splitlines()) == 1
    )
