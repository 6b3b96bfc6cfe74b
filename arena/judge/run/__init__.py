"""arena.judge.run — running a suite in a sandbox.

Holds ``Judge`` and ``JudgeSpec`` (runner), the pre-started Docker sandboxes (pools,
launched by the ``in_sandbox`` launcher) and the local ones (local_pool), the content-addressed
``/judge`` directory (tests_cache), the judge command rule (command), the untimed coverage
pass (coverage_pass), the run's ``/judge-out`` tmpfs (scratch) and what the local judge
needs from the host (requirements, for ``gauntlet doctor``).

May import: ``arena.judge.static``, ``arena.judge.verdict``, ``arena.judge.in_sandbox``,
and below the judge's layer (``arena.sandbox``, ``arena.challenge``, ``arena.results``,
``arena.formats``). Nothing in the judge imports it but ``arena.judge`` itself.
"""
