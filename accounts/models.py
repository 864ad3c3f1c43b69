import functools
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractUser, UserManager
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.db import models
from django.db.models import Q, Value
from django.db.models.functions import Lower
from django.db.models.lookups import Exact
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.storage.compiled import CompiledRead

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

    def get(self, *args: Any, **kwargs: Any) -> "User":
        """``get(pk=<int>)``, what authentication does on every request (Django's
        ModelBackend.get_user), reads with SQL compiled once per process (games.storage.compiled):
        building and compiling that query was 3 % of a move's CPU in the live benchmark.
        The same row, the same instance, the same DoesNotExist; anything else (another
        database, an id out of the column's range) is the ORM's."""
        pk = kwargs.get("pk")
        fast = type(pk) is int and 0 < pk < 2**63 and self._db is None
        if args or kwargs.keys() != {"pk"} or not fast:
            return super().get(*args, **kwargs)
        rows = _by_pk().read(pk)
        if not rows:
            raise self.model.DoesNotExist(
                f"{self.model._meta.object_name} matching query does not exist."
            )
        return rows[0]


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

    # The suspension that keeps this account out (issue 50), kept on the row every
    # request reads anyway: checking it costs no query (accounts.suspensions).
    active_suspension = models.ForeignKey(
        "accounts.Suspension",
        verbose_name=_("suspension in force"),
        null=True,
        blank=True,
        editable=False,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    objects = CaseInsensitiveUserManager()

    class Meta(AbstractUser.Meta):  # its translated verbose names ("user", "users")
        constraints = [
            models.UniqueConstraint(Lower("username"), name="accounts_user_username_ci_unique"),
        ]

    def __str__(self) -> str:
        return self.username


class SuspensionQuerySet(models.QuerySet["Suspension"]):
    def in_force(self, now: Any = None) -> "SuspensionQuerySet":
        """Begun, not lifted, not ended."""
        now = now or timezone.now()
        return self.filter(lifted_at__isnull=True, starts_at__lte=now).filter(
            Q(ends_at__isnull=True) | Q(ends_at__gt=now)
        )


class Suspension(models.Model):
    """An account kept out by staff (issue 50): its log-in is refused with the reason
    and the end, its sessions end at their next request. ``ends_at`` empty: until
    lifted. Its permissions (add, change, view) mean "may suspend", "may lift" and
    "may see suspensions\"."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        on_delete=models.CASCADE,
        related_name="suspensions",
    )
    reason = models.TextField(
        _("reason"),
        max_length=1000,
        help_text=_("Shown to the user when they try to log in."),
    )
    starts_at = models.DateTimeField(_("starts at"), default=timezone.now, editable=False)
    ends_at = models.DateTimeField(
        _("ends at"),
        null=True,
        blank=True,
        help_text=_("Leave it empty to suspend until the suspension is lifted."),
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("suspended by"),
        null=True,
        editable=False,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    lifted_at = models.DateTimeField(_("lifted at"), null=True, blank=True, editable=False)
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("lifted by"),
        null=True,
        blank=True,
        editable=False,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    objects = SuspensionQuerySet.as_manager()

    class Meta:
        ordering = ("-starts_at", "-pk")
        verbose_name = _("suspension")
        verbose_name_plural = _("suspensions")

    def __str__(self) -> str:
        # The admin reads suspensions with their user (one query for a whole list).
        return f"{self.user.username}: {self.reason[:50]}"

    def in_force(self, now: Any = None) -> bool:
        now = now or timezone.now()
        return (
            self.lifted_at is None
            and self.starts_at <= now
            and (self.ends_at is None or self.ends_at > now)
        )


@functools.cache
def _by_pk() -> CompiledRead[User]:
    """A user by primary key, compiled once (see CaseInsensitiveUserManager.get); made
    on first use, once the app registry is ready."""
    return CompiledRead(User, lambda pk: User.objects.filter(pk=pk))
