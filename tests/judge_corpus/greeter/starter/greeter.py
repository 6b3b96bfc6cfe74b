def greet(name):
    raise NotImplementedError


def warn(msg):
    raise NotImplementedError


def banner(lines):
    raise NotImplementedError
