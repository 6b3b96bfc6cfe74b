"""arena.judge.verdict — the verdict and what it may disclose.

Holds the submission's content-hashed snapshot (snapshot), the tamper scan over it
(tamper), the expected tests and their categories (expected), safe parsing of JUnit and of
a non-pytest command's result files (junit, result_formats), the verdict assembled from
them (verdict), the offline substance check of file deliverables (substance), isolation
notices read back from the progress log (isolation_notices) and the leak filter over
everything a result shows the agent (redact).

May import: ``arena.judge.in_sandbox`` (nothing does today), and below the judge's layer
(``arena.challenge``, ``arena.sandbox.fsutil``, ``arena.results``, ``arena.text``). Never
``arena.judge.run`` or ``arena.judge.static``.
"""
