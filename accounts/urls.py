from django.contrib.auth import views as auth_views
from django.urls import path

from . import language, recovery, views

urlpatterns = [
    path("language/", language.set_language, name="set_language"),
    path("signup/", views.signup, name="signup"),
    path(
        "login/",
        views.LoginView.as_view(),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "password/",
        auth_views.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "password/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("profile/", views.profile, name="profile"),
    # A forgotten password (issue 49): Django's views, logged-out visitors welcome.
    path("password/reset/", recovery.PasswordResetView.as_view(), name="password_reset"),
    path(
        "password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "password/reset/<uidb64>/<token>/",
        recovery.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "password/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
]
