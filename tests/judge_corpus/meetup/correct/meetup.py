import calendar
import datetime

DAYS = list(calendar.day_name)
ORDINALS = {"first": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4}


class MeetupDayException(ValueError):
    def __init__(self, message):
        super().__init__(message)
        self.message = message


def meetup(year, month, week, day_of_week):
    wd = DAYS.index(day_of_week)
    days = [
        d for d in range(1, calendar.monthrange(year, month)[1] + 1) if datetime.date(year, month, d).weekday() == wd
    ]
    if week == "teenth":
        d = next(d for d in days if 13 <= d <= 19)
    elif week == "last":
        d = days[-1]
    else:
        i = ORDINALS[week]
        if i >= len(days):
            raise MeetupDayException("That day does not exist.")
        d = days[i]
    return datetime.date(year, month, d)
