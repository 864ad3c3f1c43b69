"""Every change to a score sheet: one function each, one transaction each.

A save locks the sheet's row (select_for_update), checks who saves, the version
the form was shown at (a stale form is a 409: it never overwrites a save it did
not see) and the order of the rounds, writes what was entered, scores every round
again from games.rules (a correction moves every later running total), bumps the
version, keeps the change (who, when, before, after), and, once committed, tells
the sheet's sockets (games.sheets.live). Refusals raise SheetError and change
nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import username_matches
from games import rules

from . import live
from .forms import CAPTURE_FIELDS, ResultLine, SheetCreateForm
from .models import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Sheet,
    SheetChange,
    SheetEntry,
    SheetPlayer,
    SheetRound,
)


class SheetError(Exception):
    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def stale_message() -> str:
    return _(
        "The sheet was changed on another device meanwhile: here it is as it is now. "
        "Check your entry and save it again."
    )


def can_edit(sheet: Sheet, user: Any, players: Sequence[SheetPlayer] | None = None) -> bool:
    """The creator and every registered player on the sheet may change it."""
    if not getattr(user, "is_authenticated", False):
        return False
    if sheet.created_by_id == user.pk:
        return True
    if players is not None:
        return any(p.user_id == user.pk for p in players)
    return sheet.players.filter(user_id=user.pk).exists()


# ---------------------------------------------------------------------------
# create
# ---------------------------------------------------------------------------


def create_sheet(user: Any, rounds: int, players: Sequence[tuple[str, str]]) -> Sheet:
    """A new sheet with ``players`` ((kind, name) in seating order) for ``rounds`` rounds."""
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise SheetError(
            _("A sheet has from %(low)d to %(high)d players.")
            % {"low": MIN_PLAYERS, "high": MAX_PLAYERS}
        )
    User = get_user_model()
    rows: list[SheetPlayer] = []
    seen: set[str] = set()
    for position, (kind, name) in enumerate(players, start=1):
        if name.casefold() in seen:
            raise SheetError(_("“%(name)s” is on the sheet twice.") % {"name": name})
        seen.add(name.casefold())
        if kind == SheetCreateForm.KIND_GUEST:
            if any(ch < " " for ch in name):
                raise SheetError(_("Invalid characters in the form."))
            rows.append(SheetPlayer(position=position, guest_name=name))
            continue
        found = User.objects.filter(username_matches(name), is_active=True).first()
        if found is None:
            raise SheetError(
                _("There is no registered player called “%(name)s”. Add them as a guest?")
                % {"name": name}
            )
        rows.append(SheetPlayer(position=position, user=found))
    with transaction.atomic():
        sheet = Sheet.objects.create(created_by=user, rounds=rounds, version=1)
        for row in rows:
            row.sheet = sheet
        SheetPlayer.objects.bulk_create(rows)
        _keep_change(
            sheet,
            user,
            SheetChange.Step.CREATED,
            0,
            {},
            {"rounds": rounds, "players": [row.name for row in rows]},
        )
    return sheet


# ---------------------------------------------------------------------------
# bids and results
# ---------------------------------------------------------------------------


def _locked(user: Any, token: str, version: int) -> tuple[Sheet, list[SheetPlayer]]:
    sheet = Sheet.objects.select_for_update().filter(token=token).first()
    if sheet is None:
        raise SheetError(_("There is no such score sheet."), 404)
    players = list(sheet.players.select_related("user").order_by("position"))
    if not can_edit(sheet, user, players):
        raise SheetError(
            _("Only the sheet's creator and its registered players can change it."), 403
        )
    if version != sheet.version:
        raise SheetError(stale_message(), 409)
    return sheet, players


def _check_round_number(sheet: Sheet, number: int) -> None:
    if not 1 <= number <= sheet.rounds:
        raise SheetError(
            _("This sheet has %(rounds)d rounds: there is no round %(n)d.")
            % {"rounds": sheet.rounds, "n": number}
        )


def save_bids(
    user: Any, token: str, version: int, number: int, cards: int, bids: Mapping[int, int]
) -> Sheet:
    """Round ``number``'s cards dealt and bids (player position -> bid); a correction
    when the round has them already."""
    with transaction.atomic():
        sheet, players = _locked(user, token, version)
        _check_round_number(sheet, number)
        rounds = {r.number: r for r in sheet.round_rows.all()}
        row = rounds.get(number)
        if (
            row is None
            and number > 1
            and not (number - 1 in rounds and rounds[number - 1].has_results)
        ):
            raise SheetError(_("Enter round %(n)d's results first.") % {"n": number - 1})
        if set(bids) != {p.position for p in players}:
            raise SheetError(_("Enter a bid for every player."))
        for position, bid in bids.items():
            if bid not in rules.valid_bids(cards):
                name = next(p.name for p in players if p.position == position)
                raise SheetError(
                    _("%(name)s's bid must be from 0 to %(cards)s, the cards dealt.")
                    % {"name": name, "cards": cards}
                )
        entries: dict[int, SheetEntry] = {}
        before: dict[str, Any] = {}
        if row is None:
            row = SheetRound.objects.create(sheet=sheet, number=number, cards_dealt=cards)
        else:
            entries = {e.player_id: e for e in row.entries.all()}
            before = _bids_record(row, players, entries)
            if row.has_results:
                for p in players:
                    won = entries[p.pk].tricks
                    if won is not None and won > cards:
                        raise SheetError(
                            _(
                                "%(name)s won %(tricks)d tricks in round %(n)d: the cards "
                                "dealt cannot be fewer. Correct the results first."
                            )
                            % {"name": p.name, "tricks": won, "n": number}
                        )
                all_won = sum(entries[p.pk].tricks or 0 for p in players)
                if all_won > cards:
                    raise SheetError(_tricks_sum_message(number, all_won, cards))
            row.cards_dealt = cards
            row.save(update_fields=["cards_dealt"])
        for p in players:
            entry = entries.get(p.pk)
            if entry is None:
                entries[p.pk] = SheetEntry.objects.create(round=row, player=p, bid=bids[p.position])
            else:
                entry.bid = bids[p.position]
                entry.save(update_fields=["bid"])
        after = _bids_record(row, players, entries)
        return _saved(sheet, user, SheetChange.Step.BIDS, number, before, after)


def save_results(
    user: Any, token: str, version: int, number: int, lines: Mapping[int, ResultLine]
) -> Sheet:
    """Round ``number``'s tricks won and captures (player position -> line)."""
    with transaction.atomic():
        sheet, players = _locked(user, token, version)
        _check_round_number(sheet, number)
        row = sheet.round_rows.filter(number=number).first()
        if row is None:
            raise SheetError(_("Enter round %(n)d's bids first.") % {"n": number})
        if set(lines) != {p.position for p in players}:
            raise SheetError(_("Enter the tricks won of every player."))
        cards = row.cards_dealt
        for p in players:
            if lines[p.position].tricks > cards:
                raise SheetError(
                    _("%(name)s cannot have won %(tricks)d tricks: %(cards)d cards were dealt.")
                    % {"name": p.name, "tricks": lines[p.position].tricks, "cards": cards}
                )
        # Each trick goes to one player at most (a Kraken's to nobody: fewer is a warning).
        all_won = sum(line.tricks for line in lines.values())
        if all_won > cards:
            raise SheetError(_tricks_sum_message(number, all_won, cards))
        problems = rules.capture_problems(
            (lines[p.position].tricks, lines[p.position].captures) for p in players
        )
        if problems:
            raise SheetError(_capture_message(problems[0], players, lines))
        entries = {e.player_id: e for e in row.entries.all()}
        before = _results_record(row, players, entries)
        for p in players:
            line, entry = lines[p.position], entries[p.pk]
            entry.tricks = line.tricks
            for field, _label, _high in CAPTURE_FIELDS:
                setattr(entry, field, getattr(line.captures, field))
            entry.other_bonus = line.other
        SheetEntry.objects.bulk_update(
            entries.values(),
            ["tricks", *(f for f, _l, _h in CAPTURE_FIELDS), "other_bonus"],
        )
        row.has_results = True
        row.save(update_fields=["has_results"])
        after = _results_record(row, players, entries)
        return _saved(sheet, user, SheetChange.Step.RESULTS, number, before, after)


def _tricks_sum_message(number: int, won: int, cards: int) -> str:
    return _("Round %(n)d's tricks won add up to %(sum)d, more than the %(cards)d cards dealt.") % {
        "n": number,
        "sum": won,
        "cards": cards,
    }


def _capture_message(
    problem: rules.CaptureProblem, players: Sequence[SheetPlayer], lines: Mapping[int, ResultLine]
) -> str:
    P = rules.CaptureProblem
    if problem is P.NO_TRICK:
        name = next(
            p.name
            for p in players
            if lines[p.position].tricks == 0 and lines[p.position].captures.any
        )
        return _("%(name)s won no trick, so captured nothing: remove their capture bonus.") % {
            "name": name
        }
    return {
        P.COLOUR_14S: _("There are only three non-black 14s: more are entered for this round."),
        P.BLACK_14: _("There is only one black 14: it is entered more than once for this round."),
        P.MERMAIDS: _(
            "There are only two Mermaids: more are entered as captured with a Pirate this round."
        ),
        P.PIRATES: _(
            "There are only five Pirates and the Tigress: more are entered as captured with "
            "the Skull King this round."
        ),
        P.SKULL_KING: _(
            "There is only one Skull King: it is entered as captured more than once this round."
        ),
        P.SKULL_KING_BOTH: _(
            "The Skull King cannot both be captured by a Mermaid and capture Pirates in the "
            "same round."
        ),
    }[problem]


# ---------------------------------------------------------------------------
# scoring and the change log
# ---------------------------------------------------------------------------


def _saved(
    sheet: Sheet,
    user: Any,
    step: str,
    number: int,
    before: dict[str, Any],
    after: dict[str, Any],
) -> Sheet:
    rescore(sheet)
    sheet.version += 1
    fields = ["version", "updated_at"]
    last = sheet.round_rows.filter(number=sheet.rounds, has_results=True).exists()
    if last and not sheet.is_finished:
        sheet.status = Sheet.Status.FINISHED
        sheet.finished_at = timezone.now()
        fields += ["status", "finished_at"]
    sheet.save(update_fields=fields)
    _keep_change(sheet, user, step, number, before, after)
    live.sheet_changed_on_commit(sheet)
    return sheet


def rescore(sheet: Sheet) -> None:
    """Every entry's base, bonus, total and running total, from games.rules (R9)."""
    running: dict[int, int] = {}
    changed: list[SheetEntry] = []
    entries = SheetEntry.objects.filter(round__sheet=sheet).select_related("round")
    for entry in sorted(entries, key=lambda e: e.round.number):
        if entry.tricks is None:
            values: tuple[int | None, ...] = (None, None, None, None)
        else:
            score = rules.score_captures(
                entry.bid,
                entry.tricks,
                entry.round.cards_dealt,
                entry.captures(),
                entry.other_bonus,
            )
            running[entry.player_id] = running.get(entry.player_id, 0) + score.total
            values = (score.base, score.bonus, score.total, running[entry.player_id])
        if (entry.base, entry.bonus, entry.total, entry.running_total) != values:
            entry.base, entry.bonus, entry.total, entry.running_total = values
            changed.append(entry)
    if changed:
        SheetEntry.objects.bulk_update(changed, ["base", "bonus", "total", "running_total"])


def _bids_record(
    row: SheetRound, players: Sequence[SheetPlayer], entries: Mapping[int, SheetEntry]
) -> dict[str, Any]:
    return {
        "cards_dealt": row.cards_dealt,
        "players": [{"name": p.name, "bid": entries[p.pk].bid} for p in players if p.pk in entries],
    }


def _results_record(
    row: SheetRound, players: Sequence[SheetPlayer], entries: Mapping[int, SheetEntry]
) -> dict[str, Any]:
    if not row.has_results:
        return {}
    out = []
    for p in players:
        e = entries[p.pk]
        line: dict[str, Any] = {"name": p.name, "tricks": e.tricks}
        for field, _label, _high in CAPTURE_FIELDS:
            if getattr(e, field):
                line[field] = getattr(e, field)
        if e.other_bonus:
            line["other_bonus"] = e.other_bonus
        out.append(line)
    return {"players": out}


def _keep_change(
    sheet: Sheet, user: Any, step: str, number: int, before: dict[str, Any], after: dict[str, Any]
) -> None:
    SheetChange.objects.create(
        sheet=sheet,
        user=user,
        user_name=user.username,
        round_number=number,
        step=step,
        version=sheet.version,
        before=before,
        after=after,
    )
