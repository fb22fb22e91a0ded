"""`labbot templates save/show/history/diff/stats` as a user runs them: a subprocess on SQLite."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from bot.runtime.twins import template_twins
from storage.checkpointer import SQLAlchemySaver
from storage.template_store import TemplateDraft, TemplateStore
from tests.bot.test_cli import labbot
from tests.support.sealing import SEALING
from tests.workflow.gateways import two_router_lab
from workflow.api import ChangeWorkflow, Finished
from workflow.library.planner import LibraryPlanner
from workflow.library.saved import SavedTemplatePlanner
from workflow.nodes.change import Nodes

SECTIONS = """\
sections:
  - router ospf * / log-adjacency-changes
  - router ospf * / log-adjacency-changes *
  - router ospf * / network *
"""
TEMPLATE = """\
description: OSPF with logged adjacency changes
derive: routing
phrases: {area: area}
params_schema:
  process_id: {type: int, default: 1}
  area: {type: str, default: "0"}
  networks: {type: list, items: {type: ipv4_network}, min: 1}
example_params: {process_id: 1, area: "0", networks: [10.0.12.0/24]}
sections:
  - router ospf * / log-adjacency-changes
  - router ospf * / log-adjacency-changes *
  - router ospf * / network *
templates:
  cisco_ios: |
    router ospf {{ process_id }}
     log-adjacency-changes
    {% for net in networks %}
     network {{ net|network }} {{ net|wildcard }} area {{ area }}
    {% endfor %}
"""


def test_save_show_history_diff_and_stats_from_the_command_line(tmp_path: Path) -> None:
    env = {"LABBOT_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'lib.db'}"}
    (tmp_path / "lab_ospf.yaml").write_text(TEMPLATE)
    (tmp_path / "v2.json").write_text(
        json.dumps(
            {"name": "lab_ospf", **_yaml(TEMPLATE.replace("-changes\n", "-changes detail\n"))}
        )
    )
    first = labbot("templates", "save", "lab_ospf.yaml", "--as", "bob", cwd=tmp_path, env=env)
    second = labbot("templates", "save", "v2.json", cwd=tmp_path, env=env)
    same = labbot("templates", "save", "v2.json", cwd=tmp_path, env=env)
    history = labbot("templates", "history", "lab_ospf", cwd=tmp_path, env=env)
    diff = labbot("templates", "diff", "lab_ospf@1", "lab_ospf@2", cwd=tmp_path, env=env)
    show = labbot("templates", "lab_ospf@1", cwd=tmp_path, env=env)
    stats = labbot("templates", "stats", "--format", "json", cwd=tmp_path, env=env)
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("saved as lab_ospf@1 sha256 ")
    assert second.stdout.startswith("saved as lab_ospf@2 ")
    assert same.stdout.startswith("already saved as lab_ospf@2 ")
    assert "@1" in history.stdout and "bob" in history.stdout and "@2" in history.stdout
    assert re.search(r"- log-adjacency-changes\s+│", diff.stdout)
    assert "+ log-adjacency-changes detail" in diff.stdout
    assert "Template lab_ospf@1: " in show.stdout  # the name in code style, no backticks
    assert "May touch only" in show.stdout and "router ospf *" in show.stdout
    assert json.loads(stats.stdout) == {
        "changes": 0,
        "tokens_spent": 0,
        "tokens_saved": 0,
        "templates": [],
    }


def test_bad_files_and_names_are_refused_in_one_line_and_store_nothing(tmp_path: Path) -> None:
    env = {"LABBOT_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'lib.db'}"}
    (tmp_path / "broken.yaml").write_text(TEMPLATE.replace("log-adjacency-changes", "frobnicate"))
    (tmp_path / "ospf.yaml").write_text(TEMPLATE)
    (tmp_path / "evil.yaml").write_text(TEMPLATE.replace("log-adjacency-changes", "do reload"))
    broken = labbot("templates", "save", "broken.yaml", cwd=tmp_path, env=env)
    builtin = labbot("templates", "save", "ospf.yaml", cwd=tmp_path, env=env)
    evil = labbot("templates", "save", "evil.yaml", "--no-test", cwd=tmp_path, env=env)
    unknown = labbot("templates", "show", "broken", cwd=tmp_path, env=env)
    (tmp_path / "undeclared.yaml").write_text(TEMPLATE.replace(SECTIONS, ""))
    (tmp_path / "outside.yaml").write_text(TEMPLATE.replace("router ospf *", "router bgp *"))
    undeclared = labbot("templates", "save", "undeclared.yaml", cwd=tmp_path, env=env)
    outside = labbot("templates", "save", "outside.yaml", cwd=tmp_path, env=env)
    assert undeclared.returncode == 2 and "'undeclared.yaml' lacks sections" in undeclared.stderr
    assert outside.returncode == 2 and "outside was not saved" in outside.stderr
    assert "cisco_ios example line 1 `router ospf 1` is outside the sections" in outside.stderr
    assert broken.returncode == 2 and "broken was not saved" in broken.stderr
    said = " ".join(broken.stderr.split())
    assert "line 2 `frobnicate` is a command labbot's model of cisco_ios knows in no mode" in said
    assert "(typed in: router ospf 1)" in said
    assert builtin.returncode == 2 and "ospf is a built-in template" in builtin.stderr
    assert evil.returncode == 2 and "reload" in evil.stderr
    assert unknown.returncode == 2
    assert "There is no saved template 'broken'. Saved: none yet." in unknown.stderr


def _yaml(text: str) -> dict[str, object]:
    loaded: dict[str, object] = yaml.safe_load(text)
    return loaded


DEMO_SCRIPT = """\
apply ospf to R1,R2
as bob
1
save as lab_ospf OSPF for our lab
1
as alice
apply lab_ospf to R1
as bob
1
1
templates stats
"""


def test_console_demo_saves_an_approved_template_and_reuses_it(tmp_path: Path) -> None:
    script = tmp_path / "demo.txt"
    script.write_text(DEMO_SCRIPT)
    demo = labbot("demo", "--script", str(script), "--data-dir", "data", cwd=tmp_path)
    assert demo.returncode == 0, demo.stderr
    assert "Saved lab_ospf@1 (sha256" in demo.stdout
    assert "Uses lab_ospf@1 sha256" in demo.stdout
    assert "Template test on a copy of R1 (cisco_ios)" in demo.stdout
    assert re.search(r"lab_ospf@1\s+1\s+1\s+0\s+0\s+R1 1/1", demo.stdout)


SYSLOG = """\
description: log to the lab's collector
params_schema:
  server: {type: ip}
example_params: {server: 10.0.0.50}
sections: ["logging host *"]
templates:
  cisco_ios: |
    logging host {{ server }}
"""


def test_a_saved_template_allows_only_rules_its_file_names(tmp_path: Path) -> None:
    """Without `allow:` the example is refused naming the family; with it the version is saved
    and `show` says what it may do; an allowance naming no rule is refused."""
    env = {"LABBOT_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'lib.db'}"}
    (tmp_path / "bare.yaml").write_text(SYSLOG)
    (tmp_path / "lab_syslog.yaml").write_text(SYSLOG + "allow: [logging-host]\n")
    (tmp_path / "wrong.yaml").write_text(SYSLOG + "allow: [logging-hots]\n")
    bare = labbot("templates", "save", "bare.yaml", "--no-test", cwd=tmp_path, env=env)
    wrong = labbot("templates", "save", "wrong.yaml", "--no-test", cwd=tmp_path, env=env)
    saved = labbot("templates", "save", "lab_syslog.yaml", "--no-test", cwd=tmp_path, env=env)
    show = labbot("templates", "lab_syslog@1", cwd=tmp_path, env=env)
    assert bare.returncode != 0 and "exfiltration, rule logging-host" in bare.stderr
    assert wrong.returncode != 0 and "`allow: logging-hots` names no deny-list rule" in wrong.stderr
    assert saved.returncode == 0, saved.stderr
    assert "logging-host (exfiltration): sends the device's logs to another host" in show.stdout


NTP_UNDER_OSPF = """\
description: OSPF with the lab's time server
params_schema:
  area: {type: str, default: "0"}
example_params: {area: "0"}
sections: ["router ospf * / network *", "router ospf * / ntp server *"]
templates:
  cisco_ios: |
    router ospf 1
     network 10.0.12.0 0.0.0.255 area {{ area }}
     ntp server 10.6.6.6
"""


async def test_the_command_line_and_the_graph_refuse_a_template_for_the_same_reason(
    tmp_path: Path,
) -> None:
    """A line written inside its section that IOS runs in global configuration: `templates
    save` refuses the file with the reason the graph ends a change with when the same template
    comes from the library (one assessment, on the same twins)."""
    env = {"LABBOT_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'lib.db'}"}
    (tmp_path / "lab_ntp.yaml").write_text(NTP_UNDER_OSPF)
    cli = labbot("templates", "save", "lab_ntp.yaml", cwd=tmp_path, env=env)
    data = yaml.safe_load(NTP_UNDER_OSPF)
    async with SQLAlchemySaver.from_url(f"sqlite+aiosqlite:///{tmp_path / 'graph.db'}") as saver:
        store = TemplateStore(saver.engine, SEALING)
        await store.save(
            TemplateDraft(
                name="lab_ntp",
                description=str(data["description"]),
                templates=data["templates"],
                params_schema=data["params_schema"],
                example_params=data["example_params"],
                saved_by_id="U1",
                saved_by_name="alice",
                sections=data["sections"],
            )
        )
        planner = SavedTemplatePlanner(LibraryPlanner(), store)
        nodes = Nodes(planner, two_router_lab(), trial=template_twins())
        graph = ChangeWorkflow(checkpointer=saver, nodes=nodes)
        ended = await graph.start("t1", change_id="chg-1", text="apply lab_ntp to R1", requester={})
    assert isinstance(ended, Finished) and ended.status == "blocked"
    assert ended.ending is not None and ended.ending["kind"] == "still_invalid"
    [reason] = ended.ending["errors"]
    assert reason.startswith("cisco_ios example line 3 `ntp server 10.6.6.6` is not a command of")
    assert "(lands at: global)" in reason
    assert cli.returncode == 2 and "lab_ntp was not saved" in cli.stderr
    assert " ".join(f"- {reason}".split()) in " ".join(cli.stderr.split())
