from clock import Clock


def test_str_and_repr():
    assert str(Clock(8, 0)) == "08:00"
    assert repr(Clock(8, 0)) == "Clock(8, 0)"


def test_rollover():
    assert str(Clock(25, 160)) == "03:40"
    assert str(Clock(-1, -40)) == "22:20"


def test_add_and_subtract():
    assert Clock(10, 0) + 3 == Clock(10, 3)
    assert Clock(10, 3) - 3 == Clock(10, 0)


def test_equality():
    assert Clock(15, 37) == Clock(15, 37)
    assert Clock(15, 36) != Clock(15, 37)
    assert Clock(-1, 0) == Clock(23, 0)
    assert Clock(8, 0) != "08:00"


def test_hash_and_sort():
    assert len({Clock(1, 0), Clock(25, 0), Clock(2, 0)}) == 2
    assert sorted([Clock(3, 0), Clock(1, 0)]) == [Clock(1, 0), Clock(3, 0)]
    assert max(Clock(1, 0), Clock(0, 59)) == Clock(1, 0)
