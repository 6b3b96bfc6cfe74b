import functools


@functools.total_ordering
class Clock:
    def __init__(self, hour, minute):
        total = (hour * 60 + minute) % (24 * 60)
        self.hour, self.minute = divmod(total, 60)

    def __repr__(self):
        return f"Clock({self.hour}, {self.minute})"

    def __str__(self):
        return f"{self.hour:02d}:{self.minute:02d}"

    def _key(self):
        return self.hour * 60 + self.minute

    def __eq__(self, other):
        if not isinstance(other, Clock):
            return NotImplemented
        return self._key() == other._key()

    def __lt__(self, other):
        if not isinstance(other, Clock):
            return NotImplemented
        return self._key() < other._key()

    def __hash__(self):
        return hash(self._key())

    def __add__(self, minutes):
        return Clock(self.hour, self.minute + minutes)

    def __sub__(self, minutes):
        return Clock(self.hour, self.minute - minutes)
