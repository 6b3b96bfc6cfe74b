import abc
import math

import pytest

from shapes import Circle, Shape, Square, make_shape


def test_factory_returns_subclasses():
    assert isinstance(make_shape("circle", 1), Circle)
    assert isinstance(make_shape("square", 2), Square)
    assert isinstance(make_shape("square", 2), Shape)
    assert not isinstance(make_shape("square", 2), Circle)


def test_hierarchy():
    assert issubclass(Circle, Shape)
    assert issubclass(Square, Shape)
    assert not issubclass(Circle, Square)


def test_areas():
    assert make_shape("circle", 1).area() == pytest.approx(math.pi)
    assert Square(3).area() == 9


def test_shape_is_abstract():
    assert isinstance(Shape, abc.ABCMeta)
    with pytest.raises(TypeError):
        Shape()


def test_describe_uses_class_name():
    assert Square(2).describe() == "Square with area 4"
    assert [s.describe() for s in sorted([Square(2), Square(1)], key=lambda s: s.area())] == [
        "Square with area 1",
        "Square with area 4",
    ]
