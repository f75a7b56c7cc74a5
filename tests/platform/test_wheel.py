"""The built wheel is a whole Arbiter (issue 32): installed in a fresh virtualenv, not from this source tree, it
serves the GM console's pages and files.  It once shipped only ``*.lua`` as package data, and ``/console`` answered
500 TemplateNotFound.

The wheel is built from a copy of the source without build leftovers (a stale ``*.egg-info`` lists files the
configuration no longer ships, and setuptools adds them), with pip (its build isolation: pyproject asks for a newer
setuptools than a venv has), using pip's cache; the fresh venv has no pip and gets the wheel alone (``--no-deps``),
its dependencies coming from this environment's site-packages (a ``.pth`` line, which adds a directory without
running the editable install's hook)."""
from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONSOLE = ROOT / "service" / "console"

PROBE = """
import sys
from pathlib import Path
import service
from runtime.config import Settings
from runtime.context import Context
from service.app import create_app
assert Path(service.__file__).resolve().is_relative_to(Path(sys.prefix).resolve()), service.__file__
app = create_app(Context(Settings(redis_url=sys.argv[1], queue_url=sys.argv[1], queue_name="wheel", admin_token=None,
                                  max_body_bytes=65536)))
client = app.test_client()
for path in ["/console", "/console/", *sys.argv[2:]]:
    answer = client.get(path)
    assert answer.status_code in (200, 308), (path, answer.status_code, answer.data[:300])
print("served", len(sys.argv) - 2, "files")
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out, source = tmp_path_factory.mktemp("wheel"), tmp_path_factory.mktemp("source") / "arbiter"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", ".venv", "build", "dist", "data", "*.egg-info",
                                                                "__pycache__", "tests", "docs", ".*"))
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(source)],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    (found,) = out.glob("arbiter-*.whl")
    return found


def test_the_wheel_holds_every_console_file(wheel: Path) -> None:
    shipped = set(zipfile.ZipFile(wheel).namelist())
    wanted = {p.relative_to(ROOT).as_posix() for p in CONSOLE.rglob("*")
              if p.is_file() and "__pycache__" not in p.parts}
    assert wanted and wanted <= shipped, sorted(wanted - shipped)
    assert "eventlog/append.lua" in shipped


def test_an_installed_wheel_serves_the_console(wheel: Path, tmp_path: Path, settings: object) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                                str(wheel)], capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stderr[-3000:]
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (Path(site) / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    static = [f"/console/static/{p.name}" for p in sorted((CONSOLE / "static").iterdir()) if p.is_file()]
    served = subprocess.run([str(python), "-c", PROBE, settings.redis_url, *static],  # type: ignore[attr-defined]
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert served.returncode == 0, served.stderr[-3000:]
    assert f"served {len(static)} files" in served.stdout
