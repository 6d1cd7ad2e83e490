"""The C handles the modules that call the library with need: a store's,
which ``HealthStore`` registers here when it opens one, and a
predicate's. The modules that take a store (importing, the sink, a
sync's source) ask here rather than reach into the store."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from .errors import ArgumentTypeError
from .predicate import Predicate

if TYPE_CHECKING:
    from .store import HealthStore

#: Each open store's ``ohk_store`` handle, for as long as the store lives.
_stores: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()


def register_store(store: object, handle: Any) -> None:
    """Called by ``HealthStore`` with the handle it opened."""
    _stores[store] = handle


def store_handle(store: HealthStore) -> Any:
    """The ``ohk_store`` handle of `store`; ArgumentTypeError for what is
    not a HealthStore."""
    try:
        return _stores[store]
    except (KeyError, TypeError):
        raise ArgumentTypeError(f"store must be a HealthStore, not {type(store).__name__}") from None


def predicate_handle(predicate: Predicate | None) -> Any:
    """The ``ohk_predicate`` handle of `predicate`, None for None (every
    sample)."""
    if predicate is None:
        return None
    if not isinstance(predicate, Predicate):
        raise ArgumentTypeError(f"predicate must be a Predicate, not {type(predicate).__name__}")
    return predicate.handle()
