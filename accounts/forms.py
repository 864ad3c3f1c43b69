from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _

from .models import User, username_matches


class SignUpForm(UserCreationForm):
    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username",)

    def clean_username(self) -> str:
        username: str = self.cleaned_data["username"]
        # The database constraint refuses it too; this says it in the form.
        if User.objects.filter(username_matches(username)).exists():
            raise forms.ValidationError(
                _("That username is taken (names ignore upper and lower case)."),
                code="unique",
            )
        return username
