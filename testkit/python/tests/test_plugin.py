"""pytest-cnxsim's own tests: each writes a user's test file and runs pytest on it
in a subprocess (pytester), with the plugin loaded from its pytest11 entry point
as `pip install` put it there. CNXSIM names the cnxsim binary (run_tests.py sets it).
"""
import json
import os
import stat
import textwrap

import pytest

from pytest_cnxsim import parse_ready_line

CNXSIM = os.environ.get("CNXSIM")
needs_cnxsim = pytest.mark.skipif(not CNXSIM, reason="CNXSIM (the cnxsim binary) is not set")

# Written into each user's test directory: records what the fixtures handed out.
RECORDER = """
import json, os, urllib.request
def record(name, server):
    with urllib.request.urlopen(server.admin_url + "/admin/v2/clusters", timeout=10) as answer:
        assert answer.status == 200
    with open(os.path.join(os.path.dirname(__file__), name + ".json"), "w") as f:
        json.dump({"service_url": server.service_url, "admin_url": server.admin_url,
                   "version": server.version, "pid": server.process.pid}, f)
"""


def recorded(pytester, name):
    with open(pytester.path / f"{name}.json") as f:
        return json.load(f)


def gone(pid):
    """The process has exited and been reaped (no zombie left: the plugin waited for it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def run(pytester, *args, env=None):
    """pytest on the user's directory in a subprocess, with ENV's changes (None: unset)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("CNXSIM", raising=False)
        for key, value in (env or {}).items():
            if value is None:
                mp.delenv(key, raising=False)
            else:
                mp.setenv(key, value)
        return pytester.runpytest_subprocess("-p", "no:cacheprovider", *args, timeout=120)


def fake_binary(pytester, name, body):
    """A stand-in for cnxsim: a shell script."""
    path = pytester.path / name
    path.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


# --- the fixtures against the real binary -------------------------------------

@needs_cnxsim
def test_session_fixture_is_shared_and_stopped(pytester):
    pytester.makepyfile(recorder=RECORDER, test_user="""
        from recorder import record
        def test_one(cnxsim):
            assert cnxsim.service_url.startswith("pulsar://127.0.0.1:")
            assert cnxsim.admin_url.startswith("http://127.0.0.1:")
            assert cnxsim.service_url_tls is None and cnxsim.admin_url_tls is None
            record("one", cnxsim)
        def test_two(cnxsim):
            record("two", cnxsim)
    """)
    result = run(pytester, env={"CNXSIM": CNXSIM})
    result.assert_outcomes(passed=2)
    one, two = recorded(pytester, "one"), recorded(pytester, "two")
    assert one == two, "the session-scoped cnxsim is one server"
    assert one["service_url"] != "pulsar://127.0.0.1:6650", "--port 0: a free port, not the default"
    assert gone(one["pid"]), "cnxsim serve still runs after the session"


@needs_cnxsim
def test_function_scope_from_the_command_line_and_ini(pytester):
    pytester.makepyfile(recorder=RECORDER, test_user="""
        from recorder import record
        def test_one(cnxsim):
            record("one", cnxsim)
        def test_two(cnxsim):
            record("two", cnxsim)
    """)
    run(pytester, "--cnxsim-scope", "function", env={"CNXSIM": CNXSIM}).assert_outcomes(passed=2)
    one, two = recorded(pytester, "one"), recorded(pytester, "two")
    assert one["service_url"] != two["service_url"] and one["pid"] != two["pid"]
    assert gone(one["pid"]) and gone(two["pid"])

    pytester.makeini("[pytest]\ncnxsim_scope = module\n")
    run(pytester, env={"CNXSIM": CNXSIM}).assert_outcomes(passed=2)
    assert recorded(pytester, "one") == recorded(pytester, "two")


@needs_cnxsim
def test_marker_sets_version_and_settings_of_cnxsim_function(pytester):
    pytester.makepyfile(test_user="""
        import json, urllib.request
        import pytest
        @pytest.mark.cnxsim(version="3.0", settings={"allowAutoTopicCreation": False})
        def test_marked(cnxsim_function):
            assert cnxsim_function.version.startswith("3.0."), cnxsim_function.version
            with urllib.request.urlopen(cnxsim_function.admin_url + "/admin/v2/brokers/configuration/values") as a:
                values = json.load(a)
            assert values.get("allowAutoTopicCreation") == "false", values
        def test_unmarked(cnxsim_function):
            assert not cnxsim_function.version.startswith("3.0.")
    """)
    run(pytester, env={"CNXSIM": CNXSIM}).assert_outcomes(passed=2)


@needs_cnxsim
def test_command_line_version_and_settings_apply_to_the_session_fixture(pytester):
    pytester.makepyfile(test_user="""
        def test_it(cnxsim):
            assert cnxsim.version.startswith("2.10."), cnxsim.version
            assert cnxsim.status()["release"] == cnxsim.version
    """)
    run(pytester, "--cnxsim-broker-version", "2.10", "--cnxsim-set", "allowAutoTopicCreation=false",
        env={"CNXSIM": CNXSIM}).assert_outcomes(passed=1)


@needs_cnxsim
def test_marker_on_a_shared_cnxsim_is_refused_with_the_way_out(pytester):
    pytester.makepyfile(test_user="""
        import pytest
        @pytest.mark.cnxsim(version="3.0")
        def test_marked(cnxsim):
            pass
    """)
    result = run(pytester, env={"CNXSIM": CNXSIM})
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*@pytest.mark.cnxsim applies to a server of this test only, but the cnxsim "
                                 "fixture is session-scoped: use the cnxsim_function fixture*"])


@needs_cnxsim
def test_factory_starts_several_and_stops_them_all(pytester):
    pytester.makepyfile(recorder=RECORDER, test_user="""
        from recorder import record
        def test_two_releases(cnxsim_factory):
            old = cnxsim_factory(version="2.10")
            # --admin-port in args: the plugin does not add its own (serve refuses an option given twice)
            new = cnxsim_factory(version="4.2", args=["--admin-port", "0", "--keepalive-seconds", "5"])
            assert old.version.startswith("2.10.") and new.version.startswith("4.2.")
            assert old.service_url != new.service_url
            record("old", old)
            record("new", new)
    """)
    run(pytester, env={"CNXSIM": CNXSIM}).assert_outcomes(passed=1)
    assert gone(recorded(pytester, "old")["pid"]) and gone(recorded(pytester, "new")["pid"])


@needs_cnxsim
def test_restart_and_upgrade_through_the_admin_api(pytester):
    pytester.makepyfile(test_user="""
        import socket
        def test_it(cnxsim_function):
            url = cnxsim_function.service_url
            assert cnxsim_function.restart() is cnxsim_function
            assert cnxsim_function.service_url == url
            cnxsim_function.upgrade("3.0")
            assert cnxsim_function.version.startswith("3.0."), cnxsim_function.version
            assert cnxsim_function.status()["release"] == cnxsim_function.version
            host, port = url[len("pulsar://"):].rsplit(":", 1)
            socket.create_connection((host, int(port)), timeout=5).close()  # same port after the upgrade
            try:
                cnxsim_function.upgrade("9.9")
            except Exception as e:
                assert type(e).__name__ == "CnxsimError" and "HTTP 400" in str(e), e
            else:
                raise AssertionError("upgrade to 9.9 passed")
    """)
    run(pytester, env={"CNXSIM": CNXSIM}).assert_outcomes(passed=1)


@needs_cnxsim
def test_serve_refusing_its_arguments_fails_with_its_message(pytester):
    pytester.makepyfile(test_user="""
        def test_it(cnxsim):
            pass
    """)
    result = run(pytester, "--cnxsim-broker-version", "9.9", env={"CNXSIM": CNXSIM})
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*cnxsim serve exited with status 2 before its ready line*",
                                 "*cnxsim serve: --broker-version*"])


@needs_cnxsim
def test_binary_option_wins_over_the_environment(pytester):
    pytester.makepyfile(test_user="""
        def test_it(cnxsim):
            assert cnxsim.service_url
    """)
    run(pytester, "--cnxsim-binary", CNXSIM, env={"CNXSIM": "/nonexistent/cnxsim"}).assert_outcomes(passed=1)


@needs_cnxsim
def test_the_library_without_fixtures(pytester):
    pytester.makepyfile(test_user="""
        import pytest, pytest_cnxsim
        @pytest.fixture(scope="module")
        def broker_30():
            with pytest_cnxsim.serve(version="3.0") as server:
                yield server
        def test_it(broker_30):
            assert broker_30.version.startswith("3.0.")
    """)
    run(pytester, env={"CNXSIM": CNXSIM}).assert_outcomes(passed=1)


# --- clear errors ---------------------------------------------------------------

USER_TEST = """
def test_it(cnxsim):
    pass
"""


def test_missing_binary_everywhere(pytester):
    pytester.makepyfile(test_user=USER_TEST)
    result = run(pytester, env={"CNXSIM": None, "PATH": str(pytester.path)})
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*cnxsim binary not found: set CNXSIM=/path/to/cnxsim, pass --cnxsim-binary, "
                                 "or put cnxsim on PATH*"])


def test_binary_from_path(pytester):
    bindir = pytester.mkdir("bin")
    fake = fake_binary(pytester, "bin/cnxsim", """
        trap 'exit 0' TERM
        echo "ready: pulsar://127.0.0.1:1 (Pulsar 9.9.9 behaviour), admin http://127.0.0.1:2"
        while :; do sleep 0.1; done
    """)
    assert fake.startswith(str(bindir))
    pytester.makepyfile(test_user="""
        def test_it(cnxsim):
            assert cnxsim.version == "9.9.9" and cnxsim.service_url == "pulsar://127.0.0.1:1"
    """)
    run(pytester, env={"CNXSIM": None, "PATH": f"{bindir}:{os.environ['PATH']}"}).assert_outcomes(passed=1)


def test_binary_that_does_not_exist(pytester):
    pytester.makepyfile(test_user=USER_TEST)
    result = run(pytester, env={"CNXSIM": "/nonexistent/cnxsim"})
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*cnxsim binary '/nonexistent/cnxsim' (from the CNXSIM environment variable) "
                                 "does not exist*"])


def test_binary_that_is_not_executable(pytester):
    path = pytester.path / "cnxsim"
    path.write_text("not a program")
    pytester.makepyfile(test_user=USER_TEST)
    result = run(pytester, "--cnxsim-binary", str(path))
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*cnxsim binary '{path}' (from --cnxsim-binary) is not an executable file*"])


def test_binary_that_exits_before_its_ready_line(pytester):
    fake = fake_binary(pytester, "cnxsim", """
        echo "cnxsim serve: cannot bind 127.0.0.1:0: boom" >&2
        exit 2
    """)
    pytester.makepyfile(test_user=USER_TEST)
    result = run(pytester, env={"CNXSIM": fake})
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*cnxsim serve exited with status 2 before its ready line*",
                                 "*cannot bind 127.0.0.1:0: boom*"])


def test_binary_without_a_ready_line_in_time(pytester):
    fake = fake_binary(pytester, "cnxsim", """
        echo "starting" >&2
        exec sleep 30
    """)
    pytester.makepyfile(test_user=USER_TEST)
    result = run(pytester, "--cnxsim-ready-timeout", "1", env={"CNXSIM": fake})
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*cnxsim serve printed no ready line within 1 s*", "*stderr: starting*"])
    assert result.duration < 20


def test_binary_printing_something_else(pytester):
    fake = fake_binary(pytester, "cnxsim", """
        echo "hello"
        exec sleep 30
    """)
    pytester.makepyfile(test_user=USER_TEST)
    result = run(pytester, env={"CNXSIM": fake})
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*cnxsim serve's first line is not a ready line: 'hello'*"])


def test_serve_that_ignores_sigterm_is_killed_and_reported(pytester):
    fake = fake_binary(pytester, "cnxsim", """
        trap '' TERM
        echo "ready: pulsar://127.0.0.1:1 (Pulsar 4.2.9 behaviour), admin http://127.0.0.1:2"
        while :; do sleep 0.1; done
    """)
    pytester.makepyfile(test_user="""
        def test_it(cnxsim_function):
            cnxsim_function.stop_timeout = 1
    """)
    result = run(pytester, env={"CNXSIM": fake})
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*cnxsim serve did not exit within 1 s of SIGTERM: killed*"])


def test_serve_failing_at_exit_is_reported(pytester):
    fake = fake_binary(pytester, "cnxsim", """
        trap 'echo "ERROR: AddressSanitizer: heap-use-after-free" >&2; exit 1' TERM
        echo "ready: pulsar://127.0.0.1:1 (Pulsar 4.2.9 behaviour), admin http://127.0.0.1:2"
        while :; do sleep 0.1; done
    """)
    pytester.makepyfile(test_user=USER_TEST)
    result = run(pytester, env={"CNXSIM": fake})
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*cnxsim serve exited with status 1 when stopped*",
                                 "*AddressSanitizer: heap-use-after-free*"])


def test_unknown_marker_option(pytester):
    pytester.makepyfile(test_user="""
        import pytest
        @pytest.mark.cnxsim(verison="3.0")
        def test_it(cnxsim_function):
            pass
    """)
    result = run(pytester, env={"CNXSIM": "/nonexistent/cnxsim"})
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*cnxsim: unknown option(s) verison; known:*"])


# --- the ready line ---------------------------------------------------------------

def test_ready_line_read_by_scheme():
    plain = parse_ready_line("ready: pulsar://127.0.0.1:41327 (Pulsar 4.2.x behaviour), admin http://127.0.0.1:38211")
    assert plain == {"service_url": "pulsar://127.0.0.1:41327", "admin_url": "http://127.0.0.1:38211",
                     "service_url_tls": None, "admin_url_tls": None, "version": "4.2.x"}
    both = parse_ready_line("ready: pulsar://H:1 (Pulsar 3.0.17 behaviour), admin http://H:2, "
                            "pulsar+ssl://H:3, admin https://H:4")
    assert both == {"service_url": "pulsar://H:1", "admin_url": "http://H:2", "service_url_tls": "pulsar+ssl://H:3",
                    "admin_url_tls": "https://H:4", "version": "3.0.17"}
    tls_only = parse_ready_line("ready: pulsar+ssl://H:3 (Pulsar 4.2.x behaviour), admin https://H:4")
    assert tls_only["service_url"] is None and tls_only["admin_url"] is None
    assert tls_only["service_url_tls"] == "pulsar+ssl://H:3" and tls_only["admin_url_tls"] == "https://H:4"
    assert parse_ready_line("cnxsim serve: --port: bad") is None
    assert parse_ready_line("ready: nothing") is None


def test_plugin_comes_from_its_installed_package():
    import importlib.metadata
    import pytest_cnxsim
    assert "site-packages" in pytest_cnxsim.__file__, pytest_cnxsim.__file__
    points = [e.value for e in importlib.metadata.entry_points(group="pytest11") if e.name == "cnxsim"]
    assert points == ["pytest_cnxsim.plugin"]
