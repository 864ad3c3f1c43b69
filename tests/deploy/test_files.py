"""The documented deployment (Dockerfile, compose file, README) is the tested one.

Docker cannot run here, so these checks read the files: the compose file must
build the Dockerfile's image, run its CMD (the start command the proxy test
runs) on the ports nginx forwards to, and mount and render the same nginx
template the proxy test renders, with every variable it needs.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
from pathlib import Path
from types import ModuleType
from urllib.parse import urlsplit

import pytest

from tests.deploy.files import (
    APP_PORT,
    COMPOSE,
    DEPLOY,
    DOCKERFILE,
    README,
    ROOT,
    TEMPLATE,
    compose,
    dockerfile_instructions,
    nginx_commands,
    start_command,
)


def render_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("render_nginx", DEPLOY / "render_nginx.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def services() -> dict:
    return compose()["services"]


def app_services() -> dict[str, dict]:
    """The server processes: the services that wait for the migration."""
    return {name: s for name, s in services().items() if "migrate" in s.get("depends_on", {})}


def dockerfile_env() -> dict[str, str]:
    env: dict[str, str] = {}
    for word, rest in dockerfile_instructions():
        if word == "ENV":
            env.update(item.split("=", 1) for item in shlex.split(rest))
    return env


def test_every_service_of_ours_builds_the_dockerfile() -> None:
    ours = {name: s for name, s in services().items() if "build" in s}
    assert set(ours) >= {*app_services(), "migrate", "nginx"}
    for name, service in ours.items():
        context = (COMPOSE.parent / service["build"]["context"]).resolve()
        assert context == ROOT, name
        assert (context / service["build"]["dockerfile"]).resolve() == DOCKERFILE, name
        assert service["image"] == "skullking", name


def test_servers_run_the_start_command_on_the_ports_nginx_forwards_to() -> None:
    command = start_command()
    assert command[:3] == ["python", "-m", "config.serve"]
    # Behind our own proxy: client address and scheme come from its headers.
    assert "--proxy-headers" in command
    assert command[command.index("--port") + 1] == str(APP_PORT)
    assert ("EXPOSE", str(APP_PORT)) in dockerfile_instructions()
    apps = app_services()
    assert len(apps) >= 2, "several server processes"
    for name, service in apps.items():
        assert "command" not in service, f"{name} must run the image's CMD"
    nginx = services()["nginx"]
    upstreams = nginx["environment"]["NGINX_UPSTREAMS"].split(",")
    assert upstreams == [f"{name}:{APP_PORT}" for name in apps]
    assert set(nginx["depends_on"]) == set(apps)


def test_nginx_service_renders_the_mounted_template_and_runs_it() -> None:
    nginx = services()["nginx"]
    mounts = [volume.split(":") for volume in nginx["volumes"]]
    [(source, target, mode)] = [m for m in mounts if m[0].endswith(".conf.in")]
    assert (COMPOSE.parent / source).resolve() == TEMPLATE
    assert mode == "ro"
    render, run = nginx_commands(target, nginx["environment"]["NGINX_RUNTIME_DIR"])
    assert nginx["command"] == ["sh", "-c", f"{shlex.join(render)} && exec {shlex.join(run)}"]


def test_compose_gives_the_template_every_variable_it_needs() -> None:
    env = {k: str(v) for k, v in services()["nginx"]["environment"].items()}
    config = render_module().render(TEMPLATE.read_text(), env)
    assert "@" not in re.sub(r"#.*", "", config)
    assert f"alias {env['STATIC_ROOT']}/;" in config
    assert f"listen {env['NGINX_LISTEN']};" in config
    for upstream in env["NGINX_UPSTREAMS"].split(","):
        assert f"server {upstream} " in config
    # nginx serves what collectstatic wrote in the image.
    assert env["STATIC_ROOT"] == dockerfile_env()["STATIC_ROOT"]


def test_render_refuses_a_missing_variable_or_half_a_tls_setup() -> None:
    render = render_module().render
    full = {"NGINX_LISTEN": "80", "NGINX_UPSTREAMS": "a:1", "STATIC_ROOT": "/s"}
    with pytest.raises(ValueError, match="STATIC_ROOT"):
        render(TEMPLATE.read_text(), {**full, "STATIC_ROOT": ""})
    with pytest.raises(ValueError, match="NGINX_TLS_KEY"):
        render(TEMPLATE.read_text(), {**full, "NGINX_TLS_LISTEN": "443", "NGINX_TLS_CERT": "/c"})
    with pytest.raises(ValueError, match="single nginx token"):
        render(TEMPLATE.read_text(), {**full, "STATIC_ROOT": "/s; evil"})


def test_image_installs_only_the_production_lock() -> None:
    runs = " ".join(rest for word, rest in dockerfile_instructions() if word == "RUN")
    assert "-r requirements.lock" in runs
    assert "requirements-dev" not in runs
    assert dockerfile_env()["DJANGO_ENV"] == "production"


def test_cache_and_channel_layer_use_separate_redis_databases_in_compose() -> None:
    env = next(iter(app_services().values()))["environment"]
    layer, cache = urlsplit(env["REDIS_URL"]), urlsplit(env["REDIS_CACHE_URL"])
    assert layer.netloc == cache.netloc
    assert layer.path != cache.path


def test_health_check_command_is_valid_python() -> None:
    for name, service in app_services().items():
        test = service["healthcheck"]["test"]
        assert test[:3] == ["CMD", "python", "-c"], name
        compile(test[3], f"{name} healthcheck", "exec")
        assert f"127.0.0.1:{APP_PORT}/healthz" in test[3]


def test_readme_documents_the_tested_commands_and_variables() -> None:
    readme = README.read_text()
    assert shlex.join(start_command()) in readme
    assert "deploy/nginx.conf.in" in readme
    assert "deploy/render_nginx.py" in readme
    assert "docker compose -f deploy/compose.yaml" in readme
    documented = set(re.findall(r"`([A-Z][A-Z0-9_]+)[=`]", readme))
    app_env = set(next(iter(app_services().values()))["environment"])
    nginx_env = set(services()["nginx"]["environment"])
    assert (app_env | nginx_env) - documented == set()
    for path in ("deploy/Dockerfile", "deploy/compose.yaml", "tests/deploy/test_proxy.py"):
        assert path in readme
        assert Path(ROOT / path).exists()
