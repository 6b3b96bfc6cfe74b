import logging
import sys

log = logging.getLogger("greeter")


def greet(name):
    sys.stdout.write(f"Hello, {name}!")  # no newline
    log.info("greeted %s", name)


def warn(msg):
    print(f"warning: {msg}")  # stdout, not stderr


def banner(lines):
    w = max(len(x) for x in lines)
    print("+" + "-" * (w + 2) + "+")
    for x in lines:
        print(f"| {x.ljust(w)} |")
    print("+" + "-" * (w + 2) + "+")
