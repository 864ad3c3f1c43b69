"""Production and development dependencies are locked apart.

requirements.lock is what a server installs: the whole tree of pyproject's
[project] dependencies and nothing else, so no test runner, browser driver,
type checker or linter reaches production. requirements-dev.lock holds the [dev]
extra's tree on top of it.
"""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.support.servers import ROOT

PROD_LOCK = ROOT / "requirements.lock"
DEV_LOCK = ROOT / "requirements-dev.lock"
DEV_TOOLS = {"pytest", "playwright", "mypy", "ruff", "hypothesis", "pytest-playwright"}


def pins(path: Path) -> dict[str, str]:
    found = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"{path.name}: {line!r} is not pinned"
            found[canonicalize_name(name)] = version
    return found


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_production_lock_has_no_dev_tool_and_the_locks_do_not_overlap() -> None:
    prod, dev = pins(PROD_LOCK), pins(DEV_LOCK)
    assert DEV_TOOLS & set(prod) == set()
    assert set(dev) >= DEV_TOOLS
    assert set(prod) & set(dev) == set()


def test_each_direct_dependency_is_pinned_in_its_own_lock_at_its_version() -> None:
    project = pyproject()["project"]
    for spec, lock in [
        *((spec, pins(PROD_LOCK)) for spec in project["dependencies"]),
        *((spec, pins(DEV_LOCK)) for spec in project["optional-dependencies"]["dev"]),
    ]:
        requirement = Requirement(spec)
        name = canonicalize_name(requirement.name)
        assert name in lock, f"{spec} is not in its lock file"
        assert requirement.specifier.contains(lock[name]), (spec, lock[name])


def test_production_lock_is_closed_under_its_packages_requirements() -> None:
    # Read from the installed metadata: whatever a production package needs is
    # in the production lock, so `pip install --no-deps -r requirements.lock` is complete.
    prod = pins(PROD_LOCK)
    missing = {}
    for name in prod:
        for spec in importlib.metadata.requires(name) or []:
            requirement = Requirement(spec)
            if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
                continue
            if canonicalize_name(requirement.name) not in prod:
                missing[name] = spec
    assert missing == {}


@pytest.mark.deploy
def test_a_production_install_from_the_lock_has_no_dev_tool_and_passes_check_deploy(
    tmp_path: Path,
) -> None:
    venv = tmp_path / "prod-venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    install = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--no-deps", "-r", str(PROD_LOCK)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]
    listed = subprocess.run(
        [python, "-m", "pip", "list", "--format=freeze"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    installed = {canonicalize_name(line.split("==")[0]) for line in listed.splitlines() if line}
    assert DEV_TOOLS & installed == set()
    assert installed - {"pip", "setuptools"} == set(pins(PROD_LOCK))
    # Every requirement met without the dev lock...
    checked = subprocess.run(
        [python, "-m", "pip", "check"], capture_output=True, text=True, timeout=120, check=False
    )
    assert checked.returncode == 0, checked.stdout
    # ...and the site's production configuration loads and passes Django's checks.
    env = {
        **{k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}},
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DJANGO_ENV": "production",
        "SECRET_KEY": "prod-venv-" + "k3y" * 20,
        "ALLOWED_HOSTS": "skullking.example",
        "REDIS_URL": "redis://127.0.0.1:6379/0",  # configured, never contacted by check
    }
    deploy_check = subprocess.run(
        [python, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert deploy_check.returncode == 0, deploy_check.stdout + deploy_check.stderr
