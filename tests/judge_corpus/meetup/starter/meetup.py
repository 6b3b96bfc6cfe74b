class MeetupDayException(ValueError):
    pass


def meetup(year, month, week, day_of_week):
    raise NotImplementedError
