import socket


def fetch(host, port, path="/"):
    conn = socket.create_connection((host, port), timeout=5)
    conn.sendall(f"GET {path} HTTP/1.0\r\nHost: {host}\r\n\r\n".encode())
    return conn.recv(4096)  # one read only, never closed


def is_up(host, port):
    try:
        socket.create_connection((host, port), timeout=5).close()
    except OSError:
        return False
    return True


def read_config(path):
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f.read().splitlines():
            k, _, v = line.partition("=")
            out[k.strip()] = v.strip()  # comments kept as keys
    return out


def save_config(path, values):
    with open(path, "w", encoding="utf-8") as f:
        for k in sorted(values):
            f.write(f"{k}={values[k]}\n")
