"""Shared set-up of the score sheet tests (issue 47): users, a sheet, posting its rounds."""

from __future__ import annotations

from typing import Any

from django.test import Client

from games.sheets.models import Sheet
from games.testing.factories import make_user


def client_for(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def users(*names: str) -> list[Any]:
    return [make_user(name) for name in names]


def create(client: Client, players: list[tuple[str, str]], rounds: int = 10) -> Sheet:
    """POST the lobby's form: ``players`` as (kind, name), kind "user" or "guest"."""
    data: dict[str, str] = {"rounds": str(rounds)}
    for position, (kind, name) in enumerate(players, start=1):
        data[f"kind-{position}"] = kind
        data[f"name-{position}"] = name
    response = client.post("/sheets/new/", data)
    assert response.status_code == 303, response.content.decode()[:2000]
    return Sheet.objects.get(token=response["Location"].rstrip("/").rsplit("/", 1)[1])


def bids_data(
    sheet: Sheet, number: int, bids: list[int], cards: int | None = None
) -> dict[str, str]:
    sheet.refresh_from_db()
    data = {"version": str(sheet.version), "round": str(number)}
    data["cards"] = str(cards if cards is not None else number)
    for position, bid in enumerate(bids, start=1):
        data[f"bid-{position}"] = str(bid)
    return data


def results_data(
    sheet: Sheet, number: int, tricks: list[int], **bonus: dict[int, int]
) -> dict[str, str]:
    """``bonus``: field name -> {position: count}, e.g. black_14={1: 1}, other={2: -5}."""
    sheet.refresh_from_db()
    data = {"version": str(sheet.version), "round": str(number)}
    for position, won in enumerate(tricks, start=1):
        data[f"tricks-{position}"] = str(won)
    for field, counts in bonus.items():
        for position, count in counts.items():
            data[f"{field}-{position}"] = str(count)
    return data


def post_bids(client: Client, sheet: Sheet, number: int, bids: list[int], **kw: Any) -> Any:
    return client.post(f"/sheets/{sheet.token}/bids/", bids_data(sheet, number, bids, **kw))


def post_results(
    client: Client, sheet: Sheet, number: int, tricks: list[int], **bonus: dict[int, int]
) -> Any:
    return client.post(
        f"/sheets/{sheet.token}/results/", results_data(sheet, number, tricks, **bonus)
    )


def totals(sheet: Sheet) -> dict[str, int | None]:
    """Player name -> running total after the last round with results."""
    out: dict[str, int | None] = {}
    for player in sheet.players.order_by("position"):
        last = player.entries.filter(tricks__isnull=False).order_by("-round__number").first()
        out[player.name] = last.running_total if last else None
    return out
