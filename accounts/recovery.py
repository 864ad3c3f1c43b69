"""Getting back into an account (issue 49): Django's own password-reset views with the
site's forms, templates and limits.

Django's views are already marked ``login_not_required`` (LoginRequiredMiddleware lets
a logged-out visitor reach them) and answer the same "check your mail" page for any
address. The reset link is single-use and expires after PASSWORD_RESET_TIMEOUT:
Django's token is built from the password's hash and the last log-in, so setting a
password or logging in ends it.

On top of Django's:

- the request form counts against PASSWORD_RESET_RATE_LIMIT per IP and hour
  (answered 429, for known and unknown addresses alike), and each address gets
  a few mails an hour at most (accounts.forms.PasswordResetForm);
- a new password lifts django-axes's lock-out of the account: the lock-out page
  sends people here, and a reset that still left them locked out for 15 minutes
  would be no way back in. Only the owner of the mailbox can do it.
"""

from __future__ import annotations

from typing import Any

from axes.models import AccessAttempt
from axes.utils import reset as axes_reset
from django.conf import settings
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _

from . import ratelimit
from .forms import PasswordResetForm


class PasswordResetView(auth_views.PasswordResetView):
    form_class = PasswordResetForm
    subject_template_name = "registration/password_reset_subject.txt"
    email_template_name = "registration/password_reset_email.txt"

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        ip = ratelimit.client_ip(request)
        if ratelimit.hit("password-reset", ip, settings.PASSWORD_RESET_RATE_LIMIT, ratelimit.HOUR):
            return super().post(request, *args, **kwargs)
        form = self.get_form()
        form.add_error(
            None, _("Too many password reset requests from your address. Try again later.")
        )
        return self.render_to_response(self.get_context_data(form=form), status=429)

    def form_invalid(self, form: Any) -> HttpResponse:
        # A form that says what is wrong, answered as bad input.
        response = super().form_invalid(form)
        response.status_code = 400
        return response


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        # Every lock-out of this account, from any address (attempts are kept by the
        # username as typed; usernames ignore case, so every spelling of it).
        user = form.user
        spellings = set(
            AccessAttempt.objects.filter(username__iexact=user.get_username()).values_list(
                "username", flat=True
            )
        )
        for spelling in spellings | {user.get_username()}:
            axes_reset(username=spelling)
        return response

    def render_to_response(self, context: dict[str, Any], **kwargs: Any) -> HttpResponse:
        # A link that was used, expired or mangled, or a new password refused: the page
        # says why, answered as bad input.
        form = context.get("form")
        if not self.validlink or (form is not None and form.is_bound and form.errors):
            kwargs["status"] = 400
        return super().render_to_response(context, **kwargs)
