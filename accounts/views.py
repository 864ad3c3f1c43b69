from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from . import ratelimit
from .forms import SignUpForm


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
