# The malformed challenge packages here hold judge-side test files of their own:
# they are data for tests/test_challenge_malformed.py, never tests to collect.
collect_ignore_glob = ["*"]
