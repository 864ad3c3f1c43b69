from django.conf import settings
from django.contrib.auth.models import AbstractUser, UserManager
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.db import models
from django.db.models import Value
from django.db.models.functions import Lower
from django.db.models.lookups import Exact
from django.utils.translation import gettext_lazy as _

from .names import validate_not_reserved


def username_matches(username: str | None) -> Exact:
    """LOWER(username) = LOWER(%s), a filter that uses the unique index on LOWER(username).

    ``username__iexact`` compiles to UPPER(..) = UPPER(..) on PostgreSQL (and LIKE
    on SQLite), which that index cannot serve.
    """
    return Exact(Lower("username"), Lower(Value(str(username or ""))))


class CaseInsensitiveUserManager(UserManager["User"]):
    """Log-in finds "Anne" when she types "anne": usernames ignore case."""

    def get_by_natural_key(self, username: str | None) -> "User":
        return self.get(username_matches(username))


class User(AbstractUser):
    """The site's user. A custom model from day one, as Django recommends."""

    # Django's field, plus the ghost's names (R8): the validators run wherever a
    # username is validated (sign-up, the admin's forms, createsuperuser).
    username = models.CharField(
        _("username"),
        max_length=150,
        unique=True,
        help_text=_("Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only."),
        validators=[UnicodeUsernameValidator(), validate_not_reserved],
        error_messages={"unique": _("A user with that username already exists.")},
    )

    # The language the site and the live table speak to this user (issue 13);
    # "" until chosen: then the cookie or the browser decides (accounts.language).
    language = models.CharField(
        _("language"),
        max_length=8,
        blank=True,
        default="",
        choices=settings.LANGUAGES,
        help_text=_("The language of the pages and of the live table."),
    )

    objects = CaseInsensitiveUserManager()

    class Meta(AbstractUser.Meta):  # its translated verbose names ("user", "users")
        constraints = [
            models.UniqueConstraint(Lower("username"), name="accounts_user_username_ci_unique"),
        ]

    def __str__(self) -> str:
        return self.username
