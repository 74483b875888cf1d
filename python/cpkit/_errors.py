"""The exception every failed cpkit call raises."""


class Error(Exception):
    """A cpkit call failed (bad input, unknown solver or setting, unreadable file...).

    Attributes:
        message: the library's message (for files, ``path:line: what is wrong``).
        code: the library's error code (an int, e.g. 1 for CPK_EINVAL).
        name: the code's symbolic name, e.g. ``"CPK_EINVAL"``.
    """

    def __init__(self, message, code=1, name="CPK_EINVAL"):
        super().__init__(message)
        self.message = message
        self.code = code
        self.name = name

    def __str__(self):
        return f"{self.message} [{self.name}]"
