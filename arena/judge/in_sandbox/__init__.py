"""arena.judge.in_sandbox — the code the judge ships into its sandbox, held as source text.

Each module holds a string that ``arena.judge.run.tests_cache`` writes (with hash-checked
bytecode) into ``/judge/config``: the trusted bootstrap, plugin and pytest.ini (trusted),
the pooled container's first process (launcher), the isolation plugin (isolation,
isolation_workers, proxies, isolation_patches: ``proxies.PLUGIN``), the submission's own
process (worker, with its seccomp filter and Landlock rules: seccomp, landlock) and the
data-only wire between them (wire). What these strings hold runs in the sandbox, never in
the arena; their bytes are the judge-side directory's hash.

May import: only its own modules (to join the strings), nothing else in the arena.
"""
