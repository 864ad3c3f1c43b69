"""The deployment files read the way the tests use them, so the tested shape and
the documented one (Dockerfile, compose file, README) are the same files.

- ``start_command()``: the server processes' command, the Dockerfile's CMD.
- ``nginx_commands()``: rendering deploy/nginx.conf.in and starting nginx on it,
  the two halves of the compose file's nginx command.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
DOCKERFILE = DEPLOY / "Dockerfile"
COMPOSE = DEPLOY / "compose.yaml"
TEMPLATE = DEPLOY / "nginx.conf.in"
RENDER = DEPLOY / "render_nginx.py"
README = ROOT / "README.md"
APP_PORT = 8000  # inside the containers; the tests pick free loopback ports


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of deploy/Dockerfile, continuation lines joined."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    found = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            found.append((word.upper(), rest.strip()))
    return found


def start_command() -> list[str]:
    """The Dockerfile's CMD (exec form): how every server process starts."""
    commands = [json.loads(rest) for word, rest in dockerfile_instructions() if word == "CMD"]
    assert len(commands) == 1, commands
    return commands[0]


def with_address(command: list[str], python: str, bind: str, port: int) -> list[str]:
    """``command`` with our interpreter and another ``--bind``/``--port``."""
    args = list(command)
    assert args[0] == "python", args
    args[0] = python
    args[args.index("--bind") + 1] = bind
    args[args.index("--port") + 1] = str(port)
    return args


@cache
def compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text())


def nginx_commands(template: str, runtime_dir: str) -> tuple[list[str], list[str]]:
    """(render the template into runtime_dir/nginx.conf, run nginx on it), as argv lists."""
    config = f"{runtime_dir}/nginx.conf"
    return (
        ["python", "deploy/render_nginx.py", template, "--output", config],
        ["nginx", "-c", config],
    )
