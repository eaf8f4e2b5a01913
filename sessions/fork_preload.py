"""The last of the modules the workers' fork server imports: it freezes what the others made.

Frozen objects are left out of every garbage collection. Each worker forked from the server
then neither walks openai's thousands of types in its collections nor writes to their pages
(which the fork shares until written), and the server itself ends at once when the command
does: its last collection took a third of a second, during which it still held the command's
output open, so a script reading that output waited for it.
"""

import gc

gc.freeze()
