import socket  # noqa: F401


def fetch(host, port, path="/"):
    raise NotImplementedError


def is_up(host, port):
    raise NotImplementedError


def read_config(path):
    raise NotImplementedError


def save_config(path, values):
    raise NotImplementedError
