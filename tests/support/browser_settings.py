"""The browser tests' server settings: config.settings with a fast password hasher.

Every browser log-in and sign-up hashes a password, and the users the session
creates hash theirs: with PBKDF2's production cost that is a third of a second
of CPU each on a 2-core machine, for nothing the browser tests check (as in
tests/conftest.py, which does the same for the in-process tests). Everything
else is config.settings unchanged; the deployment tests run config.settings itself.
"""

from config.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
