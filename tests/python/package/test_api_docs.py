"""docs/api.md, the API reference, is generated from the package (scripts/gen_api_docs.py) and must match the
package as built: a docstring or signature changed without regenerating it fails here, saying what to run."""
import pathlib
import re
import subprocess
import sys

import pytest

import cubridge

ROOT = pathlib.Path(__file__).resolve().parents[3]
API_MD = ROOT / "docs" / "api.md"


def test_docs_api_md_is_current():
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_api_docs.py"), "--check"],
                         capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        pytest.fail(out.stdout + out.stderr, pytrace=False)


def test_every_public_name_has_an_entry():
    code = "\n".join(re.findall(r"```python\n(.*?)\n```", API_MD.read_text(encoding="utf-8"), re.S))
    missing = [n for n in cubridge.__all__ if not re.search(rf"(^|[\s,]){re.escape(n)}\b", code, re.M)]
    assert not missing, f"docs/api.md has no entry for {missing}"


def test_the_readme_links_the_reference():
    assert "(docs/api.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
