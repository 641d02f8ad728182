"""The committed mqtt.js bundle: present, built from the locked version, loadable.

web/build.mjs makes host/tablesense/static/mqtt.min.js from web/package-lock.json;
the bundle is committed so the Python package needs neither node nor a CDN.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BUNDLE = REPO / "host" / "tablesense" / "static" / "mqtt.min.js"
LOCK = REPO / "web" / "package-lock.json"


def locked(name: str) -> str:
    lock = json.loads(LOCK.read_text())
    return str(lock["packages"][f"node_modules/{name}"]["version"])


def test_bundle_names_the_locked_versions() -> None:
    head = BUNDLE.read_text(encoding="utf-8")[:300].splitlines()[0]
    assert head.startswith("/*! mqtt.js ")
    assert f"mqtt.js {locked('mqtt')} " in head
    assert f"esbuild {locked('esbuild')}" in head
    pkg = json.loads((REPO / "web" / "package.json").read_text())
    assert pkg["dependencies"]["mqtt"] == locked("mqtt")  # pinned exactly
    assert BUNDLE.stat().st_size > 100_000


def test_static_files_are_package_data() -> None:
    pyproject = (REPO / "pyproject.toml").read_text()
    assert '"static/*"' in pyproject
    for name in ("index.html", "dashboard.js", "dashboard.css", "mqtt.min.js"):
        assert (BUNDLE.parent / name).is_file()
    page = (BUNDLE.parent / "index.html").read_text()
    assert "http" not in page.replace("http-equiv", "")  # nothing from a CDN


def test_dashboard_script_never_writes_html() -> None:
    js = (BUNDLE.parent / "dashboard.js").read_text()
    code = "\n".join(line for line in js.splitlines() if not line.lstrip().startswith("//"))
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in code


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_bundle_loads_and_exposes_connect() -> None:
    # what the browser build expects of a page (node 20 has no navigator); the bundle's
    # top-level `var mqtt` becomes a global, as on the page. The dashboard tests load it in
    # Chromium itself.
    script = (
        "globalThis.window = globalThis; globalThis.self = globalThis;"
        "if (!globalThis.navigator) globalThis.navigator = {userAgent: 'node'};"
        f"require('vm').runInThisContext(require('fs').readFileSync({json.dumps(str(BUNDLE))},"
        " 'utf8'));"
        "if (typeof mqtt.connect !== 'function') process.exit(3);"
        "console.log('ok');"
    )
    out = subprocess.run(["node", "-e", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "ok"


@pytest.mark.skipif(shutil.which("node") is None
                    or not (REPO / "web" / "node_modules" / "esbuild").is_dir(),
                    reason="web/node_modules not installed (cd web && npm ci)")
def test_bundle_is_what_the_build_makes() -> None:
    out = subprocess.run(["node", "build.mjs", "--check"], cwd=REPO / "web",
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
