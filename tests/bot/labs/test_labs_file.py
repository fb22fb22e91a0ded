"""The labs file: each lab and pod group read with its places, people, login by reference and
limits; every mistake one line naming the file, the line and the fix; a secret written in it is
refused; without LABBOT_LABS the settings are one lab, unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from base.errors import ConfigError
from bot.labs.lab_settings import configured_labs, settings_for
from bot.labs.labs_file import read_labs_file
from bot.labs.pods import all_labs
from bot.labs.spec import ContainerlabPods, GNS3Source, InventorySource
from bot.settings import Settings

ENV = {"STAGING_PASSWORD": "s3cret", "STAGING_SECRET": "en4ble"}
LABS = """\
labs:
  staging:
    inventory: staging/hosts.yaml
    slack: ["#staging", C0STAGING]
    matrix: "#staging:example.org"
    approvers: [U0ALICE, "@netops"]
    owners: staging/owners.txt
    credentials: {username: admin, password: STAGING_PASSWORD, secret: STAGING_SECRET}
    limits: {max_targets: 5, max_open: 3}
  dev:
    gns3: {url: "http://gns3:3080", project: dev, user: admin, password: STAGING_PASSWORD}
    slack: C0DEV
pods:
  ccna:
    containerlab: {under: labs, labs: pod-*}
    slack: "#pod-*"
    matrix: "#pod-*:example.org"
    instructors: [U0TEACH]
    students:
      pod-1: [U0ANN]
      pod-2: [U0BEN, U0BOB]
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "labs.yaml"
    path.write_text(text)
    return path


def fails(tmp_path: Path, text: str, env: dict[str, str] | None = None) -> str:
    with pytest.raises(ConfigError) as caught:
        read_labs_file(write(tmp_path, text), ENV if env is None else env)
    return str(caught.value)


def test_a_labs_file_reads_each_lab_and_group(tmp_path: Path) -> None:
    labs = read_labs_file(write(tmp_path, LABS), ENV)
    staging, dev = labs.labs
    assert staging.name == "staging" and staging.line == 2
    assert staging.source == InventorySource(tmp_path / "staging/hosts.yaml")
    assert staging.slack == ("#staging", "C0STAGING")
    assert staging.matrix == ("#staging:example.org",)
    assert staging.approvers == ("U0ALICE", "@netops")
    assert staging.owners == tmp_path / "staging/owners.txt"
    assert staging.credentials.password_ref == "STAGING_PASSWORD"
    assert dict(staging.limits) == {"max_targets": 5, "max_open": 3}
    assert dev.source == GNS3Source("http://gns3:3080", "dev", "admin", "STAGING_PASSWORD")
    (ccna,) = labs.groups
    assert ccna.source == ContainerlabPods(tmp_path / "labs", "pod-*")
    assert ccna.slack == ("#pod-*",) and ccna.instructors == ("U0TEACH",)
    assert dict(ccna.students) == {"pod-1": ("U0ANN",), "pod-2": ("U0BEN", "U0BOB")}


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            "labs:\n  a:\n    inventory: h.yaml\n    credentials: {password: hunter2}\n",
            "line 4: labs.a.credentials.password: a secret is never written in the labs file: "
            "name the environment variable holding it (`password: LAB_PASSWORD`",
        ),
        (
            "labs:\n  a:\n    inventory: h.yaml\n    credentials: {password: NOT_SET_ANYWHERE}\n",
            "line 4: labs.a.credentials.password: NOT_SET_ANYWHERE is not set: export it",
        ),
        ("labs:\n  a:\n    slack: C1\n", "line 2: labs.a: a lab needs exactly one source"),
        (
            "labs:\n  a:\n    inventory: h.yaml\n    gns3: {url: u, project: p}\n",
            "found: inventory, gns3",
        ),
        (
            "labs:\n  a:\n    inventory: h.yaml\n    slak: C1\n",
            "line 4: labs.a.slak: unknown key 'slak' (known: inventory",
        ),
        (
            "labs:\n  a:\n    inventory: h.yaml\n    limits: {max_targets: 0}\n",
            "line 4: labs.a.limits.max_targets: must be a whole number of at least 1",
        ),
        (
            "labs:\n  a:\n    inventory: h.yaml\n    slack: C1\n  b:\n    inventory: g.yaml\n"
            "    slack: [C2, C1]\n",
            "line 5: labs.b: C1 is already a's",
        ),
        (
            "labs:\n  a:\n    inventory: h.yaml\n    matrix: room\n",
            "'room' is not a Matrix room id",
        ),
        ("labs: [a, b]\n", "line 1: labs: must be a mapping"),
        (
            "labs:\n  a:\n    inventory: h.yaml\n  a:\n    inventory: g.yaml\n",
            "line 4: labs.a: given twice",
        ),
        (
            "pods:\n  c:\n    gns3: {url: u, projects: pod-*}\n    students: {lab-1: [U1]}\n",
            "line 4: pods.c.students.lab-1: 'lab-1' does not match the group's pattern 'pod-*'",
        ),
        ("pods:\n  c:\n    gns3: {url: u, projects: pod}\n", "'pod' needs exactly one `*`"),
        ("labs:\n  a: {inventory: h.yaml\n", "line 3: not YAML: did not find expected ',' or '}'"),
        ("", "names no lab"),
    ],
)
def test_each_mistake_is_one_line_naming_the_line_and_the_fix(
    tmp_path: Path, text: str, said: str
) -> None:
    message = fails(tmp_path, text)
    assert said in message and "\n" not in message, message
    assert message.startswith("LABBOT_LABS: ")


AGENTS = frozenset({"claude-code", "copilot"})
WITH_AGENTS = """\
labs:
  staging:
    inventory: staging/hosts.yaml
    agents: [claude-code, copilot, claude-code]
  dev:
    inventory: dev/hosts.yaml
    agents: []
  prod:
    inventory: prod/hosts.yaml
pods:
  ccna:
    containerlab: {under: labs, labs: pod-*}
    slack: "#pod-*"
    agents: copilot
"""


async def test_a_lab_and_a_pod_group_name_the_agents_that_work_in_them(tmp_path: Path) -> None:
    (tmp_path / "labs" / "clab-pod-1").mkdir(parents=True)
    (tmp_path / "labs" / "clab-pod-1" / "topology-data.json").write_text("{}")
    read = read_labs_file(write(tmp_path, WITH_AGENTS), ENV, AGENTS)
    staging, dev, prod = read.labs
    assert staging.agents == ("claude-code", "copilot")  # each once
    assert dev.agents == () and prod.agents is None  # none named; not said
    assert read.groups[0].agents == ("copilot",)
    labs = {lab.name: lab for lab in await all_labs(read, ENV)}
    assert labs["pod-1"].agents == ("copilot",)  # each pod of the group


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            "labs:\n  a:\n    inventory: h.yaml\n    agents:\n      - claude-code\n"
            "      - claud-code\n",
            "line 6: labs.a.agents: 'claud-code' is not an agent of LABBOT_MCP_AGENTS (its "
            "agents: claude-code, copilot)",
        ),
        (
            "pods:\n  c:\n    gns3: {url: u, projects: pod-*}\n    agents: [gpt]\n",
            "line 4: pods.c.agents: 'gpt' is not an agent of LABBOT_MCP_AGENTS",
        ),
        (
            "labs:\n  a:\n    inventory: h.yaml\n    agents: [{claude-code: 1}]\n",
            "line 4: labs.a.agents: must be a word or a path",
        ),
    ],
)
def test_an_agent_no_setting_names_is_refused_with_its_line(
    tmp_path: Path, text: str, said: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        read_labs_file(write(tmp_path, text), ENV, AGENTS)
    message = str(caught.value)
    assert said in message and "\n" not in message, message


async def test_check_and_serve_refuse_an_agent_the_settings_do_not_name(tmp_path: Path) -> None:
    path = write(tmp_path, "labs:\n  a:\n    inventory: h.yaml\n    agents: [claude-code]\n")
    settings = Settings(_env_file=None, labs=path)  # type: ignore[call-arg]
    with pytest.raises(ConfigError) as caught:
        await configured_labs(settings)  # what `labbot check` and `serve` read the file with
    assert "line 4: labs.a.agents: 'claude-code' is not an agent" in str(caught.value)
    assert "(its agents: none)" in str(caught.value)
    named = settings.model_copy(update={"mcp_agents": {"claude-code": ["U1"]}})
    (lab,) = await configured_labs(named)
    assert lab.agents == ("claude-code",)


def test_a_missing_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^LABBOT_LABS: no such file .*nope.yaml$"):
        read_labs_file(tmp_path / "nope.yaml")


async def test_pods_found_under_a_folder_get_their_places_and_people(tmp_path: Path) -> None:
    for name in ("pod-1", "pod-2", "other"):
        (tmp_path / "labs" / f"clab-{name}").mkdir(parents=True)
        (tmp_path / "labs" / f"clab-{name}" / "topology-data.json").write_text("{}")
    (tmp_path / "labs" / "clab-pod-9").mkdir()  # not deployed: no topology-data.json
    labs = await all_labs(read_labs_file(write(tmp_path, LABS), ENV), ENV)
    by_name = {lab.name: lab for lab in labs}
    assert list(by_name) == ["staging", "dev", "pod-1", "pod-2"]
    pod2 = by_name["pod-2"]
    assert pod2.source == InventorySource(tmp_path / "labs" / "clab-pod-2")
    assert pod2.slack == ("#pod-2",) and pod2.matrix == ("#pod-2:example.org",)
    assert pod2.group == "ccna" and pod2.instructors == ("U0TEACH",)
    assert pod2.students == ("U0BEN", "U0BOB")


async def test_a_lab_runs_on_its_own_settings(tmp_path: Path) -> None:
    for name in ("pod-1", "pod-2"):
        (tmp_path / "labs" / f"clab-{name}").mkdir(parents=True)
        (tmp_path / "labs" / f"clab-{name}" / "topology-data.json").write_text("{}")
    base = Settings(_env_file=None, approvers=["U0BOSS"], max_targets=50)  # type: ignore[call-arg]
    labs = {
        lab.name: lab for lab in await all_labs(read_labs_file(write(tmp_path, LABS), ENV), ENV)
    }
    staging = settings_for(base, labs["staging"], ENV)
    assert staging.inventory == tmp_path / "staging/hosts.yaml" and staging.gns3_url is None
    assert staging.device_username == "admin"
    assert staging.device_password is not None
    assert staging.device_password.get_secret_value() == "s3cret"
    assert staging.approvers == ["U0ALICE", "@netops"] and staging.max_targets == 5
    dev = settings_for(base, labs["dev"], ENV)
    assert (dev.gns3_url, dev.gns3_project, dev.inventory) == ("http://gns3:3080", "dev", None)
    assert dev.approvers == ["U0BOSS"] and dev.max_targets == 50  # the deployment's own
    pod1 = settings_for(base, labs["pod-1"], ENV)
    assert pod1.approvers == ["U0TEACH", "U0ANN"]
    assert pod1.requesters == ["U0TEACH", "U0ANN"]


async def test_without_a_labs_file_the_settings_are_one_lab() -> None:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.labs is None
    assert await configured_labs(settings) == ()


HOSTS = "R1: {hostname: 127.0.0.1, platform: cisco_ios, username: u, password: p}\n"


async def test_the_doctor_reads_the_labs_file_and_checks_each_lab(tmp_path: Path) -> None:
    from bot.check.findings import Finding
    from bot.check.inventory_items import inventory_findings
    from bot.check.labs_items import labs_findings

    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "hosts.yaml").write_text(HOSTS)
    path = write(
        tmp_path, "labs:\n  a: {inventory: a/hosts.yaml}\n  b: {inventory: b/hosts.yaml}\n"
    )
    settings = Settings(_env_file=None, labs=path)  # type: ignore[call-arg]

    async def inventory_only(lab_settings: Settings) -> list[Finding]:
        return (await inventory_findings(lab_settings))[1]

    findings = await labs_findings(settings, inventory_only)
    assert [(f.area, f.status) for f in findings] == [
        ("labs", "ok"),
        ("a: inventory", "ok"),
        ("b: inventory", "ok"),
    ]
    assert "2 lab(s): a, b" in findings[0].said
    assert str(tmp_path / "b" / "hosts.yaml") in findings[2].said
    only_b = await labs_findings(settings, inventory_only, only="b")
    assert [f.area for f in only_b] == ["labs", "b: inventory"]
    path.write_text("labs:\n  a: {inventory: a/hosts.yaml, credentials: {password: pw}}\n")
    (broken,) = await labs_findings(settings, inventory_only)
    assert broken.status == "fail" and "line 2: labs.a.credentials.password" in broken.said
