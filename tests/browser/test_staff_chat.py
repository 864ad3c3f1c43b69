"""A message hidden by a moderator disappears from every open page, live (issue 50).

Two players have the table open in Chromium, one reading English and one French. A
moderator (staff with games.hide_chatmessage) presses "Hide this message" on the
message's admin page: with no reload, each page's chat log shows "message removed by
staff" in its reader's language in its place, and the message's text is gone from it.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import ACTION_TIMEOUT_MS, Server, Setup
from .test_layout import DESKTOP

pytestmark = pytest.mark.browser

INSULT = "you are all bilge rats"

MADE = """
from django.contrib.auth.models import Permission
from games.models import ChatMessage
from games.play import actions
from games.testing.factories import make_user, session_cookie, started_table

table, users = started_table(2, ghost=False, prefix="{prefix}")
users[1].language = "fr"
users[1].save()
actions.post_chat(users[0], table.pk, "fair winds")
actions.post_chat(users[1], table.pk, {insult!r})
moderator = make_user("{prefix}mod", is_staff=True)
moderator.user_permissions.add(
    *Permission.objects.filter(codename__in=["view_chatmessage", "hide_chatmessage"])
)
print("TABLE", table.pk)
print("MESSAGE", ChatMessage.objects.get(table=table, text={insult!r}).pk)
for user in users:
    print("USER", user.username, session_cookie(user).split("=", 1)[1])
print("MODERATOR", session_cookie(moderator).split("=", 1)[1])
"""


def test_a_hidden_message_disappears_from_every_open_page(
    server: Server, browser: Browser, open_as: Callable[..., Page]
) -> None:
    out = server.shell(MADE.format(prefix=f"m{uuid.uuid4().hex[:5]}_", insult=INSULT))
    table_id = int(re.search(r"^TABLE (\d+)$", out, re.M).group(1))  # type: ignore[union-attr]
    message_id = int(re.search(r"^MESSAGE (\d+)$", out, re.M).group(1))  # type: ignore[union-attr]
    setup = Setup(table_id, dict(re.findall(r"^USER (\S+) (\S+)$", out, re.M)))
    english, french = (open_as(setup, name, DESKTOP) for name in setup.names)
    for page in (english, french):
        expect(page.locator("#chat-log")).to_contain_text(INSULT)

    staff = browser.new_context(base_url=server.url, locale="en-US")
    staff.set_default_timeout(ACTION_TIMEOUT_MS)
    cookie = re.search(r"^MODERATOR (\S+)$", out, re.M).group(1)  # type: ignore[union-attr]
    staff.add_cookies([{"name": "sessionid", "value": cookie, "url": server.url}])
    admin = staff.new_page()
    try:
        admin.goto(f"/admin/games/chatmessage/{message_id}/change/")
        admin.get_by_label("Reason (for the admin log)").fill("insults the table")
        admin.get_by_role("button", name="Hide this message").click()
        expect(admin.locator(".messagelist")).to_contain_text(f"Message #{message_id} is hidden.")
    finally:
        staff.close()

    # Live, with no reload: the text gone, the mark in each reader's language.
    expect(english.locator("#chat-log")).to_contain_text("message removed by staff")
    expect(french.locator("#chat-log")).to_contain_text("message retiré par l\u2019équipe")
    for page in (english, french):
        expect(page.locator("#chat-log")).not_to_contain_text(INSULT)
        expect(page.locator("#chat-log")).to_contain_text("fair winds")
        assert INSULT not in page.content()
