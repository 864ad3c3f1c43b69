from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from . import ratelimit
from .forms import EmailForm, LoginForm, SignUpForm


def _safe_next(request: HttpRequest) -> str | None:
    target = request.POST.get("next") or request.GET.get("next")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return None


@login_not_required
@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect(_safe_next(request) or "home")
    form = SignUpForm(request.POST or None)
    status = 200
    if request.method == "POST":
        if not ratelimit.allow_signup(ratelimit.client_ip(request)):
            form.add_error(None, _("Too many sign-ups from your address. Try again later."))
            status = 429
        elif form.is_valid():
            user = form.save()
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, _("Welcome aboard, %(name)s!") % {"name": user.username})
            return redirect(_safe_next(request) or "home")
        else:
            status = 400
    return render(
        request,
        "registration/signup.html",
        {"form": form, "next": _safe_next(request) or ""},
        status=status,
    )


@require_http_methods(["GET", "POST"])
def profile(request: HttpRequest) -> HttpResponse:
    """The logged-in user's account: their e-mail address (for password resets, issue 49)
    and the way to their password and their statistics."""
    user = request.user
    # Read before the form validates: a ModelForm changes its instance as it does.
    saved: str = getattr(user, "email", "")
    form = EmailForm(request.POST if request.method == "POST" else None, instance=user)
    status, refusal = 200, ""
    if request.method == "POST":
        # Every POST counts, as at sign-up: the password on this form cannot be guessed
        # faster than at log-in.
        if not ratelimit.hit("profile", str(user.pk), 10, ratelimit.HOUR):
            # Not validated: whether the password was right stays unknown.
            form = EmailForm(initial={"email": saved})
            status, refusal = 429, _("Too many attempts. Try again later.")
        elif form.is_valid():
            form.save()
            if form.cleaned_data["email"]:
                messages.success(request, _("Your e-mail address was saved."))
            else:
                messages.success(request, _("Your e-mail address was removed."))
            return redirect("profile")
        else:
            status = 400
    return render(
        request,
        "registration/profile.html",
        {"form": form, "saved_email": saved, "refusal": refusal},
        status=status,
    )


class LoginView(auth_views.LoginView):
    """Django's log-in page; a suspended account (right password) is answered 403 with
    the reason and the end (issue 50). A wrong password stays as it was."""

    authentication_form = LoginForm
    redirect_authenticated_user = True

    def form_invalid(self, form: LoginForm) -> HttpResponse:  # type: ignore[override]
        response = super().form_invalid(form)
        if form.has_error("__all__", code="suspended"):
            response.status_code = 403
        return response
