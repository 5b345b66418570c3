"""deploy/pbem.service as shipped: hardened (systemd-analyze's exposure score below 3.0),
Type=notify, private files, and no restart loop on a broken configuration."""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
from pathlib import Path

import pytest

UNIT = Path(__file__).resolve().parents[2] / "deploy" / "pbem.service"


def _service() -> dict[str, list[str]]:
    values: dict[str, list[str]] = {}
    section = ""
    for line in UNIT.read_text(encoding="utf-8").splitlines():
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


def test_the_unit_says_what_the_daemon_does() -> None:
    service = _service()
    assert service["Type"] == ["notify"] and service["WatchdogSec"]  # pbem.service.sdnotify
    assert service["UMask"] == ["0077"] and service["StateDirectory"] == ["pbem"]
    assert service["StateDirectoryMode"] == ["0700"]
    assert set(service["RestartPreventExitStatus"][0].split()) >= {"64", "65", "78"}  # pbem.errors
    assert service["ExecStart"][0].endswith("pbem serve")
    assert service["User"] == ["pbem"] and service["ProtectSystem"] == ["strict"]
    assert service["NoNewPrivileges"] == ["true"]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed (.ci/run installs it)")
def test_the_security_score_is_below_three(tmp_path: Path) -> None:
    unit = tmp_path / "pbem.service"
    shutil.copy(UNIT, unit)
    done = subprocess.run(["systemd-analyze", "security", "--offline=true", "--no-pager", str(unit)],
                          capture_output=True, text=True, timeout=120)
    found = re.search(r"Overall exposure level for pbem\.service: (\d+\.\d+)", done.stdout)
    assert found, done.stdout[-2000:] + done.stderr
    assert float(found.group(1)) < 3.0, done.stdout
    verified = subprocess.run(["systemd-analyze", "verify", "--man=no", str(unit)], capture_output=True, text=True,
                              timeout=120)
    unknown = [line for line in verified.stderr.splitlines() if "Unknown key" in line or "Invalid" in line]
    assert unknown == [], verified.stderr
