"""Snapshots: content-addressed, immutable, links kept as links, caps with notices."""

import os
from pathlib import Path

from arena.judge.verdict.snapshot import SnapshotCaps, diff_stats, load_snapshot, materialize, take_snapshot


def _ws(tmp_path: Path, files: dict[str, str]) -> Path:
    ws = tmp_path / "ws"
    for rel, text in files.items():
        p = ws / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    ws.mkdir(exist_ok=True)
    return ws


def test_same_content_same_hash_and_changes_change_it(tmp_path):
    ws = _ws(tmp_path, {"a.py": "x = 1\n", "pkg/b.py": "y = 2\n"})
    s1 = take_snapshot(ws, tmp_path / "snaps")
    s2 = take_snapshot(ws, tmp_path / "snaps")
    assert s1.hash == s2.hash and s1.path == s2.path
    assert s1.files == ["a.py", "pkg/b.py"]
    assert s1.bytes == 12
    (ws / "a.py").write_text("x = 2\n")
    assert take_snapshot(ws, tmp_path / "snaps").hash != s1.hash
    (ws / "a.py").write_text("x = 1\n")
    os.chmod(ws / "a.py", 0o755)  # the executable bit is part of the content
    assert take_snapshot(ws, tmp_path / "snaps").hash != s1.hash


def test_snapshot_is_a_copy_and_read_only(tmp_path):
    ws = _ws(tmp_path, {"a.py": "x = 1\n"})
    s = take_snapshot(ws, tmp_path / "snaps")
    (ws / "a.py").write_text("changed\n")
    assert (s.path / "a.py").read_text() == "x = 1\n"
    assert not os.stat(s.path / "a.py").st_mode & 0o222


def test_symlinks_are_kept_as_links_and_never_followed(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")
    outside_dir = tmp_path / "outside"
    outside_dir.mkdir()
    (outside_dir / "big.txt").write_text("should not be copied")
    ws = _ws(tmp_path, {"a.py": "x = 1\n"})
    os.symlink(secret, ws / "leak")
    os.symlink(outside_dir, ws / "dirlink")
    os.symlink("a.py", ws / "alias.py")
    s = take_snapshot(ws, tmp_path / "snaps")
    assert s.entries["leak"].kind == "link" and s.entries["leak"].target == str(secret)
    assert os.readlink(s.path / "leak") == str(secret)
    assert s.entries["dirlink"].kind == "link"
    assert not (s.path / "dirlink").is_dir() or (s.path / "dirlink").is_symlink()
    stored = b"".join(p.read_bytes() for p in s.path.rglob("*") if p.is_file() and not p.is_symlink())
    assert b"TOP SECRET" not in stored and b"should not be copied" not in stored
    dest = tmp_path / "copy"
    materialize(s, dest)
    assert os.readlink(dest / "leak") == str(secret)
    assert (dest / "a.py").read_text() == "x = 1\n"


def test_caches_are_skipped(tmp_path):
    ws = _ws(tmp_path, {"a.py": "1", "__pycache__/a.cpython-311.pyc": "junk", "sub/.pytest_cache/v": "junk"})
    s = take_snapshot(ws, tmp_path / "snaps")
    assert s.files == ["a.py"]


def test_file_count_cap_leaves_files_out_with_a_notice(tmp_path):
    ws = _ws(tmp_path, {f"f{i:03}.txt": "x" for i in range(30)})
    s = take_snapshot(ws, tmp_path / "snaps", SnapshotCaps(max_files=10))
    assert len(s.files) == 10
    assert any("capped at 10 files" in n and "20 file(s) left out" in n for n in s.notices)


def test_byte_cap_leaves_files_out_with_a_notice(tmp_path):
    ws = _ws(tmp_path, {"small.txt": "x" * 100, "zbig.bin": "y" * 5000})
    s = take_snapshot(ws, tmp_path / "snaps", SnapshotCaps(max_bytes=1000, max_file_bytes=800))
    assert s.files == ["small.txt"]
    assert any("zbig.bin" in n for n in s.notices)


def test_special_files_are_left_out(tmp_path):
    ws = _ws(tmp_path, {"a.py": "1"})
    os.mkfifo(ws / "pipe")
    s = take_snapshot(ws, tmp_path / "snaps")
    assert s.files == ["a.py"] and any("special" in n for n in s.notices)


def test_load_snapshot_round_trip(tmp_path):
    ws = _ws(tmp_path, {"a.py": "x = 1\n", "b/c.txt": "hi"})
    os.symlink("/etc/passwd", ws / "l")
    s = take_snapshot(ws, tmp_path / "snaps")
    again = load_snapshot(tmp_path / "snaps", s.hash)
    assert again.files == s.files and again.entries == s.entries


def test_diff_stats(tmp_path):
    ws = _ws(tmp_path, {"a.py": "one\ntwo\nthree\n", "b.py": "keep\n"})
    s1 = take_snapshot(ws, tmp_path / "snaps")
    first = diff_stats(None, s1)
    assert first["files_changed"] == 2 and first["lines_added"] == 4 and first["lines_removed"] == 0
    (ws / "a.py").write_text("one\nTWO\nthree\nfour\n")
    (ws / "c.py").write_text("new\n")
    s2 = take_snapshot(ws, tmp_path / "snaps")
    d = diff_stats(s1, s2)
    assert d["changed_files"] == ["a.py", "c.py"]
    assert d["files_changed"] == 2
    assert d["lines_added"] == 3 and d["lines_removed"] == 1
    assert 0.0 < d["similarity"] < 1.0
    assert diff_stats(s2, s2) == {
        "files_changed": 0,
        "lines_added": 0,
        "lines_removed": 0,
        "similarity": 1.0,
        "changed_files": [],
    }
