from calc import add


def test_large():
    assert add(10**12, 1) == 10**12 + 1
