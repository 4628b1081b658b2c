"""The part of the viewport that nothing covers: the dock space's central node less the panels the
user undocked and left floating over it. Rectangles are (left, top, right, bottom) window pixels."""

MIN_UNCOVERED_SHARE = 0.25  # less of the viewport than this left uncovered: use the whole viewport


def area(rect):
    left, top, right, bottom = rect
    return max(right - left, 0.0) * max(bottom - top, 0.0)


def overlaps(rect, other):
    """Whether the two rectangles share more than an edge."""
    return min(rect[2], other[2]) > max(rect[0], other[0]) and min(rect[3], other[3]) > max(rect[1], other[1])


def beside(rect, cover):
    """The four parts of ``rect`` left of, right of, above and below ``cover``."""
    left, top, right, bottom = rect
    return ((left, top, min(cover[0], right), bottom), (max(cover[2], left), top, right, bottom),
            (left, top, right, min(cover[1], bottom)), (left, max(cover[3], top), right, bottom))


def uncovered(rect, covers):
    """A large part of ``rect`` that none of ``covers`` overlaps: for each cover over what is left,
    the largest of the four parts beside it (so the result shrinks and stays clear of every cover);
    ``rect`` itself when that leaves less than ``MIN_UNCOVERED_SHARE`` of it."""
    free = tuple(rect)
    for cover in covers:
        if overlaps(free, cover):
            free = max(beside(free, cover), key=area)
    return free if area(free) >= MIN_UNCOVERED_SHARE * area(rect) else tuple(rect)
