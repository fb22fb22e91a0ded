"""What the LLM is sent carries no secret value, and what it answers with a token gets the value
back: the wire's masking as the real OpenAI client sends through it to the stand-in."""

from __future__ import annotations

import itertools
import json

from base.masking import SecretMask
from tests.fakes.openai_server import OpenAIStandIn, structured
from tests.workflow.llm.test_planner import TOPOLOGY
from workflow.llm import LLMPlanner, LLMSecrets, make_llm_planner
from workflow.model import PlanRequest, TemplateProposal

MASK = SecretMask(b"test key")
t = MASK.token


def masked_planner(llm: OpenAIStandIn) -> LLMPlanner:
    """The planner on the OpenAI stand-in, its requests masked and answers revealed by MASK."""
    return make_llm_planner(
        api_key="sk-lab", base_url=llm.base_url, model="m", timeout=5, secrets=LLMSecrets(MASK)
    )


def body(*messages: dict[str, object]) -> bytes:
    return json.dumps({"model": "m", "messages": list(messages)}).encode()


def test_every_message_is_masked_by_the_rules_people_s_words_and_known_values() -> None:
    secrets = LLMSecrets(MASK, credentials=["Lab-Login-77"])
    sent = json.loads(
        secrets.request_body(
            body(
                {"role": "system", "content": "Devices: R1 (cisco_ios)"},
                {"role": "user", "content": "why is community Pub-C refused on R1?"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{"function": {"name": "Read", "arguments": '{"q":"Ntp-K9"}'}}],
                },
                {
                    "role": "tool",
                    "content": "ntp authentication-key 1 md5 Ntp-K9 7\nlogin Lab-Login-77",
                },
                {"role": "user", "content": [{"type": "text", "text": "is Ntp-K9 the key?"}]},
            )
        )
    )
    said = json.dumps(sent, ensure_ascii=False)
    assert not any(v in said for v in ("Pub-C", "Ntp-K9", "Lab-Login-77")), said
    messages = sent["messages"]
    assert messages[1]["content"] == f"why is community {t('Pub-C')} refused on R1?"
    assert messages[3]["content"].startswith(f"ntp authentication-key 1 md5 {t('Ntp-K9')} 7")
    assert t("Ntp-K9") in messages[2]["tool_calls"][0]["function"]["arguments"]  # known after
    assert messages[4]["content"][0]["text"] == f"is {t('Ntp-K9')} the key?"
    assert messages[0]["content"] == "Devices: R1 (cisco_ios)"


def test_an_answer_gets_back_the_values_its_request_typed_and_no_other() -> None:
    """A token anyone may see (a device's secret in a read, a value someone else typed, shown
    masked in their thread) is no key to its value; nor is a credential labbot holds."""
    secrets = LLMSecrets(MASK, credentials=["Lab-Login-77"])
    secrets.hide("snmp-server community Read-Earlier RO\nset community Bobs-C on R1", said=True)
    said = "set community Pub-C on R1 and password Lab-Login-77"
    secrets.hide(said, said=True)  # as the request went to the model
    answer = {
        "defaults": [f"community {t('Pub-C')}", t("Lab-Login-77")],
        "description": f"as {t('Read-Earlier')} and {t('Bobs-C')}",
        "n": 1,
    }
    assert secrets.reveal(answer, said) == {
        "defaults": ["community Pub-C", t("Lab-Login-77")],
        "description": f"as {t('Read-Earlier')} and {t('Bobs-C')}",
        "n": 1,
    }
    assert secrets.hide(f"the answer quoted Pub-C and {t('Other')}") == (
        f"the answer quoted {t('Pub-C')} and {t('Other')}"
    )


def test_a_token_two_typed_values_share_is_never_given_back() -> None:
    seen: dict[str, str] = {}
    for n in itertools.count():  # two values whose short tokens collide (birthday: ~5000)
        value = f"comm-{n}"
        if (token := t(value)) in seen:
            break
        seen[token] = value
    said = f"snmp-server community {seen[token]} RO\nsnmp-server community {value} RO"
    assert LLMSecrets(MASK).reveal(token, said) == token  # a line carrying it is refused


async def test_a_typed_secret_reaches_the_llm_as_its_token_and_the_change_as_typed(
    llm: OpenAIStandIn,
) -> None:
    """The planner's request carries the token; the model uses it as the default; the proposal
    has the value the person typed."""
    answer = {
        "name": "snmp_ro",
        "templates": {"cisco_ios": "snmp-server community {{ community }} RO\n"},
        "params_schema": {"community": f"str={t('Typed-C-1')}"},
        "targets": ["R1"],
        "sections": ["snmp-server community *"],
    }
    llm.script(structured(answer))
    planner = masked_planner(llm)
    request = PlanRequest(text="configure snmp community Typed-C-1 RO on R1", topology=TOPOLOGY)
    proposal = await planner.propose_template(request)
    [sent] = llm.requests
    assert "Typed-C-1" not in json.dumps(sent.body, ensure_ascii=False)
    assert f"community {t('Typed-C-1')} RO on R1" in sent.prompt_text()
    assert proposal["params_schema"]["community"]["default"] == "Typed-C-1"


async def test_a_template_s_secret_values_reach_the_llm_as_their_tokens(
    llm: OpenAIStandIn,
) -> None:
    """The parameters step shows the model the template's schema and examples: a default or an
    example named like a secret (a saved template's community, an `auth_key`) goes as its
    token, whatever form the schema takes, and the model's earlier answer too."""
    template = TemplateProposal(
        name="team_snmp",
        description="the team's SNMP",
        templates={"cisco_ios": "snmp-server community {{ community }} RO\n"},
        params_schema={
            "community": {"type": "str", "default": "Team-Comm-9", "description": "the team's"},
            "auth_key": {"type": "str"},
            "location": {"type": "str"},
        },
        example_params={"auth_key": "Team-Key-77", "location": "rack 3"},
        targets=["R1"],
        source="saved",
        sections=["snmp-server community *"],
    )
    llm.script(structured({"common": {"location": "rack 4"}}))
    planner = masked_planner(llm)
    previous = {"device_params": {"R1": {"auth_key": "Team-Key-77", "location": "rack 2"}}}
    request = PlanRequest(
        text="set the location on R1", topology=TOPOLOGY, feedback="rack 4", previous=previous
    )
    await planner.propose_params(request, template)
    [sent] = llm.requests
    said = json.dumps(sent.body, ensure_ascii=False)
    assert "Team-Comm-9" not in said and "Team-Key-77" not in said, sent.prompt_text()
    assert t("Team-Comm-9") in said and t("Team-Key-77") in said and "rack 3" in said


async def test_a_value_typed_in_an_earlier_modify_stays_when_the_model_restates_it(
    llm: OpenAIStandIn,
) -> None:
    """A second Modify (`location rack 4`) after one that typed the community: the model, shown
    the earlier parameters with the community as its token, restates them; the change keeps
    the community typed before, not its token (a line carrying one is never pushed)."""
    template = TemplateProposal(
        name="snmp",
        description="SNMP community and location",
        templates={
            "cisco_ios": "snmp-server community {{ community }} RO\n"
            "snmp-server location {{ location }}\n"
        },
        params_schema={"community": {"type": "str"}, "location": {"type": "str"}},
        example_params={"community": "example", "location": "rack 1"},
        targets=["R1"],
        source="llm",
        sections=["snmp-server community *", "snmp-server location *"],
    )
    earlier = {"R1": {"community": "Earlier-C-5", "location": "rack 2"}}
    llm.script(structured({"common": {"community": t("Earlier-C-5"), "location": "rack 4"}}))
    planner = masked_planner(llm)
    request = PlanRequest(
        text="configure snmp on R1",
        topology=TOPOLOGY,
        feedback="location rack 4",
        previous={"device_params": earlier},
    )
    proposal = await planner.propose_params(request, template)
    [sent] = llm.requests
    assert "Earlier-C-5" not in json.dumps(sent.body, ensure_ascii=False)
    assert proposal["device_params"] == {"R1": {"community": "Earlier-C-5", "location": "rack 4"}}


async def test_a_saved_template_s_secret_default_is_no_key_for_a_modify(
    llm: OpenAIStandIn,
) -> None:
    """Modify on a saved template: the model sees its community default as a token; a template
    it writes with that token (as a description) keeps the token: nobody in the change typed
    the value, and views show the saved template's default masked."""
    saved = TemplateProposal(
        name="team_snmp",
        description="the team's SNMP",
        templates={"cisco_ios": "snmp-server community {{ community }} RO\n"},
        params_schema={"community": {"type": "str", "default": "Team-Comm-9"}},
        example_params={},
        targets=["R1"],
        source="saved",
        sections=["snmp-server community *"],
    )
    answer = {
        "name": "describe",
        "templates": {"cisco_ios": "interface Gi0/0\n description {{ text }}\n"},
        "params_schema": {"text": f"str={t('Team-Comm-9')}"},
        "targets": ["R1"],
        "sections": ["interface * / description *"],
    }
    llm.script(structured(answer))
    planner = masked_planner(llm)
    request = PlanRequest(
        text="apply team_snmp on R1",
        topology=TOPOLOGY,
        feedback="describe Gi0/0 instead",
        previous=saved,
    )
    proposal = await planner.propose_template(request)
    assert proposal["params_schema"]["text"]["default"] == t("Team-Comm-9")
