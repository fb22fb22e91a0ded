"""One typed settings object, read from the environment, `.env` and an optional YAML file.

A wrong or missing value becomes one `ConfigError` line naming the setting and the fix.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    YamlConfigSettingsSource,
)
from pydantic_settings.exceptions import SettingsError

from adapters.user_ids import is_matrix_room, is_matrix_user_id, meant_as_matrix_user
from base.errors import ConfigError
from bot import messages
from workflow.devices.session_limits import DEFAULT_SESSIONS, MOST_SESSIONS

__all__ = [
    "DEMO_DATA_DIR",
    "EMBEDDED_DATABASE",
    "Settings",
    "check_who",
    "embedded_database_url",
    "load_settings",
    "secret_value",
]

DEFAULT_DATA_DIR = Path("./labbot-data")
# `labbot demo`'s own place (never LABBOT_DATA_DIR): its simulated changes stay apart from a lab's
DEMO_DATA_DIR = Path("./labbot-demo")
EMBEDDED_DATABASE = "labbot.db"


def embedded_database_url(data_dir: Path) -> str:
    """The one rule for the embedded database: `labbot.db` inside LABBOT_DATA_DIR."""
    return f"sqlite+aiosqlite:///{data_dir.resolve() / EMBEDDED_DATABASE}"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
    )

    # storage
    # unset: the embedded SQLite file inside data_dir (embedded_database_url)
    database_url: str = Field("", validation_alias="LABBOT_DATABASE_URL")
    data_dir: Path = Field(DEFAULT_DATA_DIR, validation_alias="LABBOT_DATA_DIR")
    db_wait_seconds: float = Field(30.0, ge=0, validation_alias="LABBOT_DB_WAIT_SECONDS")
    shutdown_seconds: float = Field(20.0, ge=0, validation_alias="LABBOT_SHUTDOWN_SECONDS")

    # Slack
    slack_bot_token: SecretStr | None = Field(None, validation_alias="SLACK_BOT_TOKEN")
    slack_app_token: SecretStr | None = Field(None, validation_alias="SLACK_APP_TOKEN")
    slack_signing_secret: SecretStr | None = Field(None, validation_alias="SLACK_SIGNING_SECRET")
    slack_api_url: str = Field("https://slack.com/api/", validation_alias="SLACK_API_URL")

    # Matrix
    matrix_homeserver: str | None = Field(None, validation_alias="MATRIX_HOMESERVER")
    matrix_user_id: str | None = Field(None, validation_alias="MATRIX_USER_ID")
    matrix_access_token: SecretStr | None = Field(None, validation_alias="MATRIX_ACCESS_TOKEN")
    matrix_password: SecretStr | None = Field(None, validation_alias="MATRIX_PASSWORD")
    matrix_rooms: Annotated[list[str], NoDecode] = Field(
        default_factory=list, validation_alias="LABBOT_MATRIX_ROOMS"
    )
    matrix_authority_room: str | None = Field(None, validation_alias="LABBOT_MATRIX_AUTHORITY_ROOM")
    matrix_trust: Literal["tofu", "verified"] = Field(
        "tofu", validation_alias="LABBOT_MATRIX_TRUST"
    )

    # LLM
    openai_api_key: SecretStr | None = Field(None, validation_alias="OPENAI_API_KEY")
    openai_base_url: str | None = Field(None, validation_alias="OPENAI_BASE_URL")
    llm_model: str = Field("gpt-4o-mini", validation_alias="LABBOT_LLM_MODEL")
    llm_timeout_seconds: float = Field(60.0, gt=0, validation_alias="LABBOT_LLM_TIMEOUT")
    llm_output: Literal["auto", "tools", "json_schema", "json"] = Field(
        "auto", validation_alias="LABBOT_LLM_OUTPUT"
    )
    llm_max_tokens: int = Field(4096, ge=16, le=200_000, validation_alias="LABBOT_LLM_MAX_TOKENS")
    plan_attempts: int = Field(3, ge=1, le=10, validation_alias="LABBOT_PLAN_ATTEMPTS")

    # devices
    gns3_url: str | None = Field(None, validation_alias="GNS3_URL")
    gns3_user: str | None = Field(None, validation_alias="GNS3_USER")
    gns3_password: SecretStr | None = Field(None, validation_alias="GNS3_PASSWORD")
    gns3_project: str | None = Field(None, validation_alias="GNS3_PROJECT")
    device_types: Annotated[dict[str, str], NoDecode] = Field(
        default_factory=dict, validation_alias="LABBOT_DEVICE_TYPES"
    )
    inventory: Path | None = Field(None, validation_alias="LABBOT_INVENTORY")
    # many labs, one bot: the labs file (bot.labs.labs_file); unset: the settings' one lab
    labs: Path | None = Field(None, validation_alias="LABBOT_LABS")
    # its pod groups looked up again while serving (bot.runtime.pod_refresh): every this many
    # seconds (0: not on a timer), and when a place no lab answers for speaks, at most once per
    # the lookup seconds
    labs_refresh_seconds: float = Field(
        300.0, ge=0, le=86400, validation_alias="LABBOT_LABS_REFRESH_SECONDS"
    )
    labs_lookup_seconds: float = Field(
        10.0, ge=1, le=3600, validation_alias="LABBOT_LABS_LOOKUP_SECONDS"
    )
    device_username: str | None = Field(None, validation_alias="LABBOT_DEVICE_USERNAME")
    device_password: SecretStr | None = Field(None, validation_alias="LABBOT_DEVICE_PASSWORD")
    device_secret: SecretStr | None = Field(None, validation_alias="LABBOT_DEVICE_SECRET")
    connect_timeout_seconds: float = Field(15.0, gt=0, validation_alias="LABBOT_CONNECT_TIMEOUT")
    read_timeout_seconds: float = Field(30.0, gt=0, validation_alias="LABBOT_READ_TIMEOUT")
    device_sessions: int = Field(
        DEFAULT_SESSIONS, ge=1, le=MOST_SESSIONS, validation_alias="LABBOT_DEVICE_SESSIONS"
    )
    device_lock_seconds: float = Field(900.0, gt=0, validation_alias="LABBOT_DEVICE_LOCK_SECONDS")
    lock_from_preview: bool = Field(False, validation_alias="LABBOT_LOCK_FROM_PREVIEW")

    # policy
    approvers: Annotated[list[str], NoDecode] = Field(
        default_factory=list, validation_alias="LABBOT_APPROVERS"
    )
    approvers_by_channel: Annotated[dict[str, list[str]], NoDecode] = Field(
        default_factory=dict, validation_alias="LABBOT_APPROVERS_BY_CHANNEL"
    )
    requesters: Annotated[list[str], NoDecode] = Field(
        default_factory=list, validation_alias="LABBOT_REQUESTERS"
    )
    owners: Path | None = Field(None, validation_alias="LABBOT_OWNERS")
    # who may sit at `labbot console` besides the OS user who starts it (`as NAME`)
    console_users: Annotated[list[str], NoDecode] = Field(
        default_factory=list, validation_alias="LABBOT_CONSOLE_USERS"
    )
    allow_self_approval: bool = Field(False, validation_alias="LABBOT_ALLOW_SELF_APPROVAL")
    template_approvals: int = Field(1, ge=1, le=10, validation_alias="LABBOT_TEMPLATE_APPROVALS")
    push_approvals: int = Field(1, ge=1, le=10, validation_alias="LABBOT_PUSH_APPROVALS")
    max_open_per_user: int = Field(5, ge=1, validation_alias="LABBOT_MAX_OPEN_PER_USER")
    max_open_per_channel: int = Field(20, ge=1, validation_alias="LABBOT_MAX_OPEN_PER_CHANNEL")
    max_open: int = Field(200, ge=1, validation_alias="LABBOT_MAX_OPEN")
    max_request_chars: int = Field(
        4000, ge=100, le=100_000, validation_alias="LABBOT_MAX_REQUEST_CHARS"
    )
    gate_ttl_seconds: float = Field(86400.0, gt=0, validation_alias="LABBOT_GATE_TTL_SECONDS")
    # a device's lines tried on its twin before the params gate (an FRR twin starts in ~1 s)
    twin_seconds: float = Field(20.0, gt=0, le=600, validation_alias="LABBOT_TWIN_SECONDS")
    # a twin of the whole FRR lab before the Execute gate: at most this many routers, this long
    # (building, the lines, the post-checks), this many at once (0: no twin)
    lab_twin_routers: int = Field(20, ge=1, le=50, validation_alias="LABBOT_LAB_TWIN_ROUTERS")
    lab_twin_seconds: float = Field(60.0, gt=0, le=600, validation_alias="LABBOT_LAB_TWIN_SECONDS")
    lab_twins: int = Field(1, ge=0, le=8, validation_alias="LABBOT_LAB_TWINS")
    max_targets: int = Field(50, ge=1, validation_alias="LABBOT_MAX_TARGETS")
    max_targets_confirmed: int = Field(500, ge=1, validation_alias="LABBOT_MAX_TARGETS_CONFIRMED")
    max_reads_per_minute: int = Field(
        30, ge=1, le=10_000, validation_alias="LABBOT_MAX_READS_PER_MINUTE"
    )
    read_inline_chars: int = Field(
        20_000, ge=1_000, le=1_000_000, validation_alias="LABBOT_READ_INLINE_CHARS"
    )
    read_max_chars: int = Field(
        4_000_000, ge=10_000, le=100_000_000, validation_alias="LABBOT_READ_MAX_CHARS"
    )
    read_channel_budget: int = Field(
        5_000_000, ge=1_000, validation_alias="LABBOT_READ_CHANNEL_BUDGET"
    )
    audit_key: SecretStr | None = Field(None, validation_alias="LABBOT_AUDIT_KEY")
    # keys sealing device text at rest, comma-separated: the first seals, all open (rotation)
    storage_key: SecretStr | None = Field(None, validation_alias="LABBOT_STORAGE_KEY")
    audit_head_file: Path | None = Field(None, validation_alias="LABBOT_AUDIT_HEAD_FILE")
    audit_channel: str | None = Field(None, validation_alias="LABBOT_AUDIT_CHANNEL")
    render_workers: int = Field(2, ge=0, le=16, validation_alias="LABBOT_RENDER_WORKERS")
    render_cpu_seconds: float = Field(5.0, gt=0, validation_alias="LABBOT_RENDER_CPU_SECONDS")
    render_memory_mb: int = Field(512, ge=128, validation_alias="LABBOT_RENDER_MEMORY_MB")
    deny_extra: Annotated[list[str], NoDecode] = Field(
        default_factory=list, validation_alias="LABBOT_DENY_EXTRA"
    )

    # AI agents over MCP (bot.policy.agent_principals, docs/mcp.md)
    # `NAME=PRINCIPAL [sha256:HEX …];…`: each agent, the person it acts for, its tokens (none:
    # served over stdio only, by whoever may start `labbot mcp`; no token reaches it)
    mcp_agents: Annotated[dict[str, list[str]], NoDecode] = Field(
        default_factory=dict, validation_alias="LABBOT_MCP_AGENTS"
    )
    mcp_agent: str | None = Field(None, validation_alias="LABBOT_MCP_AGENT")  # `labbot mcp`'s
    # where agents' changes open: slack:CHANNEL, matrix:ROOM or console
    mcp_channel: str | None = Field(None, validation_alias="LABBOT_MCP_CHANNEL")
    mcp_port: int = Field(0, ge=0, le=65535, validation_alias="LABBOT_MCP_PORT")  # 0: none
    mcp_host: str = Field("127.0.0.1", validation_alias="LABBOT_MCP_HOST")
    mcp_calls_per_minute: int = Field(
        60, ge=1, le=10_000, validation_alias="LABBOT_MCP_CALLS_PER_MINUTE"
    )
    mcp_max_open_per_agent: int = Field(3, ge=1, validation_alias="LABBOT_MCP_MAX_OPEN_PER_AGENT")
    mcp_sessions_per_agent: int = Field(  # open HTTP sessions one agent may hold
        8, ge=1, le=1000, validation_alias="LABBOT_MCP_SESSIONS_PER_AGENT"
    )
    mcp_max_wait_seconds: float = Field(
        600.0, gt=0, le=3600, validation_alias="LABBOT_MCP_MAX_WAIT_SECONDS"
    )

    @field_validator(
        "slack_bot_token",
        "slack_app_token",
        "slack_signing_secret",
        "matrix_homeserver",
        "matrix_user_id",
        "matrix_access_token",
        "matrix_password",
        "matrix_authority_room",
        "openai_api_key",
        "openai_base_url",
        "gns3_url",
        "gns3_user",
        "gns3_password",
        "gns3_project",
        "inventory",
        "labs",
        "owners",
        "device_username",
        "device_password",
        "device_secret",
        "audit_key",
        "storage_key",
        "mcp_agent",
        "mcp_channel",
        mode="before",
    )
    @classmethod
    def _empty_is_unset(cls, value: Any) -> Any:
        """`SLACK_BOT_TOKEN=` in a .env file means "not set", not "set to nothing"."""
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator(
        "matrix_rooms", "approvers", "requesters", "deny_extra", "console_users", mode="before"
    )
    @classmethod
    def _comma_list(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [item.strip() for item in value.split(",") if item.strip()]
        return value

    @field_validator("device_types", mode="before")
    @classmethod
    def _device_type_rules(cls, value: Any) -> Any:
        """`R*=cisco_ios_telnet,SW*=arista_eos_telnet` -> {"R*": "cisco_ios_telnet", ...}."""
        if not isinstance(value, str):
            return value
        rules: dict[str, str] = {}
        for rule in filter(None, (part.strip() for part in value.split(","))):
            glob, sep, device_type = rule.partition("=")
            if not sep or not glob.strip() or not device_type.strip():
                raise ValueError(
                    f"rule {rule!r} is not GLOB=DEVICE_TYPE (e.g. R*=cisco_ios_telnet)"
                )
            rules[glob.strip()] = device_type.strip()
        return rules

    @field_validator("approvers_by_channel", mode="before")
    @classmethod
    def _channel_approvers(cls, value: Any) -> Any:
        """`C123=U1 U2;!room:hs=@a:hs @b:hs` -> {"C123": ["U1", "U2"], ...}."""
        if not isinstance(value, str):
            return value
        result: dict[str, list[str]] = {}
        for entry in filter(None, (part.strip() for part in value.split(";"))):
            channel, sep, users = entry.rpartition("=")
            if not sep or not channel:
                raise ValueError(f"entry {entry!r} is not CHANNEL=USER USER ...")
            result[channel.strip()] = users.replace(",", " ").split()
        return result

    @field_validator("mcp_agents", mode="before")
    @classmethod
    def _agents(cls, value: Any) -> Any:
        """`claude=U1 sha256:HEX;bot2=@b:hs` -> {"claude": ["U1", "sha256:HEX"], "bot2": [...]}."""
        if not isinstance(value, str):
            return value
        agents: dict[str, list[str]] = {}
        for entry in filter(None, (part.strip() for part in value.split(";"))):
            name, sep, rest = entry.partition("=")
            words = rest.split()
            hashes = words[1:]
            if not sep or not name.strip() or not words or not all(map(_is_hash, hashes)):
                raise ValueError(
                    f"entry {entry[:40]!r}… is not NAME=PRINCIPAL [sha256:HEX …] (stdio needs "
                    "no token; for HTTP `labbot mcp token NAME` prints one)"
                )
            agents[name.strip()] = words
        return agents

    @field_validator("matrix_user_id")
    @classmethod
    def _matrix_user(cls, value: str | None) -> str | None:
        if value is not None and not is_matrix_user_id(value):
            raise ValueError(messages.NOT_A_MATRIX_USER_ID.format(token=value))
        return value

    @field_validator("matrix_rooms", "matrix_authority_room")
    @classmethod
    def _matrix_rooms(cls, value: Any) -> Any:
        for room in [value] if isinstance(value, str) else value or ():
            if not is_matrix_room(room):
                raise ValueError(messages.NOT_A_MATRIX_ROOM.format(room=room))
        return value

    @field_validator("approvers", "requesters")
    @classmethod
    def _who_list(cls, value: list[str]) -> list[str]:
        return check_who(value)

    @field_validator("approvers_by_channel")
    @classmethod
    def _who_by_channel(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for channel, who in value.items():
            if channel.startswith(("!", "#")) and not is_matrix_room(channel):
                raise ValueError(messages.NOT_A_MATRIX_ROOM.format(room=channel))
            check_who(who)
        return value

    @field_validator("mcp_agents")
    @classmethod
    def _agent_principals(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        check_who([words[0] for words in value.values() if words])
        return value

    @field_validator("mcp_channel")
    @classmethod
    def _agent_room(cls, value: str | None) -> str | None:
        platform, sep, room = (value or "").partition(":")
        if sep and platform == "matrix" and not is_matrix_room(room):
            raise ValueError(messages.NOT_A_MATRIX_ROOM.format(room=room))
        return value

    @field_validator("database_url")
    @classmethod
    def _known_dialect(cls, value: str) -> str:
        if not value.strip():
            return ""
        if not value.startswith(("sqlite+aiosqlite://", "postgresql+psycopg://")):
            raise ValueError(
                "use sqlite+aiosqlite:///PATH or postgresql+psycopg://USER:PASS@HOST/DB"
            )
        return value

    @model_validator(mode="after")
    def _database_in_data_dir(self) -> Settings:
        if not self.database_url:
            self.database_url = embedded_database_url(self.data_dir)
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings, dotenv_settings]
        yaml_file = os.environ.get("LABBOT_CONFIG")
        if yaml_file:
            sources.append(YamlConfigSettingsSource(settings_cls, yaml_file=yaml_file))
        return tuple(sources)

    @property
    def llm_configured(self) -> bool:
        return self.openai_api_key is not None

    @property
    def slack_configured(self) -> bool:
        return self.slack_bot_token is not None

    @property
    def matrix_configured(self) -> bool:
        return self.matrix_homeserver is not None


def _is_hash(word: str) -> bool:
    digest = word.removeprefix("sha256:")
    return (
        word.startswith("sha256:")
        and len(digest) == 64
        and all(c in "0123456789abcdef" for c in digest)
    )


def check_who(tokens: list[str]) -> list[str]:
    """Who-tokens as written; one written as a Matrix user id must be a valid one (a look-alike
    such as `＠bob:hs` or `@bоb:hs` with a Cyrillic о is refused, never matched)."""
    for token in tokens:
        if meant_as_matrix_user(token) and not is_matrix_user_id(token):
            raise ValueError(messages.NOT_A_MATRIX_USER_ID.format(token=token))
    return tokens


def load_settings(**overrides: Any) -> Settings:
    """Read settings; raise ConfigError with one line naming the first bad setting."""
    yaml_file = os.environ.get("LABBOT_CONFIG")
    if yaml_file and not Path(yaml_file).is_file():
        raise ConfigError(f"LABBOT_CONFIG: no such file {yaml_file!r}")
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        error = exc.errors()[0]
        field_name = str(error["loc"][0]) if error["loc"] else "settings"
        field = Settings.model_fields.get(field_name)
        alias = (
            field.validation_alias if field and isinstance(field.validation_alias, str) else None
        )
        message = str(error["msg"]).removeprefix("Value error, ")
        raise ConfigError(f"{alias or field_name}: {message}") from None
    except SettingsError as exc:
        raise ConfigError(str(exc)) from None


def secret_value(value: SecretStr | None) -> str | None:
    """A secret setting's value, for the one place that needs it in clear (never logged)."""
    return value.get_secret_value() if value is not None else None
