"""What a score sheet page shows, read from its rows (the scores are the actions')."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from games import rules

from .actions import can_edit
from .forms import CAPTURE_FIELDS, BidsForm, ResultsForm
from .models import Sheet, SheetChange, SheetEntry, SheetPlayer, SheetRound

CHANGES_SHOWN = 50


@dataclass
class Cell:
    """One player's line in one round."""

    player: SheetPlayer
    entry: SheetEntry | None

    @property
    def has_results(self) -> bool:
        return self.entry is not None and self.entry.tricks is not None


@dataclass
class RoundView:
    number: int
    cards_dealt: int
    row: SheetRound | None
    cells: list[Cell]
    tricks_sum: int | None = None

    @property
    def has_bids(self) -> bool:
        return self.row is not None

    @property
    def has_results(self) -> bool:
        return self.row is not None and self.row.has_results

    @property
    def tricks_warning(self) -> bool:
        """Seed 001: the tricks entered do not add up to the cards dealt (a warning only:
        a Kraken takes a trick away; more tricks than cards is refused by the actions)."""
        return self.has_results and self.tricks_sum != self.cards_dealt


@dataclass
class Step:
    """The next entry: ``kind`` "bids" or "results" of round ``number``."""

    kind: str
    number: int
    cards_dealt: int


@dataclass
class Standing:
    player: SheetPlayer
    total: int
    leads: bool = False


@dataclass
class ChangeView:
    change: SheetChange
    lines: list[str] = field(default_factory=list)


def default_cards(number: int, players: int) -> int:
    """R2: the round's number, with 8 players 9 in rounds 9 and 10."""
    return rules.cards_per_round(number, players)


def load(sheet: Sheet) -> tuple[list[SheetPlayer], list[RoundView]]:
    players = list(sheet.players.select_related("user").order_by("position"))
    rows = {r.number: r for r in sheet.round_rows.all()}
    entries: dict[tuple[int, int], SheetEntry] = {
        (e.round.number, e.player_id): e
        for e in SheetEntry.objects.filter(round__sheet=sheet).select_related("round")
    }
    rounds = []
    for number in range(1, sheet.rounds + 1):
        row = rows.get(number)
        cells = [Cell(p, entries.get((number, p.pk))) for p in players]
        view = RoundView(
            number=number,
            cards_dealt=row.cards_dealt if row else default_cards(number, len(players)),
            row=row,
            cells=cells,
        )
        if view.has_results:
            view.tricks_sum = sum(c.entry.tricks or 0 for c in cells if c.entry is not None)
        rounds.append(view)
    return players, rounds


def next_step(sheet: Sheet, rounds: list[RoundView]) -> Step | None:
    for view in rounds:
        if not view.has_bids:
            return Step("bids", view.number, view.cards_dealt)
        if not view.has_results:
            return Step("results", view.number, view.cards_dealt)
    return None


def standings(players: list[SheetPlayer], rounds: list[RoundView]) -> list[Standing]:
    """The running totals after the last round with results, leaders marked (R10)."""
    totals = {p.pk: 0 for p in players}
    for view in rounds:
        for cell in view.cells:
            if cell.has_results and cell.entry is not None:
                totals[cell.player.pk] = cell.entry.running_total or 0
    best = set(rules.winners(totals))
    scored = any(view.has_results for view in rounds)
    return [Standing(p, totals[p.pk], scored and p.pk in best) for p in players]


def bids_form(
    players: list[SheetPlayer], sheet: Sheet, view: RoundView, data: Any = None
) -> BidsForm:
    initial: dict[str, Any] = {
        "version": sheet.version,
        "round": view.number,
        "cards": view.cards_dealt,
    }
    for cell in view.cells:
        if cell.entry is not None:
            initial[f"bid-{cell.player.position}"] = cell.entry.bid
    return BidsForm(players, data, initial=initial)


def results_form(
    players: list[SheetPlayer], sheet: Sheet, view: RoundView, data: Any = None
) -> ResultsForm:
    initial: dict[str, Any] = {"version": sheet.version, "round": view.number}
    for cell in view.cells:
        pos = cell.player.position
        if cell.has_results and cell.entry is not None:
            initial[f"tricks-{pos}"] = cell.entry.tricks
            for name, _label, _high in CAPTURE_FIELDS:
                initial[f"{name}-{pos}"] = getattr(cell.entry, name)
            initial[f"other-{pos}"] = cell.entry.other_bonus
    return ResultsForm(players, data, initial=initial, cards=view.cards_dealt)


def with_version(data: Any, version: int) -> Any:
    """Posted data with the sheet's current version: a refused form keeps what was
    typed, and saving it again is checked against the sheet as it is now."""
    if data is None:
        return None
    copy = data.copy()
    copy["version"] = str(version)
    return copy


def change_lines(change: SheetChange) -> list[str]:
    """What a change did, one short line per player it changed."""
    before, after = change.before or {}, change.after or {}
    lines = []
    if change.step == SheetChange.Step.CREATED:
        return [", ".join(after.get("players", []))]
    if before.get("cards_dealt") != after.get("cards_dealt"):
        lines.append(
            _("cards dealt: %(before)s → %(after)s")
            % {"before": before.get("cards_dealt", "—"), "after": after.get("cards_dealt", "—")}
        )
    old = {p["name"]: p for p in before.get("players", [])}
    for line in after.get("players", []):
        was = old.get(line["name"])
        if not was:
            diffs = [f"{_label_of(k)} {v}" for k, v in line.items() if k != "name"]
        else:
            keys = [k for k in {**was, **line} if k != "name"]
            diffs = [
                f"{_label_of(k)} {was.get(k, 0)} → {line.get(k, 0)}"
                for k in keys
                if was.get(k, 0) != line.get(k, 0)
            ]
        if diffs:
            lines.append(f"{line['name']}: " + ", ".join(diffs))
    return lines


def _label_of(key: str) -> str:
    labels = {
        "bid": _("bid"),
        "tricks": _("tricks"),
        "colour_14s": _("non-black 14s"),
        "black_14": _("black 14"),
        "mermaids_by_pirate": _("Mermaids captured"),
        "pirates_by_skull_king": _("Pirates captured"),
        "skull_king_by_mermaid": _("Skull King captured"),
        "other_bonus": _("other bonus"),
    }
    return labels.get(key, key)


def sheet_context(
    sheet: Sheet,
    user: Any,
    *,
    form: BidsForm | ResultsForm | None = None,
    errors: list[str] | None = None,
    notice: str = "",
) -> dict[str, Any]:
    """The sheet's page: the score table, standings, the next entry, the changes.

    ``form``: a refused form to show again (with what was typed) instead of the next
    entry's; ``errors``: the refusal's messages.
    """
    players, rounds = load(sheet)
    editable = can_edit(sheet, user, players)
    step = next_step(sheet, rounds)
    if form is None and editable and step is not None:
        view = rounds[step.number - 1]
        form = (bids_form if step.kind == "bids" else results_form)(players, sheet, view)
    table_standings = standings(players, rounds)
    changes = [ChangeView(c, change_lines(c)) for c in sheet.changes.all()[:CHANGES_SHOWN]]
    form_round = None
    if form is not None:
        number = form.initial.get("round") or (step.number if step else 1)
        if form.is_bound:
            with contextlib.suppress(TypeError, ValueError):
                number = int(form.data.get("round", number))
        if 1 <= number <= len(rounds):
            form_round = rounds[number - 1]
    return {
        "sheet": sheet,
        "players": players,
        "rounds": rounds,
        "step": step,
        "form": form,
        "form_kind": "bids" if isinstance(form, BidsForm) else "results",
        "form_round": form_round,
        "editable": editable,
        "standings": table_standings,
        "winners": [s.player.name for s in table_standings if s.leads] if sheet.is_finished else [],
        "leaders": [s.player.name for s in table_standings if s.leads],
        "changes": changes,
        "errors": errors or [],
        "notice": notice,
        "capture_fields": CAPTURE_FIELDS,
    }
