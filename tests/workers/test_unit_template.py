"""deploy/pbem@.service: N workers under systemd, each with its role, hardened exactly as
deploy/pbem.service (the same lines), and scored by systemd-analyze below 3.0 as it is."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def _service(path: Path) -> dict[str, list[str]]:
    values: dict[str, list[str]] = {}
    section = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        if section == "Service":
            values.setdefault(key, []).append(value)
    return values


def test_the_template_runs_a_worker_with_its_role() -> None:
    unit = _service(DEPLOY / "pbem@.service")
    assert unit["ExecStart"] == ["/opt/pbem/.venv/bin/pbem serve --role ${PBEM_ROLE}"]
    assert "PBEM_ROLE=all" in unit["Environment"]
    assert "-/etc/pbem/worker-%i.env" in unit["EnvironmentFile"]


def test_the_template_keeps_every_line_of_the_single_unit_but_the_start() -> None:
    single, template = _service(DEPLOY / "pbem.service"), _service(DEPLOY / "pbem@.service")
    for key, values in single.items():
        if key in ("ExecStart", "Environment", "EnvironmentFile"):
            continue
        assert template.get(key) == values, key
    assert set(template) == set(single)


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed (.ci/run installs it)")
def test_an_instance_scores_below_three(tmp_path: Path) -> None:
    unit = tmp_path / "pbem@2.service"
    shutil.copy(DEPLOY / "pbem@.service", unit)
    done = subprocess.run(["systemd-analyze", "security", "--offline=true", "--no-pager", str(unit)],
                          capture_output=True, text=True, timeout=120)
    found = re.search(r"Overall exposure level for pbem@2\.service: (\d+\.\d+)", done.stdout)
    assert found, done.stdout[-2000:] + done.stderr
    assert float(found.group(1)) < 3.0, done.stdout
