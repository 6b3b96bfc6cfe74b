"""arena.judge.static — the static judges, run on the host over a stored snapshot.

Holds the code-quality and security reports (static_checks: ruff, bandit, semgrep with
its offline rules file ``semgrep_rules.yml``), the arena's long-lived bandit process
(bandit_server, run as ``python -m arena.judge.static.bandit_server``) and the lint scan of
a snapshot's Python files (lint).

May import: ``arena.judge.verdict`` (the snapshot), and below the judge's layer
(``arena.challenge``, ``arena.results``). Never ``arena.judge.run`` or ``arena.judge.in_sandbox``.
"""
