"""R3 (dealer and opener) and the order of play in a trick (R5, R8)."""

from __future__ import annotations

from .deal import GHOST, check_table

__all__ = ["dealer_and_opener", "play_order"]


def dealer_and_opener(round_number: int, humans: int) -> tuple[int, int]:
    """R3: (dealer, opener) human seat indexes for a round.

    Seat 0 (the creator) deals round 1, the dealer rotates one seat per round and the seat
    after the dealer opens. The ghost never deals nor opens.
    """
    check_table(round_number, humans)
    dealer = (round_number - 1) % humans
    return dealer, (dealer + 1) % humans


def play_order(leader: int, humans: int, ghost: bool, opener: int) -> tuple[int, ...]:
    """Who plays, in order, in a trick led by ``leader`` (a seat, or GHOST).

    Without the ghost: leader, leader+1, ... (mod humans). With the ghost (2 humans, R8):
    a human leads -> (leader, GHOST, other human); the ghost leads -> (GHOST, opener, other).
    """
    if ghost:
        if humans != 2:
            raise ValueError("the ghost only plays with exactly 2 humans (R8)")
        if opener not in (0, 1):
            raise ValueError(f"opener must be a human seat, got {opener!r}")
        if leader == GHOST:
            return (GHOST, opener, 1 - opener)
        if leader in (0, 1):
            return (leader, GHOST, 1 - leader)
        raise ValueError(f"invalid leader {leader!r}")
    if not 2 <= humans <= 8:
        raise ValueError(f"humans must be 2..8, got {humans!r}")
    if not 0 <= leader < humans:
        raise ValueError(f"invalid leader {leader!r}")
    return tuple((leader + i) % humans for i in range(humans))
