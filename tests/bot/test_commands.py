from datetime import UTC, datetime

import pytest

from bot.commands.parsing import AuditFilter, CommandError, parse_audit_args, parse_command


@pytest.mark.parametrize(
    ("text", "name", "args"),
    [
        ("help", "help", ()),
        ("  Audit user=U2 device=R1", "audit", ("user=U2", "device=R1")),
        ("rollback chg-1234", "rollback", ("chg-1234",)),
        ("templates ospf", "templates", ("ospf",)),
    ],
)
def test_commands_are_recognised(text: str, name: str, args: tuple[str, ...]) -> None:
    command = parse_command(text)
    assert command is not None and (command.name, command.args) == (name, args)


@pytest.mark.parametrize("text", ["configure ospf on all routers", "", "helpful change please"])
def test_other_text_is_a_change_request(text: str) -> None:
    assert parse_command(text) is None


def test_audit_filters_both_forms() -> None:
    flt = parse_audit_args(("change=chg-1", "--user", "U2", "since=2026-11-01"))
    assert flt == AuditFilter(change_id="chg-1", user="U2", since=datetime(2026, 11, 1, tzinfo=UTC))


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("colour=red",), "unknown filter"),
        (("since=yesterday",), "not a date"),
        (("--user",), "needs a value"),
        (("R1",), "KEY=VALUE"),
    ],
)
def test_bad_audit_filters_say_what_is_wrong(args: tuple[str, ...], needle: str) -> None:
    with pytest.raises(CommandError, match=needle):
        parse_audit_args(args)
