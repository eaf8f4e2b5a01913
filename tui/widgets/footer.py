"""The footer every screen shows: Textual's, rebuilt only when the keys it shows have changed.

Textual's Footer rebuilds all its keys after every focus change, screen-stack change and
refresh_bindings call, one rebuild per call even when several come at once. Opening Home alone asks
three times, and a live session asks on most engine events; each rebuild mounts every key widget
again. This one keeps what it showed last and rebuilds only when a key, its label, its state
(enabled or not) or its tooltip differs.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer


class KeysFooter(Footer):
    """A Footer that skips rebuilds that would show the same keys."""

    _shown: tuple[object, ...] | None = None
    """What the keys composed last show (None: none shown yet)."""

    def _keys(self) -> tuple[object, ...]:
        """Everything Footer.compose draws the keys from: each active binding that shows (and the
        command palette's), whether it is enabled, its tooltip and how its key is written."""
        app = self.app
        palette = app.COMMAND_PALETTE_BINDING if self.show_command_palette and app.ENABLE_COMMAND_PALETTE else None
        return tuple((key, active.binding, active.enabled, active.tooltip, app.get_key_display(active.binding))
                     for key, active in self.screen.active_bindings.items()
                     if active.binding.show or key == palette)

    def compose(self) -> ComposeResult:
        self._shown = self._keys() if self._bindings_ready else None
        yield from super().compose()

    async def recompose(self) -> None:
        if self.is_attached and self._shown is not None and self._shown == self._keys():
            return  # (a footer no longer attached is left to Footer, which then does nothing)
        await super().recompose()
