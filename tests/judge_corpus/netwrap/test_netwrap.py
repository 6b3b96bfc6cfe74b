import socket
from unittest import mock

import netwrap


def test_fetch_through_patched_socket():
    fake = mock.MagicMock()
    fake.recv.side_effect = [b"HTTP/1.0 200 OK\r\n", b"body", b""]
    with mock.patch("socket.create_connection", return_value=fake) as cc:
        assert netwrap.fetch("example.com", 80, "/x") == b"HTTP/1.0 200 OK\r\nbody"
    cc.assert_called_once_with(("example.com", 80), timeout=5)
    fake.sendall.assert_called_once_with(b"GET /x HTTP/1.0\r\nHost: example.com\r\n\r\n")
    fake.close.assert_called_once_with()


@mock.patch("netwrap.socket.create_connection")
def test_fetch_patched_by_decorator(cc):
    cc.return_value.recv.side_effect = [b"ok", b""]
    assert netwrap.fetch("h", 8080) == b"ok"
    cc.assert_called_once_with(("h", 8080), timeout=5)


def test_connection_refused_is_reported():
    with mock.patch("socket.create_connection", side_effect=ConnectionRefusedError("no")):
        assert netwrap.is_up("h", 1) is False


def test_read_config_with_mock_open():
    m = mock.mock_open(read_data="host = a\n# comment\nport=1\n")
    with mock.patch("builtins.open", m):
        assert netwrap.read_config("any.cfg") == {"host": "a", "port": "1"}
    m.assert_called_once_with("any.cfg", encoding="utf-8")


def test_save_config_writes_lines():
    m = mock.mock_open()
    with mock.patch("netwrap.open", m, create=True):
        netwrap.save_config("out.cfg", {"b": "2", "a": "1"})
    m().write.assert_has_calls([mock.call("a=1\n"), mock.call("b=2\n")])


def test_monkeypatched_socket(monkeypatch):
    calls = []

    def fake_conn(addr, timeout=None):
        calls.append(addr)
        raise socket.timeout("slow")

    monkeypatch.setattr(socket, "create_connection", fake_conn)
    assert netwrap.is_up("slow.example", 9) is False
    assert calls == [("slow.example", 9)]
