import hashlib
from collections.abc import Iterator
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import forms as auth_forms
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _

from . import ratelimit
from .models import User, username_matches

EMAIL_HELP = _("Optional. Only used to send you a link if you forget your password.")


class SignUpForm(UserCreationForm):
    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        email = self.fields["email"]
        email.required = False
        email.label = _("E-mail address")
        email.help_text = EMAIL_HELP
        email.widget.attrs["autocomplete"] = "email"

    def clean_username(self) -> str:
        username: str = self.cleaned_data["username"]
        # The database constraint refuses it too; this says it in the form.
        if User.objects.filter(username_matches(username)).exists():
            raise forms.ValidationError(
                _("That username is taken (names ignore upper and lower case)."),
                code="unique",
            )
        return username


class EmailForm(forms.ModelForm):
    """The profile page: the account's e-mail address, changed with the password.

    The current password is asked for, as for a password change: whoever holds an open
    session (a shared computer) must not be able to point the account's password
    resets at their own mailbox."""

    password = forms.CharField(
        label=_("Your current password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    class Meta:
        model = User
        fields = ("email",)
        labels = {"email": _("E-mail address")}
        help_texts = {"email": _("Leave it empty to remove it. Used only for password resets.")}
        widgets = {"email": forms.EmailInput(attrs={"autocomplete": "email"})}

    def clean_password(self) -> str:
        password: str = self.cleaned_data["password"]
        # self.instance is the logged-in user (the view passes it).
        if not self.instance.check_password(password):
            raise forms.ValidationError(_("That is not your password."), code="password_incorrect")
        return password


class PasswordResetForm(auth_forms.PasswordResetForm):
    """Django's reset form, the same answer whatever the address (no user enumeration),
    with the site's policy in ``get_users``:

    - an account without an e-mail address gets no mail (Django's ``email__iexact``
      never matches an empty field: the form requires an address);
    - several accounts may share one address (a family's mailbox, one player's second
      account): each gets its own mail, which names its username. Addresses are
      therefore not unique, neither at sign-up nor on the profile page;
    - an address gets at most PASSWORD_RESET_MAILS_PER_ADDRESS mails an hour, whoever
      asks, so that nobody floods someone's mailbox through the site. Past it the page
      answers the same and no mail leaves.
    """

    email = forms.EmailField(
        label=_("E-mail address"),
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )

    def get_users(self, email: str) -> Iterator[Any]:
        users = list(super().get_users(email))
        if not users:
            return iter(())
        # A digest: the cache holds no address.
        key = hashlib.sha256(email.casefold().encode()).hexdigest()
        if not ratelimit.hit(
            "password-reset-address", key, settings.PASSWORD_RESET_MAILS_PER_ADDRESS, ratelimit.HOUR
        ):
            return iter(())
        return iter(users)


def refuse_if_suspended(user: Any) -> None:
    """After the password was found right (never before: a wrong one must not reveal
    a suspension), a suspended account is refused with the reason and the end, in the
    account's language (issue 50)."""
    from .suspensions import in_force_for, refusal

    suspension = in_force_for(user.pk)
    if suspension is not None:
        raise forms.ValidationError(
            refusal(suspension, getattr(user, "language", "")), code="suspended"
        )


class LoginForm(auth_forms.AuthenticationForm):
    """The site's log-in: Django's form (with django-axes behind authenticate), which
    refuses a suspended account with its reason."""

    def confirm_login_allowed(self, user: Any) -> None:
        super().confirm_login_allowed(user)
        refuse_if_suspended(user)


class AdminLoginForm(AdminAuthenticationForm):
    """The admin's log-in refuses a suspended account the same way."""

    def confirm_login_allowed(self, user: Any) -> None:
        super().confirm_login_allowed(user)
        refuse_if_suspended(user)
