"""pytest-cnxsim: `cnxsim serve`, a Pulsar broker double, as pytest fixtures (README.md).

Without pytest's fixtures: `with pytest_cnxsim.serve(version="3.0") as server: ...`
"""
from .server import CnxsimError, CnxsimServer, find_binary, parse_ready_line, serve, start

__all__ = ["CnxsimError", "CnxsimServer", "find_binary", "parse_ready_line", "serve", "start"]
