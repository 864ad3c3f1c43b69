"""Render deploy/nginx.conf.in into an nginx.conf, from environment variables.

    NGINX_LISTEN=80 NGINX_UPSTREAMS=app1:8000,app2:8000 STATIC_ROOT=/app/staticfiles \\
        python deploy/render_nginx.py deploy/nginx.conf.in --output /run/nginx/nginx.conf
    nginx -c /run/nginx/nginx.conf

Standard library only, so that it runs before anything is installed. Every
@NAME@ of the template must get a value: a missing variable is an error, not an
empty directive. NGINX_RUNTIME_DIR (default /run/skullking-nginx) is created.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path

PLACEHOLDER = re.compile(r"@([A-Z][A-Z0-9_]*)@")
DEFAULTS = {"NGINX_USER": "www-data", "NGINX_RUNTIME_DIR": "/run/skullking-nginx"}
# Variables copied into the configuration as they are (each one nginx token).
PLAIN = ("NGINX_LISTEN", "STATIC_ROOT", *DEFAULTS)
TLS_VARIABLES = ("NGINX_TLS_LISTEN", "NGINX_TLS_CERT", "NGINX_TLS_KEY")
SAFE_VALUE = re.compile(r"[^\s;{}'\"#$@]+")  # one nginx token: no space, quote, ; or braces


def upstream_servers(upstreams: str) -> str:
    servers = [item.strip() for item in upstreams.split(",") if item.strip()]
    if not servers:
        raise ValueError("NGINX_UPSTREAMS names no server (host:port,host:port)")
    return "\n".join(f"        server {server} max_fails=1 fail_timeout=10s;" for server in servers)


def tls_block(env: Mapping[str, str]) -> str:
    given = [name for name in TLS_VARIABLES if env.get(name)]
    if not given:
        return "        # No TLS here: plain HTTP only (TLS is terminated in front, or not at all)."
    if len(given) != len(TLS_VARIABLES):
        raise ValueError(f"TLS needs all of {', '.join(TLS_VARIABLES)} (given: {given})")
    return "\n".join(
        [
            f"        listen {env['NGINX_TLS_LISTEN']} ssl;",
            f"        ssl_certificate {env['NGINX_TLS_CERT']};",
            f"        ssl_certificate_key {env['NGINX_TLS_KEY']};",
            "        ssl_protocols TLSv1.2 TLSv1.3;",
            "        ssl_session_cache shared:TLS:10m;",
        ]
    )


def values_from(env: Mapping[str, str]) -> dict[str, str]:
    values = {**DEFAULTS, **{name: env[name] for name in PLAIN if env.get(name)}}
    for name in (*values, *TLS_VARIABLES):
        value = values.get(name) or env.get(name)
        if value and not SAFE_VALUE.fullmatch(value):
            raise ValueError(f"{name}={value!r} is not a single nginx token")
    if "STATIC_ROOT" in values:
        values["STATIC_ROOT"] = values["STATIC_ROOT"].rstrip("/")
    values["NGINX_UPSTREAM_SERVERS"] = upstream_servers(env.get("NGINX_UPSTREAMS", ""))
    values["NGINX_TLS"] = tls_block(env)
    return values


def render(template: str, env: Mapping[str, str]) -> str:
    values = values_from(env)
    missing = sorted({name for name in PLACEHOLDER.findall(template) if not values.get(name)})
    if missing:
        raise ValueError(f"set {', '.join(missing)} to render the nginx configuration")
    return PLACEHOLDER.sub(lambda match: values[match.group(1)], template)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("template", type=Path)
    parser.add_argument("--output", "-o", type=Path, help="file to write (default: stdout)")
    args = parser.parse_args(argv)
    try:
        config = render(args.template.read_text(), os.environ)
    except ValueError as error:
        print(f"render_nginx: {error}", file=sys.stderr)
        return 2
    Path(os.environ.get("NGINX_RUNTIME_DIR", DEFAULTS["NGINX_RUNTIME_DIR"])).mkdir(
        parents=True, exist_ok=True
    )
    if args.output is None:
        sys.stdout.write(config)
    else:
        args.output.write_text(config)
    return 0


if __name__ == "__main__":
    sys.exit(main())
