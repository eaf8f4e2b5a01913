"""Errors a user can cause, kept apart from bugs so the CLI can print one line and exit 2."""


class UserError(Exception):
    """Bad input from the user: a file, field, model or option. Message names the thing."""


class RunFailed(Exception):
    """Something failed while running (exit status 1)."""
