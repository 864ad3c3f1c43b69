"""Sign-up, log-in, log-out, password change and the ?next redirects (pages)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.forms import SignUpForm
from accounts.models import username_matches

pytestmark = pytest.mark.django_db

User = get_user_model()
PASSWORD = "a-long-Secret-42"


def _signup(client: Client, username: str, **extra: str):
    data = {"username": username, "password1": PASSWORD, "password2": PASSWORD, **extra}
    return client.post(reverse("signup"), data)


def test_signup_page_renders(client):
    response = client.get(reverse("signup"))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'name="username"' in html and 'name="password1"' in html
    assert 'name="next"' in html


def test_signup_creates_the_user_logs_in_and_goes_home(client):
    response = _signup(client, "Anne")
    assert response.status_code == 302 and response["Location"] == reverse("home")
    assert User.objects.filter(username="Anne").exists()
    home = client.get(reverse("home"))
    assert "Anne" in home.content.decode() and "Create table" in home.content.decode()


def test_signup_with_next_comes_back_to_it(client):
    response = _signup(client, "anne", next="/rules/")
    assert response.status_code == 302 and response["Location"] == "/rules/"


def test_signup_ignores_an_offsite_next(client):
    response = _signup(client, "anne", next="https://evil.example/")
    assert response.status_code == 302 and response["Location"] == reverse("home")


def test_signup_duplicate_username_ignoring_case_is_refused(client):
    _signup(Client(), "Anne")
    response = _signup(client, "aNNE")
    assert response.status_code == 400
    assert "taken" in response.content.decode()
    assert User.objects.filter(username__iexact="anne").count() == 1


def test_signup_password_mismatch_shows_the_error(client):
    response = client.post(
        reverse("signup"),
        {"username": "anne", "password1": PASSWORD, "password2": PASSWORD + "x"},
    )
    assert response.status_code == 400
    assert 'role="alert"' in response.content.decode()
    assert not User.objects.exists()


def test_log_in_and_out(client):
    User.objects.create_user("anne", password=PASSWORD)
    page = client.get(reverse("login"))
    assert page.status_code == 200 and reverse("signup") in page.content.decode()
    response = client.post(reverse("login"), {"username": "ANNE", "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == reverse("home")
    html = client.get(reverse("home")).content.decode()
    assert "Log out" in html and reverse("profile") in html
    response = client.post(reverse("logout"))
    assert response.status_code == 302
    html = client.get(reverse("home")).content.decode()
    assert "Log out" not in html and reverse("login") in html


def test_log_in_wrong_password_stays_on_the_form(client):
    User.objects.create_user("anne", password=PASSWORD)
    response = client.post(reverse("login"), {"username": "anne", "password": "nope"})
    assert response.status_code == 200
    assert 'role="alert"' in response.content.decode()


def test_anonymous_users_are_sent_to_log_in_with_next(client):
    # (An invitation link is shown to a visitor: tests/games/test_views.py.)
    for url in (reverse("password_change"), "/tables/1/"):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith(f"{reverse('login')}?next="), url


def test_log_in_honours_next(client):
    User.objects.create_user("anne", password=PASSWORD)
    response = client.post(
        reverse("login"), {"username": "anne", "password": PASSWORD, "next": "/rules/"}
    )
    assert response.status_code == 302 and response["Location"] == "/rules/"


def test_log_in_page_carries_next_to_the_signup_link(client):
    response = client.get(reverse("login"), {"next": "/join/abc/"})
    html = response.content.decode()
    assert f"{reverse('signup')}?next=/join/abc/" in html
    assert 'name="next" value="/join/abc/"' in html


def test_home_is_public_and_rules_too(client):
    assert client.get(reverse("home")).status_code == 200
    assert client.get(reverse("rules")).status_code == 200


def test_password_change(client):
    user = User.objects.create_user("anne", password=PASSWORD)
    client.force_login(user)
    assert client.get(reverse("password_change")).status_code == 200
    response = client.post(
        reverse("password_change"),
        {
            "old_password": PASSWORD,
            "new_password1": "another-Secret-77",
            "new_password2": "another-Secret-77",
        },
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("password_change_done")
    assert client.get(reverse("password_change_done")).status_code == 200
    user.refresh_from_db()
    assert user.check_password("another-Secret-77")


def test_logged_in_user_visiting_log_in_or_sign_up_is_sent_on(client):
    user = User.objects.create_user("anne", password=PASSWORD)
    client.force_login(user)
    assert client.get(reverse("login")).status_code == 302
    assert client.get(reverse("signup")).status_code == 302


def test_error_pages_render(client):
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    assert "Not found" in response.content.decode()


# -- case-insensitive look-ups use the unique index on LOWER(username) ------------------


def _lookup_sql(lookup) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        lookup()
    return [q["sql"] for q in queries.captured_queries if "accounts_user" in q["sql"]]


@pytest.mark.parametrize(
    "lookup",
    [
        pytest.param(lambda: User.objects.get_by_natural_key("ANNE"), id="log-in"),
        pytest.param(
            lambda: SignUpForm(
                {"username": "ANNE", "password1": PASSWORD, "password2": PASSWORD}
            ).is_valid(),
            id="sign-up",
        ),
    ],
)
def test_username_lookups_compare_lower_to_lower_like_the_unique_index(lookup):
    """The index is on LOWER("username"); iexact compiled to UPPER(..) on PostgreSQL."""
    User.objects.create_user("Anne", password=PASSWORD)
    (sql,) = [s for s in _lookup_sql(lookup) if "WHERE" in s]
    where = sql.split("WHERE", 1)[1]
    assert 'LOWER("accounts_user"."username")' in where
    assert "UPPER(" not in where and "LIKE" not in where


def test_username_lookup_finds_any_case_and_nothing_else():
    anne = User.objects.create_user("Anne", password=PASSWORD)
    User.objects.create_user("Annette", password=PASSWORD)
    assert User.objects.get_by_natural_key("aNNe") == anne
    with pytest.raises(User.DoesNotExist):
        User.objects.get_by_natural_key("ann%")  # a LIKE wildcard is a plain character


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="EXPLAIN of an index scan needs PostgreSQL (CI runs it)",
)
def test_username_lookup_uses_the_unique_index_on_postgresql():
    User.objects.bulk_create(User(username=f"user{i}") for i in range(200))
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE accounts_user")
        cursor.execute("SET enable_seqscan = off")  # a tiny table would otherwise be scanned
    plan = User.objects.filter(username_matches("USER7")).explain()
    assert "accounts_user_username_ci_unique" in plan


@pytest.mark.django_db
def test_the_request_s_user_by_id_is_the_orm_s_user_and_a_missing_one_is_not_found() -> None:
    """Every request reads its user by id (ModelBackend.get_user): User.objects.get(pk=)
    runs SQL compiled once (accounts.models), and must give what the ORM gives."""
    from django.contrib.auth.backends import ModelBackend

    user_model = get_user_model()
    anne = user_model.objects.create_user("anne", password="pw-long-enough-1", language="fr")
    through_orm = user_model.objects.filter(pk=anne.pk).get()
    with CaptureQueriesContext(connection) as queries:
        found = ModelBackend().get_user(anne.pk)
    assert len(queries) == 1
    assert found is not None and found.pk == anne.pk
    assert {f.attname: getattr(found, f.attname) for f in user_model._meta.concrete_fields} == {
        f.attname: getattr(through_orm, f.attname) for f in user_model._meta.concrete_fields
    }
    assert found._state.db == through_orm._state.db and not found._state.adding
    assert ModelBackend().get_user(anne.pk + 1000) is None
    with pytest.raises(user_model.DoesNotExist):
        user_model.objects.get(pk=anne.pk + 1000)
    with pytest.raises(user_model.DoesNotExist):
        user_model.objects.get(pk=2**70)  # beyond the column: the ORM's answer, not an error
    assert user_model.objects.get(pk=anne.pk).language == "fr"
