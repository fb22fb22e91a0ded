import pytest

from bot.policy import Policy, refuse_decision, refuse_request


@pytest.mark.parametrize(
    ("policy", "actor", "channel", "choice", "refused"),
    [
        (Policy(), "U2", "C1", "approve", False),
        (Policy(approvers=("U2",)), "U2", "C1", "approve", False),
        (Policy(approvers=("U2",)), "U3", "C1", "approve", True),
        (Policy(approvers=("U2",)), "U3", "C1", "modify", True),
        (
            Policy(approvers=("U2",), approvers_by_channel={"C9": ["U3"]}),
            "U3",
            "C9",
            "approve",
            False,
        ),
        (
            Policy(approvers=("U2",), approvers_by_channel={"C9": ["U3"]}),
            "U2",
            "C9",
            "approve",
            True,
        ),
        (Policy(no_self_approval=True), "U1", "C1", "approve", True),
        (Policy(no_self_approval=True), "U1", "C1", "cancel", False),
        (Policy(approvers=("U2",)), "U1", "C1", "cancel", False),  # requester cancels own change
        (Policy(no_self_approval=True), "U2", "C1", "approve", False),
    ],
)
def test_who_may_decide(policy: Policy, actor: str, channel: str, choice, refused: bool) -> None:
    reason = refuse_decision(
        policy, actor_id=actor, channel=channel, requester_id="U1", choice=choice
    )
    assert (reason is not None) == refused


def test_requesters_list_limits_who_starts_changes() -> None:
    assert refuse_request(Policy(), "anyone") is None
    assert refuse_request(Policy(requesters=("U1",)), "U1") is None
    assert "LABBOT_REQUESTERS" in (refuse_request(Policy(requesters=("U1",)), "U2") or "")


def test_push_gate_needs_n_approvals_template_gate_one() -> None:
    policy = Policy(push_approvals=2)
    assert policy.required_approvals("params") == 2
    assert policy.required_approvals("template") == 1
