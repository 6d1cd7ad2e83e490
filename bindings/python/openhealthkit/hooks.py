"""Commit hooks (``HealthStore.set_commit_hook``).

As with queries, the library calls one static trampoline whose
``user_data`` is a key into ``_hooks``; the library's destroy callback
removes the key after the hook's last call, so a hook lives exactly as
long as the library may call it.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any, Callable

from . import _native as n
from .anchor import Anchor

#: What a commit hook is called with: the identifiers of the types the
#: commit changed, and the store's anchor right after it.
CommitHook = Callable[[frozenset[str], Anchor], Any]

_hooks: dict[int, CommitHook] = {}
_keys = itertools.count(1)
_hooks_lock = threading.Lock()


def register(hook: CommitHook) -> int:
    """A key for ``hook``, to pass as the C hook's user_data."""
    key = next(_keys)
    with _hooks_lock:
        _hooks[key] = hook
    return key


# The C callbacks are made by calling the prototypes rather than by using
# them as decorators: mypy types a CFUNCTYPE prototype as a class object,
# which as a decorator would leave the functions untyped.

def _commit(store: Any, types: Any, count: int, anchor: Any, key: int) -> None:
    """The commit hook of every store. An exception from the Python hook
    goes to sys.unraisablehook (ctypes reports it); the commit stands."""
    with _hooks_lock:
        hook = _hooks.get(key)
    if hook is not None:
        changed = frozenset(types[i].decode("utf-8") for i in range(count))
        hook(changed, Anchor(n.ohk_anchor.from_buffer_copy(anchor.contents)))


def _forget(key: int) -> None:
    with _hooks_lock:
        _hooks.pop(key, None)


#: The C commit hook and its destroy callback, passed to ohk_store_set_commit_hook.
on_commit = n.ohk_commit_fn(_commit)
on_destroy = n.ohk_destroy_fn(_forget)
