"""The pytest plugin (entry point pytest11 `cnxsim`): fixtures over server.start().

Fixtures:
  cnxsim           a CnxsimServer shared by the session (scope: --cnxsim-scope or the
                   ini key cnxsim_scope: session, package, module, class or function)
  cnxsim_function  a fresh CnxsimServer for one test; honours @pytest.mark.cnxsim
  cnxsim_factory   start(**options) -> CnxsimServer, any number per test, all stopped after it
Marker:
  @pytest.mark.cnxsim(version="3.0", settings={...}, setup="file.yaml", args=[...])
Options (command line; the ini key of the same name without the dashes also works):
  --cnxsim-binary PATH, --cnxsim-broker-version V, --cnxsim-set KEY=VALUE (repeatable),
  --cnxsim-setup FILE, --cnxsim-scope SCOPE, --cnxsim-ready-timeout SECONDS
"""
import pytest

from .server import DEFAULT_READY_TIMEOUT, CnxsimError, find_binary, start

SCOPES = ("session", "package", "module", "class", "function")
MARKER_KEYS = {"version", "settings", "setup", "args", "token", "trust_certs"}


def pytest_addoption(parser):
    group = parser.getgroup("cnxsim", "cnxsim serve (a Pulsar broker double) for the tests")
    group.addoption("--cnxsim-binary", metavar="PATH",
                    help="the cnxsim executable (default: $CNXSIM, else cnxsim on PATH)")
    group.addoption("--cnxsim-broker-version", metavar="V",
                    help="the Pulsar release the cnxsim fixtures serve (default: cnxsim's newest)")
    group.addoption("--cnxsim-set", metavar="KEY=VALUE", action="append", default=[],
                    help="a broker.conf setting for the cnxsim fixtures (repeatable)")
    group.addoption("--cnxsim-setup", metavar="FILE", help="a --setup file for the cnxsim fixtures")
    group.addoption("--cnxsim-scope", choices=SCOPES,
                    help="the scope of the cnxsim fixture (default: session)")
    group.addoption("--cnxsim-ready-timeout", metavar="SECONDS", type=float,
                    help=f"how long to wait for serve's ready line (default {DEFAULT_READY_TIMEOUT:g})")
    for name, text in (("cnxsim_binary", "the cnxsim executable"),
                       ("cnxsim_broker_version", "the Pulsar release the cnxsim fixtures serve"),
                       ("cnxsim_setup", "a --setup file for the cnxsim fixtures"),
                       ("cnxsim_scope", "the scope of the cnxsim fixture (default: session)"),
                       ("cnxsim_ready_timeout", "seconds to wait for serve's ready line")):
        parser.addini(name, text)
    parser.addini("cnxsim_set", "broker.conf settings for the cnxsim fixtures, KEY=VALUE", type="linelist")


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "cnxsim(version=None, settings=None, setup=None, args=None): options of the cnxsim serve this test's "
        "cnxsim_function (or function-scoped cnxsim) fixture starts")
    scope = _scope_name(config)
    if scope not in SCOPES:
        raise pytest.UsageError(f"cnxsim_scope = {scope!r}: one of {', '.join(SCOPES)}")


def _option(config, name):
    value = config.getoption(name)
    if value in (None, []):
        value = config.getini(name)
    return value or None


def _scope_name(config):
    return _option(config, "cnxsim_scope") or "session"


def _scope(fixture_name, config):
    return _scope_name(config)


def _defaults(config):
    """The options every fixture starts with, from the command line and ini file."""
    settings = {}
    for item in _option(config, "cnxsim_set") or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise CnxsimError(f"--cnxsim-set {item!r}: KEY=VALUE")
        settings[key.strip()] = value
    timeout = _option(config, "cnxsim_ready_timeout")
    return {
        "binary": _option(config, "cnxsim_binary"),
        "version": _option(config, "cnxsim_broker_version"),
        "settings": settings,
        "setup": _option(config, "cnxsim_setup"),
        "ready_timeout": float(timeout) if timeout else DEFAULT_READY_TIMEOUT,
    }


def _merge(config, options):
    merged = _defaults(config)
    unknown = set(options) - MARKER_KEYS - set(merged) - {"stop_timeout", "env", "free_ports"}
    if unknown:
        raise CnxsimError(f"cnxsim: unknown option(s) {', '.join(sorted(unknown))}; "
                                f"known: {', '.join(sorted(MARKER_KEYS | set(merged)))}")
    for key, value in options.items():
        if key == "settings":
            merged["settings"] = {**merged["settings"], **(value or {})}
        elif value is not None:
            merged[key] = value
    return merged


def _marker_options(node):
    options = {}
    for mark in reversed(list(node.iter_markers("cnxsim"))):  # the closest marker wins
        if mark.args:
            raise CnxsimError(f"{node.nodeid}: @pytest.mark.cnxsim takes keywords only "
                                    f"({', '.join(sorted(MARKER_KEYS))})")
        options.update(mark.kwargs)
    return options


def _start(config, options):
    try:
        return start(**_merge(config, options))
    except CnxsimError as e:
        pytest.fail(str(e), pytrace=False)


def _start_marked(request):
    try:
        options = _marker_options(request.node)
    except CnxsimError as e:
        pytest.fail(str(e), pytrace=False)
    return _start(request.config, options)


def _stop(server):
    try:
        server.stop()
    except CnxsimError as e:
        pytest.fail(str(e), pytrace=False)


def pytest_runtest_setup(item):
    """A cnxsim marker on a test whose cnxsim fixture is shared would be ignored: say so."""
    if item.get_closest_marker("cnxsim") is None:
        return
    names = getattr(item, "fixturenames", ())
    if "cnxsim" in names and _scope_name(item.config) != "function" and "cnxsim_function" not in names:
        pytest.fail(
            f"{item.nodeid}: @pytest.mark.cnxsim applies to a server of this test only, but the cnxsim fixture is "
            f"{_scope_name(item.config)}-scoped: use the cnxsim_function fixture (or --cnxsim-scope function)", pytrace=False)


@pytest.fixture(scope=_scope)
def cnxsim(request):
    """A running `cnxsim serve` (CnxsimServer: service_url, admin_url, version, restart(), upgrade(v))."""
    server = _start_marked(request) if request.scope == "function" else _start(request.config, {})
    yield server
    _stop(server)


@pytest.fixture
def cnxsim_function(request):
    """A `cnxsim serve` of this test alone, with its @pytest.mark.cnxsim options."""
    server = _start_marked(request)
    yield server
    _stop(server)


@pytest.fixture
def cnxsim_factory(request):
    """start(version=..., settings=..., setup=..., args=[...]) -> CnxsimServer; all stopped after the test."""
    started = []

    def factory(**options):
        started.append(_start(request.config, options))
        return started[-1]
    yield factory
    errors = []
    for server in started:
        try:
            server.stop()
        except CnxsimError as e:
            errors.append(str(e))
    if errors:
        pytest.fail("\n".join(errors), pytrace=False)


@pytest.fixture(scope="session")
def cnxsim_binary(request):
    """The cnxsim executable the fixtures run (a clear failure when there is none)."""
    try:
        return find_binary(_option(request.config, "cnxsim_binary"))
    except CnxsimError as e:
        pytest.fail(str(e), pytrace=False)
