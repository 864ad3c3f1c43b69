"""Django's own strings that its German or Spanish catalogue leaves untranslated.

The admin's user pages show them (Django 6.1's password-based authentication
switch, among others). Listed here, they are extracted into our catalogues, which
Django reads before its own (LOCALE_PATHS): the admin reads fully in every language.
Remove an entry once Django's catalogue translates it.
"""
# ruff: noqa: E501, RUF001

from django.utils.translation import gettext_noop

# fmt: off
MESSAGES = [
    gettext_noop("Conflicting form data submitted. Please try again."),
    gettext_noop("Password-based authentication was disabled."),
    gettext_noop("Set password: %s"),
    gettext_noop("Reset password"),
    gettext_noop("Set password"),
    gettext_noop("Whether the user will be able to authenticate using a password or not. If disabled, they may still be able to authenticate using other backends, such as Single Sign-On or LDAP."),
    gettext_noop("Password-based authentication"),
    gettext_noop("Enabled"),
    gettext_noop("Disabled"),
    gettext_noop("Raw passwords are not stored, so there is no way to see the user’s password."),
    gettext_noop("Enable password-based authentication for this user by setting a password."),
    gettext_noop("After you’ve created a user, you’ll be able to edit more user options."),
    gettext_noop("This action will <strong>enable</strong> password-based authentication for this user."),
    gettext_noop("Disable password-based authentication"),
    gettext_noop("Enable password-based authentication"),
    gettext_noop("In case you’ve forgotten, you are:"),
    gettext_noop("The app \"%s\" could not be found."),
    gettext_noop("Run"),
    gettext_noop("Filter by %(field_name)s"),
    gettext_noop("Deleting the %(object_name)s “%(escaped_object)s” would require deleting the following protected related objects:"),
    gettext_noop("Are you sure you want to delete the %(object_name)s “%(escaped_object)s”? All of the following related items will be deleted:"),
    gettext_noop("Pagination %(name)s entries"),
    gettext_noop("Pagination %(name)s"),
    gettext_noop("Search %(name)s"),
    gettext_noop("Logout"),
]
# fmt: on
