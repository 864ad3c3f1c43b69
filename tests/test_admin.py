"""The Django admin is for staff only."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

pytestmark = pytest.mark.django_db


def test_admin_redirects_anonymous_visitors_to_the_admin_login():
    response = Client().get("/admin/")
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


def test_admin_refuses_a_logged_in_player_who_is_not_staff():
    client = Client()
    client.force_login(get_user_model().objects.create_user("anne", password="x-long-pass-1"))
    response = client.get("/admin/")
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]
    assert client.get("/admin/accounts/user/").status_code == 302


def test_admin_serves_staff_with_users_and_tables_listed():
    client = Client()
    staff = get_user_model().objects.create_user("mod", password="x-long-pass-1", is_staff=True)
    staff.is_superuser = True
    staff.save()
    client.force_login(staff)
    index = client.get("/admin/")
    assert index.status_code == 200
    for path in ("/admin/accounts/user/", "/admin/games/table/", "/admin/games/seat/"):
        assert client.get(path).status_code == 200, path
    assert client.get("/admin/accounts/user/?q=mod").status_code == 200
