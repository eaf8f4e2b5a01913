"""Errors a user can cause, kept apart from bugs so the CLI can print one line and exit 2."""


class UserError(Exception):
    """Bad input from the user: a file, field, model or option. Message names the thing."""


class RunFailed(Exception):
    """Something failed while running (exit status 1)."""


class StorageError(UserError):
    """The database cannot be written (or read): a read-only file or folder, a full disk, an I/O
    error. The message says what and where; nothing of the change that met it was saved. A user
    error (exit 2) for a single command; a run stops on it (exit 1)."""
