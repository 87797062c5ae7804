"""The guides' screenshots (bench/screenshots.py): every picture the script makes is one
committed in docs/img/ (a rename on either side breaks this), and the script really makes a
picture of the app at the size it promises."""
from __future__ import annotations

import struct

import pytest

from bench import screenshots

PNG = b"\x89PNG\r\n\x1a\n"


def png_size(path) -> tuple[int, int]:
    """Width and height from the PNG's header (its first chunk, IHDR)."""
    head = path.read_bytes()[:24]
    assert head[:8] == PNG and head[12:16] == b"IHDR", f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


def test_every_picture_the_script_makes_is_committed_in_docs_img():
    names = [s.name for s in screenshots.SHOTS]
    assert len(names) == len(set(names))
    missing = [n for n in names if not (screenshots.OUT / n).is_file()]
    assert not missing, f"run `python -m bench.screenshots` and commit docs/img/: missing {missing}"
    for name in names:
        assert png_size(screenshots.OUT / name) == (screenshots.WIDTH, screenshots.HEIGHT), name


def test_an_unknown_picture_is_refused_by_name_before_anything_starts(tmp_path):
    with pytest.raises(SystemExit, match="no such picture: home.jpg; the pictures are: home.png"):
        screenshots.run(tmp_path / "out", only=["home.jpg"])
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_the_script_makes_one_picture_of_the_running_app(tmp_path):
    out = tmp_path / "img"
    written = screenshots.run(out, only=["teacher-release.png"])
    assert written == [out / "teacher-release.png"]
    assert [p.name for p in out.iterdir()] == ["teacher-release.png"]
    assert png_size(written[0]) == (1280, 900)
    # A blank or error page compresses to a few KB; the Release page with its gates is far more.
    assert written[0].stat().st_size > 30_000
