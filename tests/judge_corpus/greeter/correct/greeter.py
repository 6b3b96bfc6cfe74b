import logging
import sys

log = logging.getLogger("greeter")


def greet(name):
    print(f"Hello, {name}!")
    log.info("greeted %s", name)


def warn(msg):
    print(f"warning: {msg}", file=sys.stderr)


def banner(lines):
    w = max(len(x) for x in lines)
    print("+" + "-" * (w + 2) + "+")
    for x in lines:
        print(f"| {x.ljust(w)} |")
    print("+" + "-" * (w + 2) + "+")
