import abc
import math


class Shape(abc.ABC):
    @abc.abstractmethod
    def area(self): ...

    def describe(self):
        return f"{type(self).__name__} with area {self.area():g}"


class Circle(Shape):
    def __init__(self, r):
        self.r = r

    def area(self):
        return math.pi * self.r**2


class Square(Shape):
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side**2


def make_shape(kind, size):
    return {"circle": Circle, "square": Square}[kind](size)
