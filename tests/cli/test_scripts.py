"""scripts/install-browser.sh installs the CJK font even when chromium is already there."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def fake_bin(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(0o755)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("font_installed", [False, True])
def test_font_installed_when_chromium_exists(tmp_path: Path, font_installed: bool) -> None:
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    log = tmp_path / "apt.log"
    fake_bin(bin_, "apt-get", f'echo "$@" >> {log}')
    fake_bin(bin_, "dpkg", "exit 0" if font_installed else "exit 1")
    fake_bin(bin_, "id", "echo 0")
    chromium = bin_ / "chromium"
    fake_bin(bin_, "chromium", "exit 0")
    env = {
        **os.environ,
        "PATH": f"{bin_}{os.pathsep}{os.environ['PATH']}",
        "CHROMIUM": str(chromium),
        "CHROMEDRIVER": str(chromium),
    }
    done = subprocess.run(
        ["bash", str(REPO / "scripts" / "install-browser.sh")],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    calls = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    if font_installed:
        assert calls == []
    else:
        assert any("fonts-noto-cjk" in c for c in calls)
        assert not any("chromium" in c for c in calls)
