"""What the game-over controls show about a rematch, for one seated viewer.

The table page's presenter calls `rematch_context` once;
templates/games/regions/_rematch.jinja renders it. Proposing, accepting and
declining are actions (games.play.actions), so each bumps the table version and the
usual push re-renders every player's page.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from django.urls import reverse

from games.models import Rematch, Seat, Table


@dataclass(frozen=True)
class RematchAnswer:
    name: str
    accepted: bool
    is_you: bool


@dataclass(frozen=True)
class RematchView:
    """Everything _rematch.html needs; ``rematch_id`` is what accept/decline forms post."""

    can_propose: bool
    rematch_id: int | None = None
    proposed_by: str = ""
    answers: list[RematchAnswer] = field(default_factory=list)
    you_accepted: bool = False
    declined_by: str = ""  # the last proposal was declined by this player
    new_table_url: str = ""  # everyone accepted: the new table (waiting for the host)
    replay_url: str = ""
    scores_csv_url: str = ""
    record_url: str = ""


@dataclass(frozen=True)
class Proposal:
    """The table's latest rematch proposal and the seats that accepted it: the same
    for every viewer, so a push reads it once for all of them (games.pages.presenter)."""

    latest: Rematch | None
    accepted: frozenset[int] = frozenset()


def read_proposal(table: Table) -> Proposal:
    """At most two queries: the latest proposal (with who proposed and declined), its yeses."""
    latest = (
        Rematch.objects.filter(table=table)
        .select_related("proposed_by", "declined_by")
        .order_by("-created_at", "-pk")
        .first()
    )
    if latest is None or latest.status == Rematch.Status.DECLINED:
        return Proposal(latest)
    return Proposal(latest, frozenset(latest.acceptances.values_list("seat_id", flat=True)))


def rematch_context(
    table: Table,
    me: Seat,
    seats: list[Seat],
    proposal: Callable[[], Proposal] | None = None,
) -> RematchView | None:
    """None unless the game is finished (no query then: in-game pages cost nothing more).

    ``seats`` are the table's seats with their users (as the presenter has them).
    ``proposal`` gives the table's proposal (read_proposal, shared by the seats of
    one push); None: read it here.
    """
    if table.status != Table.Status.FINISHED:
        return None
    links = {
        "replay_url": reverse("replay", args=[table.pk]),
        "scores_csv_url": reverse("export_scores", args=[table.pk]),
        "record_url": reverse("export_record", args=[table.pk]),
    }
    found = proposal() if proposal is not None else read_proposal(table)
    latest, accepted = found.latest, found.accepted
    if latest is None:
        return RematchView(can_propose=True, **links)
    if latest.status == Rematch.Status.DECLINED:
        declined_by = latest.declined_by.username if latest.declined_by else ""
        return RematchView(can_propose=True, declined_by=declined_by, **links)
    answers = [RematchAnswer(seat.name, seat.pk in accepted, seat.pk == me.pk) for seat in seats]
    new_table_url = reverse("table", args=[latest.new_table_id]) if latest.new_table_id else ""
    return RematchView(
        can_propose=False,
        rematch_id=latest.pk,
        proposed_by=latest.proposed_by.username,
        answers=answers,
        you_accepted=me.pk in accepted,
        new_table_url=new_table_url,
        **links,
    )
