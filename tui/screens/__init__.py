"""Screens of the pingpong TUI, one module per screen."""


def in_view(screen) -> bool:
    """Whether the person can see ``screen``: on top, or right under a dialog. Textual's
    `is_current` also holds for a screen another full screen covers, which then polls for nothing."""
    from textual.screen import ModalScreen

    stack = screen.app.screen_stack
    if stack and stack[-1] is screen:
        return True
    return len(stack) > 1 and stack[-2] is screen and isinstance(stack[-1], ModalScreen)
