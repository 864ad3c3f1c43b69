"""R8: nobody may be called like the ghost, in any language, case or look-alike spelling.

At a ghost table a player named "Graybeard" would make the trick show two
plays by "Graybeard", and "Graybeard wins the trick." could not be told apart.
"""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from django.utils import translation

from accounts.names import is_reserved
from games.pages.presenter import ghost_name

pytestmark = pytest.mark.django_db

User = get_user_model()
PASSWORD = "a-long-Secret-42"

GHOST_NAMES = [
    "Graybeard",  # English (the rule book, the German seed)
    "Greybeard",  # British spelling
    "Barbe_Grise",  # French ("Barbe Grise": usernames have no spaces)
    "Barbe.Grise",
    "BarbeGrise",
    "Graubart",  # German
    "Barbagris",  # Spanish
    "Barba-Gris",
]
LOOK_ALIKES = [
    "graybeard",
    "GRAYBEARD",
    "GrayBeard",
    "Gr\u0430ybeard",  # CYRILLIC SMALL LETTER A
    "\uff27raybeard",  # FULLWIDTH LATIN CAPITAL LETTER G (NFKC)
    "\U0001d406raybeard",  # MATHEMATICAL BOLD CAPITAL G (NFKC)
    "Graybe\u0251rd",  # LATIN SMALL LETTER ALPHA
    "Gr\u00e1ybeard",  # an accent does not make another name
    "Gray_beard",
    "Gr\u0430ubart",  # CYRILLIC SMALL LETTER A
    "\u0392ARBAGRIS",  # GREEK CAPITAL LETTER BETA
    "Barbe_Gri\u0455e",  # CYRILLIC SMALL LETTER DZE
    "Greybear\u0501",  # CYRILLIC SMALL LETTER KOMI DE
    "Gr\u0435ybeard",  # CYRILLIC SMALL LETTER IE
    "GRAUBART",
    "BARBAGRIS",
    "barbe-grise",
]
# Another name, or a letter Unicode does not list as a look-alike
# (CYRILLIC SMALL LETTER VE is not a b).
NOT_RESERVED = ["Anne", "Graybeard2", "TheGraybeard", "Gray", "Barbe", "Gray\u0432eard"]


def _signup(username: str):
    data = {"username": username, "password1": PASSWORD, "password2": PASSWORD}
    return Client().post(reverse("signup"), data)


@pytest.mark.parametrize("name", GHOST_NAMES + LOOK_ALIKES)
def test_r8_signup_refuses_the_ghosts_names_and_their_look_alikes(name: str) -> None:
    response = _signup(name)
    assert response.status_code == 400
    html = response.content.decode()
    assert "is the ghost&#x27;s name" in html or "is the ghost's name" in html
    assert 'name="username"' in html  # the form is shown again, with the message
    assert not User.objects.exists()


@pytest.mark.parametrize("name", NOT_RESERVED)
def test_r8_names_that_merely_resemble_the_ghost_are_allowed(name: str) -> None:
    response = _signup(name)
    assert response.status_code == 302, response.content.decode()
    assert User.objects.filter(username=name).exists()


def test_r8_the_model_refuses_the_ghosts_name_wherever_a_username_is_validated() -> None:
    """full_clean: the admin's forms, createsuperuser and any ModelForm run the field validators."""
    user = User(username="Gr\u0430ybeard")
    user.set_unusable_password()
    with pytest.raises(ValidationError) as caught:
        user.full_clean()
    assert "username" in caught.value.message_dict


def test_r8_the_admin_add_user_page_refuses_the_ghosts_name() -> None:
    staff = User.objects.create_superuser("captain", password=PASSWORD)
    client = Client()
    client.force_login(staff)
    data = {
        "username": "GREYBEARD",
        "password1": PASSWORD,
        "password2": PASSWORD,
        "usable_password": "true",
    }
    response = client.post(reverse("admin:accounts_user_add"), data)
    assert response.status_code == 200  # the add form again, with the error
    assert "ghost" in response.content.decode()
    assert not User.objects.filter(username__iexact="greybeard").exists()


@pytest.mark.parametrize("language", [code for code, _name in settings.LANGUAGES])
def test_r8_the_name_the_site_gives_the_ghost_is_reserved_in_every_language(language: str) -> None:
    with translation.override(language):
        assert is_reserved(str(ghost_name()))
