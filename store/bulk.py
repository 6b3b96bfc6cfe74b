"""Multi-row INSERTs (``Bulk``). Standard library only: the writer process
(``store/writer_proc.py``) imports this file too, without the rest of Gauntlet."""

from __future__ import annotations

from itertools import chain, repeat
from typing import Iterator


class Bulk:
    """The multi-row form of ``INSERT INTO t (cols) VALUES (?, ...) [ON CONFLICT ...]``.

    ``executemany`` steps a statement once per row, and Python's sqlite3 releases and
    retakes the GIL around every step (when commits ran in a thread beside the event
    loop, each retake could wait up to the 5 ms switch interval: a 2,000-row group took
    about twice as long as this way; docs/store.md). Here up to ``MAX_ROWS`` rows go in
    with ONE step of ``INSERT INTO t (cols) SELECT * FROM (VALUES (?, ...), ...) WHERE
    true LIMIT ? [ON CONFLICT ...]`` whose text depends only on a power-of-two row
    count, so each size is prepared once and then comes from the connection's statement
    cache. The unused tail rows are bound
    to 0 and never read (``LIMIT`` stops the VALUES co-routine). The values are bound by
    the same sqlite3 code as ``executemany`` (same types, same affinities) and the rows
    go in one after another in order, each upserted or refused as it would be alone.
    (One JSON array of the rows through ``json_each`` was tried instead: same single step,
    but ~55% more CPU per row than ``executemany``, where this form costs ~10% less.)
    """

    MAX_ROWS = 2048  # prepare costs ~5 us a row once; larger groups take several steps

    def __init__(self, sql: str) -> None:
        head, sep, rest = sql.partition(" VALUES (")
        values, _, tail = rest.partition(")")
        marks = [m.strip() for m in values.split(",")]
        if not sep or set(marks) != {"?"} or "?" in tail or "VALUES" in tail:
            raise ValueError(f"not a plain INSERT ... VALUES (?, ...): {sql!r}")
        self.head, self.width, self.tail = head, len(marks), tail
        self._row = "(" + ",".join("?" * self.width) + ")"
        self._sql: dict[int, str] = {}

    def sql(self, size: int) -> str:
        text = self._sql.get(size)
        if text is None:
            text = self._sql[size] = (
                f"{self.head} SELECT * FROM (VALUES {','.join([self._row] * size)}) WHERE true LIMIT ?{self.tail}"
            )
        return text

    def statements(self, rows: list[tuple], max_vars: int) -> Iterator[tuple[str, list]]:
        """``(sql, params)`` steps inserting ``rows`` in order, each within ``max_vars``
        bound variables (the connection's SQLITE_LIMIT_VARIABLE_NUMBER)."""
        cap = self.MAX_ROWS
        while cap > 1 and cap * self.width + 1 > max_vars:
            cap //= 2
        width = self.width
        for i in range(0, len(rows), cap):
            part = rows[i : i + cap]
            n = len(part)
            size = 1 << (n - 1).bit_length()  # the next power of two
            params = list(chain.from_iterable(part))
            if len(params) != n * width:
                raise ValueError(f"{self.head}: a row has not {width} values")
            if size > n:
                params.extend(repeat(0, (size - n) * width))
            params.append(n)
            yield self.sql(size), params
