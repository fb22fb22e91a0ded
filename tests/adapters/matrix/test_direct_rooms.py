"""Rooms invited to as direct chats are remembered across restarts (only the invite says)."""

from pathlib import Path

from nio import InviteMemberEvent

from adapters.matrix.direct_rooms import FILE_NAME, DirectRooms
from adapters.matrix.inbound import invited_as_direct


def test_direct_rooms_survive_a_restart_and_a_damaged_file_forgets_nothing_else(
    tmp_path: Path,
) -> None:
    rooms = DirectRooms(tmp_path)
    rooms.add("!dm:hs")
    assert "!dm:hs" in DirectRooms(tmp_path) and "!room:hs" not in DirectRooms(tmp_path)
    (tmp_path / FILE_NAME).write_text("{not json")
    assert "!dm:hs" not in DirectRooms(tmp_path)  # learnt again from new invites, no crash


def invite(state_key: str, content: dict[str, object]) -> InviteMemberEvent:
    return InviteMemberEvent({}, "@alice:hs", state_key, "invite", "", content)


def test_the_bots_own_invite_says_whether_a_room_is_a_direct_chat() -> None:
    bot = "@labbot:hs"
    assert invited_as_direct([invite(bot, {"membership": "invite", "is_direct": True})], bot)
    assert not invited_as_direct([invite(bot, {"membership": "invite"})], bot)
    assert not invited_as_direct([invite("@bob:hs", {"is_direct": True})], bot)
