"""The last of the modules the workers' fork server imports: it freezes what the others made, and
leaves SIGTERM to the command.

Frozen objects are left out of every garbage collection. Each worker forked from the server
then neither walks openai's thousands of types in its collections nor writes to their pages
(which the fork shares until written), and the server itself ends at once when the command
does: its last collection took a third of a second, during which it still held the command's
output open, so a script reading that output waited for it.

A SIGTERM to the command's whole process group (systemd, `timeout`, `kill -- -PGID`) reaches the
server too: killed, it took the workers' exit statuses with it, and the command lost their last
reports. The command stops the workers itself (as on Ctrl-C); the server ends when the command does.
"""

import gc
import signal

signal.signal(signal.SIGTERM, signal.SIG_IGN)
gc.freeze()
