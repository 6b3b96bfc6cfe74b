from inplace import Stack, append_all, dedupe_in_place, sort_in_place


def test_sort_in_place():
    xs = [3, 1, 2]
    assert sort_in_place(xs) is None
    assert xs == [1, 2, 3]


def test_dedupe_in_place_dict_and_list():
    xs = [1, 1, 2, 3, 3]
    dedupe_in_place(xs)
    assert xs == [1, 2, 3]


def test_append_all_to_test_list():
    out = ["start"]
    append_all(out, "ab")
    assert out == ["start", "a", "b"]


def test_stack_keeps_items():
    s = Stack()
    s.push(1)
    s.push(2)
    assert s.pop() == 2
    assert len(s) == 1
