"""Publish/subscribe per table: how the server's messages fan out.

A table is a channel and its connections are the subscribers. A message is
published once, as a :class:`Broadcast` that renders itself at most once per
role — each seat's own view, the spectators' view — and every subscriber is
handed the rendering for its role. :class:`MemoryBroker` keeps the channels
in this process, which is all a single server needs; spreading one table's
connections over several processes would take a shared backend (Redis, say)
behind the same three methods.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Callable, Iterable, Protocol

from .views import Role

log = logging.getLogger("flowerbridge.server")


class Subscriber(Protocol):
    """A connection: whom it is for, a way to queue text for it, and a way to
    let it go (it may reconnect and catch up from a snapshot)."""

    role: Role

    def send(self, message: str) -> None:
        ...

    def drop(self, code: int) -> None:
        ...


class Broadcast:
    """One publication to a table, rendered lazily and once per role."""

    def __init__(self, render: Callable[[Role], Iterable[dict[str, Any]]]) -> None:
        self._render = render
        self._texts: dict[Role, list[str]] = {}

    @classmethod
    def same(cls, message: dict[str, Any]) -> "Broadcast":
        """A message that reads the same for every role."""
        return cls(lambda role: (message,))

    def texts(self, role: Role) -> list[str]:
        """The JSON texts for ``role``, in order."""
        if role not in self._texts:
            self._texts[role] = [json.dumps(m) for m in self._render(role)]
        return self._texts[role]


class MemoryBroker:
    """Channels of subscribers, in this process."""

    def __init__(self) -> None:
        self._channels: dict[str, set[Subscriber]] = {}

    def subscribe(self, channel: str, subscriber: Subscriber) -> None:
        self._channels.setdefault(channel, set()).add(subscriber)

    def unsubscribe(self, channel: str, subscriber: Subscriber) -> bool:
        """Remove ``subscriber``; whether it was subscribed."""
        members = self._channels.get(channel)
        if members is None or subscriber not in members:
            return False
        members.discard(subscriber)
        if not members:
            del self._channels[channel]
        return True

    def subscribers(self, channel: str) -> frozenset[Subscriber]:
        return frozenset(self._channels.get(channel, ()))

    def publish(self, channel: str, broadcast: Broadcast) -> None:
        """Hand every subscriber of ``channel`` the rendering for its role."""
        for subscriber in self.subscribers(channel):
            try:
                texts = broadcast.texts(subscriber.role)
            except Exception:  # a bug in a view: the publisher (a bot's loop) goes on
                log.exception("channel %s: a message could not be rendered", channel)
                subscriber.drop(1011)   # it missed an event: it must catch up afresh
                continue
            for text in texts:
                subscriber.send(text)
