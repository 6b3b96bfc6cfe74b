"""Quieting gRPC before Ray is first imported, for ``connect`` (the package's ``__init__``)
and status.py alike. Imports nothing of arena.cluster."""

from __future__ import annotations

import os


def quiet_grpc() -> None:
    """gRPC's C core logs INFO lines (e.g. "skipping fork() handlers" whenever this process
    starts a subprocess) straight to fd 2, under the live screen: errors only, unless the
    user set ``GRPC_VERBOSITY``. Before Ray (and so gRPC) is first imported."""
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
