"""The store path is absolute whatever the caller's spelling: its data directory is bind-mounted
into sandboxes and host agents' namespaces (a relative ``--store h.db`` made bwrap fail with
"Can't find source path h.db.d/workspaces/…" for a host agent)."""

from pathlib import Path

from arena import paths


def test_a_relative_store_is_made_absolute_from_the_callers_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert paths.store_path("h.db") == tmp_path / "h.db"
    monkeypatch.setenv("GAUNTLET_STORE", "sub/s.db")
    assert paths.store_path() == tmp_path / "sub" / "s.db"
    assert paths.data_dir(paths.store_path("h.db")) == tmp_path / "h.db.d"
    assert Path(paths.store_path("/abs/x.db")) == Path("/abs/x.db")
