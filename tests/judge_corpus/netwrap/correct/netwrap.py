import socket


def fetch(host, port, path="/"):
    conn = socket.create_connection((host, port), timeout=5)
    try:
        conn.sendall(f"GET {path} HTTP/1.0\r\nHost: {host}\r\n\r\n".encode())
        chunks = []
        while True:
            data = conn.recv(4096)
            if not data:
                break
            chunks.append(data)
        return b"".join(chunks)
    finally:
        conn.close()


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
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            k, _, v = line.partition("=")
            out[k.strip()] = v.strip()
    return out


def save_config(path, values):
    with open(path, "w", encoding="utf-8") as f:
        for k in sorted(values):
            f.write(f"{k}={values[k]}\n")
