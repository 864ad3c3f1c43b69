"""A score sheet as CSV (one line per round and player) and as JSON (README, "Score sheet").

JSON::

    {"sheet": <id>, "rounds": 10 or 5, "finished": bool,
     "players": [{"position": 1, "name": "ann", "registered": true}, ...],   # seating order
     "rounds_played": [
        {"number": 1, "cards_dealt": 1,
         "players": [{"name": "ann", "bid": 1, "tricks": 1, "bonus": 0, "base": 20,
                      "round_total": 20, "running_total": 20}, ...]},        # seating order
        ...],                                  # rounds with bids; tricks and scores null until
                                               # their results are in
     "winners": ["ann"]}                       # R10, ties share; [] until finished

"bonus" is the bonus counted (0 when the bid was not made exactly, R9).
"""

from __future__ import annotations

import csv
import io
from typing import Any

from . import presenter
from .models import Sheet

# Spreadsheets run a cell starting with one of these as a formula (CSV injection).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def as_json(sheet: Sheet) -> dict[str, Any]:
    players, rounds = presenter.load(sheet)
    standings = presenter.standings(players, rounds)
    return {
        "sheet": sheet.pk,
        "rounds": sheet.rounds,
        "finished": sheet.is_finished,
        "players": [
            {"position": p.position, "name": p.name, "registered": not p.is_guest} for p in players
        ],
        "rounds_played": [
            {
                "number": view.number,
                "cards_dealt": view.cards_dealt,
                "players": [
                    {
                        "name": cell.player.name,
                        "bid": cell.entry.bid if cell.entry else None,
                        "tricks": cell.entry.tricks if cell.entry else None,
                        "bonus": cell.entry.bonus if cell.entry else None,
                        "base": cell.entry.base if cell.entry else None,
                        "round_total": cell.entry.total if cell.entry else None,
                        "running_total": cell.entry.running_total if cell.entry else None,
                    }
                    for cell in view.cells
                ],
            }
            for view in rounds
            if view.has_bids
        ],
        "winners": [s.player.name for s in standings if s.leads] if sheet.is_finished else [],
    }


def _cell(value: Any) -> Any:
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return f"'{value}"
    return "" if value is None else value


def as_csv(sheet: Sheet) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [
            "round",
            "cards_dealt",
            "position",
            "player",
            "bid",
            "tricks",
            "bonus",
            "base",
            "round_total",
            "running_total",
        ]
    )
    data = as_json(sheet)
    positions = {p["name"]: p["position"] for p in data["players"]}
    for view in data["rounds_played"]:
        for line in view["players"]:
            writer.writerow(
                [
                    _cell(x)
                    for x in (
                        view["number"],
                        view["cards_dealt"],
                        positions[line["name"]],
                        line["name"],
                        line["bid"],
                        line["tricks"],
                        line["bonus"],
                        line["base"],
                        line["round_total"],
                        line["running_total"],
                    )
                ]
            )
    return out.getvalue()
