# The corpus's suites are judged (tests/test_judge_corpus.py), never collected by the project's run.
collect_ignore_glob = ["*"]
