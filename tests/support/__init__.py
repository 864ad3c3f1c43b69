"""Test infrastructure shared by the live, security and browser tests.

- ``servers``: free ports, server subprocesses (``config.serve``), stopping
  them, ``manage.py`` in a subprocess, and a scratch database per test session.
- ``websocket``: one blocking RFC 6455 client (async tests call it through
  ``asyncio.to_thread``).
"""
