from pathlib import Path

import pytest
from pydantic import ValidationError

from base.errors import ConfigError
from bot.policy.approvers import policy_from
from bot.runtime.wiring import workflow_options
from bot.settings import Settings, load_settings
from workflow.options import WorkflowOptions


def test_lists_and_rules_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LABBOT_DEVICE_TYPES", "R*=cisco_ios_telnet, SW*=arista_eos_telnet")
    monkeypatch.setenv("LABBOT_APPROVERS", "U1, U2")
    monkeypatch.setenv("LABBOT_APPROVERS_BY_CHANNEL", "C1=U3 U4;!room:hs=@a:hs")
    settings = load_settings()
    assert settings.device_types == {"R*": "cisco_ios_telnet", "SW*": "arista_eos_telnet"}
    assert settings.approvers == ["U1", "U2"]
    assert settings.approvers_by_channel == {"C1": ["U3", "U4"], "!room:hs": ["@a:hs"]}


@pytest.mark.parametrize(
    ("name", "value", "needle"),
    [
        ("LABBOT_DATABASE_URL", "mysql://db", "LABBOT_DATABASE_URL"),
        ("LABBOT_PUSH_APPROVALS", "zero", "LABBOT_PUSH_APPROVALS"),
        ("LABBOT_DEVICE_TYPES", "R1", "LABBOT_DEVICE_TYPES"),
        ("LABBOT_GATE_TTL_SECONDS", "-5", "LABBOT_GATE_TTL_SECONDS"),
        ("LABBOT_LLM_OUTPUT", "xml", "Input should be 'auto', 'tools', 'json_schema' or 'json'"),
        ("LABBOT_LLM_MAX_TOKENS", "3", "LABBOT_LLM_MAX_TOKENS"),
    ],
)
def test_a_bad_setting_is_one_line_naming_it(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, needle: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert needle in str(caught.value) and "\n" not in str(caught.value)


def test_yaml_file_is_read(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    config = tmp_path / "labbot.yaml"
    config.write_text("LABBOT_ALLOW_SELF_APPROVAL: true\nLABBOT_PUSH_APPROVALS: 2\n")
    monkeypatch.setenv("LABBOT_CONFIG", str(config))
    settings = load_settings()
    assert settings.allow_self_approval and settings.push_approvals == 2


def test_missing_yaml_file_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("LABBOT_CONFIG", str(tmp_path / "nope.yaml"))
    with pytest.raises(ConfigError, match="LABBOT_CONFIG"):
        load_settings()


def test_env_example_documents_every_setting() -> None:
    from pathlib import Path

    from bot.settings import Settings

    example = (Path(__file__).parents[2] / "deploy" / ".env.example").read_text()
    documented = {
        line.split("=", 1)[0].lstrip("# ") for line in example.splitlines() if "=" in line
    }
    missing = {f.validation_alias for f in Settings.model_fields.values()} - documented
    assert not missing, f"deploy/.env.example lacks {sorted(missing)}"


def test_the_database_is_in_the_data_dir_unless_a_url_is_set(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("LABBOT_DATABASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    default = load_settings()
    assert default.database_url == f"sqlite+aiosqlite:///{tmp_path / 'labbot-data' / 'labbot.db'}"
    monkeypatch.setenv("LABBOT_DATA_DIR", "elsewhere")
    moved = load_settings()
    assert moved.database_url == f"sqlite+aiosqlite:///{tmp_path / 'elsewhere' / 'labbot.db'}"
    monkeypatch.setenv("LABBOT_DATABASE_URL", "postgresql+psycopg://labbot@db/labbot")
    assert load_settings().database_url == "postgresql+psycopg://labbot@db/labbot"


def test_the_workflow_reads_its_settings_by_their_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LABBOT_TWIN_SECONDS", "2.5")
    monkeypatch.setenv("LABBOT_PLAN_ATTEMPTS", "5")
    options = workflow_options(load_settings())
    assert (options.twin_seconds, options.plan_attempts) == (2.5, 5)
    with pytest.raises(ValidationError):  # the nodes are handed their settings, never edited
        options.twin_seconds = 60  # type: ignore[misc]


def test_a_workflow_built_without_settings_has_the_settings_defaults() -> None:
    """Tests and library users build the graph with WorkflowOptions(): the same defaults."""
    for name, option in WorkflowOptions.model_fields.items():
        assert option.default == Settings.model_fields[name].default, name


@pytest.mark.parametrize(
    ("name", "value", "refused"),
    [
        ("MATRIX_USER_ID", "labbot:hs", "'labbot:hs' is no Matrix user id"),
        ("LABBOT_APPROVERS", "U1, ＠bob:hs", "'＠bob:hs' is no Matrix user id"),
        ("LABBOT_APPROVERS", "@bоb:hs", "'@bоb:hs' is no Matrix user id"),  # a Cyrillic о
        ("LABBOT_REQUESTERS", "@bob:h s.org", "'@bob:h s.org' is no Matrix user id"),
        ("LABBOT_APPROVERS_BY_CHANNEL", "!room:hs=@bob:hs:port", "'@bob:hs:port'"),
        ("LABBOT_APPROVERS_BY_CHANNEL", "#ops=@bob:hs", "'#ops' is no Matrix room"),
        ("LABBOT_MATRIX_ROOMS", "!lab:hs, lab", "'lab' is no Matrix room"),
        ("LABBOT_MATRIX_AUTHORITY_ROOM", "#ops:h_s", "'#ops:h_s' is no Matrix room"),
        ("LABBOT_MCP_CHANNEL", "matrix:ops", "'ops' is no Matrix room"),
        ("LABBOT_MCP_AGENTS", f"a=@bob:hs\u200b sha256:{'0' * 64}", "is no Matrix user id"),
    ],
)
def test_a_matrix_id_that_is_none_is_refused_naming_the_setting(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, refused: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert str(caught.value).startswith(f"{name}: ") and refused in str(caught.value)


def test_valid_matrix_ids_are_read_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MATRIX_USER_ID", "@labbot:matrix.example.org:8448")
    monkeypatch.setenv("LABBOT_MATRIX_ROOMS", "!AbC:hs,#ops:[::1]:8448,!opaque12")
    monkeypatch.setenv("LABBOT_APPROVERS", "@Old.Style+ID:hs, @netops, power>=50")
    settings = load_settings()
    assert settings.matrix_rooms == ["!AbC:hs", "#ops:[::1]:8448", "!opaque12"]
    assert settings.approvers == ["@Old.Style+ID:hs", "@netops", "power>=50"]


def test_look_alike_people_in_the_policy_are_refused_naming_both(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LABBOT_APPROVERS", "@bob:hs, @carol:hs")
    monkeypatch.setenv("LABBOT_REQUESTERS", "@BOB:hs")
    with pytest.raises(ConfigError) as caught:
        policy_from(load_settings())
    assert "'@bob:hs' and '@BOB:hs' look alike" in str(caught.value)
    monkeypatch.setenv("LABBOT_REQUESTERS", "@bob:HS")  # one name: a server name ignores case
    assert policy_from(load_settings()).requesters == ("@bob:HS",)
