"""A PEP 517 build backend that needs nothing but the standard library.

pytest-cnxsim is one pure-Python package; this backend zips src/pytest_cnxsim
into a wheel (and the tree into an sdist), so `pip install ./testkit/python`
works offline, with no setuptools or wheel to download (pyproject.toml's
`requires = []`). The metadata is pyproject.toml's [project] table.
"""
import base64
import hashlib
import io
import os
import tarfile
import zipfile

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11: the fields are parsed from the known layout
    tomllib = None

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "pytest_cnxsim"


def _project():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        text = f.read()
    if tomllib is not None:
        return tomllib.loads(text.decode())["project"]
    import re
    s = text.decode()
    get = lambda key: re.search(rf'^{key} = "([^"]*)"', s, re.M).group(1)  # noqa: E731
    return {"name": get("name"), "version": get("version"), "description": get("description"),
            "requires-python": get("requires-python"), "dependencies": ["pytest>=7"],
            "entry-points": {"pytest11": {"cnxsim": "pytest_cnxsim.plugin"}}}


def _metadata(project):
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {project['version']}",
             f"Summary: {project.get('description', '')}", "License: Apache-2.0",
             f"Requires-Python: {project.get('requires-python', '>=3.8')}"]
    lines += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    readme = os.path.join(ROOT, "README.md")
    body = ""
    if os.path.exists(readme):
        lines.append("Description-Content-Type: text/markdown")
        with open(readme, encoding="utf-8") as f:
            body = f.read()
    return "\n".join(lines) + "\n\n" + body


def _entry_points(project):
    out = []
    for group, entries in project.get("entry-points", {}).items():
        out.append(f"[{group}]")
        out += [f"{name} = {target}" for name, target in entries.items()]
        out.append("")
    return "\n".join(out)


def _dist_info(project):
    return f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"


def _dist_info_files(project):
    return {"METADATA": _metadata(project),
            "WHEEL": "Wheel-Version: 1.0\nGenerator: cnxsim_wheel\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
            "entry_points.txt": _entry_points(project)}


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    project = _project()
    info = os.path.join(metadata_directory, _dist_info(project))
    os.makedirs(info, exist_ok=True)
    for name, text in _dist_info_files(project).items():
        with open(os.path.join(info, name), "w", encoding="utf-8") as f:
            f.write(text)
    return _dist_info(project)


def _record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project = _project()
    name = f"{project['name'].replace('-', '_')}-{project['version']}-py3-none-any.whl"
    files = []
    source = os.path.join(ROOT, "src", PACKAGE)
    for entry in sorted(os.listdir(source)):
        if entry.endswith(".py"):
            with open(os.path.join(source, entry), "rb") as f:
                files.append((f"{PACKAGE}/{entry}", f.read()))
    info = _dist_info(project)
    files += [(f"{info}/{n}", t.encode()) for n, t in _dist_info_files(project).items()]
    record = "".join(f"{path},{_record_hash(data)},{len(data)}\n" for path, data in files) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as whl:
        for path, data in files + [(f"{info}/RECORD", record.encode())]:
            whl.writestr(zipfile.ZipInfo(path, (2020, 1, 1, 0, 0, 0)), data)
    return name


def build_sdist(sdist_directory, config_settings=None):
    project = _project()
    base = f"{project['name'].replace('-', '_')}-{project['version']}"
    name = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as tar:
        for entry in ("pyproject.toml", "README.md", "build_backend", "src"):
            path = os.path.join(ROOT, entry)
            if os.path.exists(path):
                tar.add(path, arcname=f"{base}/{entry}",
                        filter=lambda t: None if "__pycache__" in t.name else t)
        info = _metadata(project).encode()
        member = tarfile.TarInfo(f"{base}/PKG-INFO")
        member.size = len(info)
        tar.addfile(member, io.BytesIO(info))
    return name
