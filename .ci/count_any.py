#!/usr/bin/env python3
"""Count bare ``Any`` in the signatures of arena/ and store/ (issue 9).

Counted, in the parameter and return annotations of every ``def`` and ``async def``:
``Any``, ``typing.Any``, ``Any | None``, ``Optional[Any]``, ``Union[Any, ...]`` and the
same inside string annotations, including ``*args: Any`` and ``**kw: Any``.
Not counted: ``Any`` as a type argument (``dict[str, Any]``, ``Callable[..., Any]``).

Each remaining one must say why: a comment mentioning ``Any`` on the annotation's line or
in the comment lines directly above it. Prints each one as ``file:line``; exits 1 when the
count is at or over the limit (20) or any one is uncommented.

    python .ci/count_any.py [--limit N] [paths...]   (default paths: arena store)
"""

from __future__ import annotations

import argparse
import ast
import io
import sys
import tokenize
from pathlib import Path

EXCLUDE = ("arena/bundled/",)


def _is_any(node: ast.expr | None) -> bool:
    """True when ``node`` is bare Any, optionally unioned with None or wrapped in Optional."""
    if node is None:
        return False
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return _is_any(ast.parse(node.value, mode="eval").body)
        except SyntaxError:
            return False
    if isinstance(node, ast.Name):
        return node.id == "Any"
    if isinstance(node, ast.Attribute):
        return node.attr == "Any" and isinstance(node.value, ast.Name) and node.value.id in ("typing", "t")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _is_any(node.left) or _is_any(node.right)
    if isinstance(node, ast.Subscript):
        name = node.value.id if isinstance(node.value, ast.Name) else getattr(node.value, "attr", "")
        if name == "Optional":
            return _is_any(node.slice)
        if name == "Union":
            members = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return any(_is_any(m) for m in members)
    return False


def _annotations(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[str, ast.expr]]:
    a = fn.args
    out: list[tuple[str, ast.expr]] = []
    for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs]:
        if arg.annotation is not None:
            out.append((arg.arg, arg.annotation))
    if a.vararg is not None and a.vararg.annotation is not None:
        out.append(("*" + a.vararg.arg, a.vararg.annotation))
    if a.kwarg is not None and a.kwarg.annotation is not None:
        out.append(("**" + a.kwarg.arg, a.kwarg.annotation))
    if fn.returns is not None:
        out.append(("return", fn.returns))
    return out


def _comments(source: str) -> dict[int, str]:
    """Line number -> comment text, from the tokenizer (so '#' inside strings is not one)."""
    found: dict[int, str] = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                found[tok.start[0]] = tok.string
    except (tokenize.TokenError, SyntaxError):
        pass
    return found


def _explained(line: int, comments: dict[int, str], lines: list[str]) -> bool:
    if "Any" in comments.get(line, ""):
        return True
    above = line - 1
    while above >= 1 and lines[above - 1].strip().startswith("#"):
        if "Any" in comments.get(above, ""):
            return True
        above -= 1
    return False


def scan(paths: list[Path]) -> list[tuple[str, int, str, bool]]:
    """(file, line, 'function(param)', explained) for every bare Any in a signature."""
    hits: list[tuple[str, int, str, bool]] = []
    for root in paths:
        files = [root] if root.is_file() else sorted(root.rglob("*.py"))
        for file in files:
            rel = file.as_posix()
            if any(part in rel for part in EXCLUDE):
                continue
            source = file.read_text(encoding="utf-8")
            try:
                tree = ast.parse(source, filename=rel)
            except SyntaxError as exc:
                raise SystemExit(f"{rel}:{exc.lineno}: cannot parse: {exc.msg}") from exc
            comments, lines = _comments(source), source.splitlines()
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    for name, ann in _annotations(node):
                        if _is_any(ann):
                            ok = _explained(ann.lineno, comments, lines)
                            hits.append((rel, ann.lineno, f"{node.name}({name})", ok))
    return sorted(hits)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=["arena", "store"])
    parser.add_argument("--limit", type=int, default=20, help="fail when the count reaches this (default 20)")
    args = parser.parse_args(argv)
    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        print(f"count_any: no such path: {', '.join(missing)}", file=sys.stderr)
        return 2
    hits = scan([Path(p) for p in args.paths])
    for rel, line, where, ok in hits:
        print(f"{rel}:{line}: {where}: Any{'' if ok else '  (no comment saying why)'}")
    unexplained = sum(1 for *_, ok in hits if not ok)
    print(f"{len(hits)} bare Any in signatures (limit: under {args.limit}); {unexplained} without a reason")
    return 1 if len(hits) >= args.limit or unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
