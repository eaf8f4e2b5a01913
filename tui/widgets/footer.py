"""The footer every screen shows: Textual's, rebuilt only when the keys it shows have changed.

Textual's Footer rebuilds all its keys after every focus change, screen-stack change and
refresh_bindings call, one rebuild per call even when several come at once. Opening Home alone asks
three times, and a live session asks on most engine events; each rebuild mounts every key widget
again. This one keeps what it showed last and rebuilds only when a key, its label, its state
(enabled or not) or its tooltip differs. It also keeps the keys in the order of the bindings: a
`[keymap]` remap would otherwise move its key to the end.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer
from textual.widgets._footer import FooterKey


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

    def _order(self) -> dict[str, int]:
        """{action: place} in the order the bindings are written (focused widget, its containers, the
        screen, the app), as Footer shows them when no key is remapped."""
        nodes = [*(self.screen.focused.ancestors_with_self if self.screen.focused else [self.screen]), self.app]
        order: dict[str, int] = {}
        for node in nodes:
            for binding in type(node).BINDINGS:
                if isinstance(binding, Binding):
                    order.setdefault(binding.action, len(order))
        return order

    def compose(self) -> ComposeResult:
        self._shown = self._keys() if self._bindings_ready else None
        widgets = list(super().compose())
        if not getattr(self.app, "keymap", None):
            yield from widgets
            return
        order = self._order()
        keys = sorted((w for w in widgets if isinstance(w, FooterKey) and not w.has_class("-command-palette")),
                      key=lambda w: order.get(w.action, len(order)))
        it = iter(keys)  # the keys take their places in turn; anything else (the palette's key) stays put
        yield from (next(it) if isinstance(w, FooterKey) and not w.has_class("-command-palette") else w
                    for w in widgets)

    async def recompose(self) -> None:
        if self.is_attached and self._shown is not None and self._shown == self._keys():
            return  # (a footer no longer attached is left to Footer, which then does nothing)
        await super().recompose()
