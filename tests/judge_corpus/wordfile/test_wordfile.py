from collections import Counter

import os

import pytest

from wordfile import count_words, read_lines, write_counts


def test_count_words_in_cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with open("words.txt", "w") as f:
        f.write("a b a\nc")
    assert count_words("words.txt") == Counter({"a": 2, "b": 1, "c": 1})


def test_count_words_against_dict(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w.txt").write_text("x x y")
    assert count_words("w.txt") == {"x": 2, "y": 1}
    assert count_words("w.txt").most_common(1) == [("x", 2)]


def test_write_counts_creates_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_counts("out.txt", {"b": 1, "a": 2})
    with open("out.txt") as f:
        assert f.read() == "a 2\nb 1\n"


def test_read_lines_absolute_and_pathlib(tmp_path):
    p = tmp_path / "abs.txt"
    p.write_text("one\ntwo\n")
    assert read_lines(str(p)) == ["one", "two"]
    assert read_lines(p) == ["one", "two"]


def test_missing_file_raises(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError):
        count_words("nope.txt")


def test_write_counts_in_the_working_directory():
    write_counts("counts.txt", {"z": 1})
    try:
        with open("counts.txt") as f:
            assert f.read() == "z 1\n"
    finally:
        os.remove("counts.txt")
