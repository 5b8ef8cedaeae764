"""Fan-out per table (issue #5, item 4): a published event reaches every
connection of its table, each in the rendering for its own role, and each
role is rendered once however many connections share it."""

from __future__ import annotations

import json

from flowerbridge import Seat
from flowerbridge.server.pubsub import Broadcast, MemoryBroker


class Inbox:
    def __init__(self, role):
        self.role = role
        self.received: list[dict] = []

    def send(self, message: str) -> None:
        self.received.append(json.loads(message))

    def drop(self, code: int) -> None:
        self.received.append({"dropped": code})


def test_each_subscriber_gets_its_roles_rendering_rendered_once_per_role():
    broker = MemoryBroker()
    inboxes = [Inbox(Seat.N), Inbox(Seat.N), Inbox(Seat.E), Inbox(None), Inbox(None)]
    for inbox in inboxes:
        broker.subscribe("table", inbox)
    elsewhere = Inbox(Seat.N)
    broker.subscribe("other table", elsewhere)
    rendered = []

    def render(role):
        rendered.append(role)
        return [{"for": None if role is None else role.name, "part": i} for i in range(2)]

    broker.publish("table", Broadcast(render))
    assert sorted(rendered, key=str) == sorted([Seat.N, Seat.E, None], key=str)
    for inbox in inboxes:
        expected = None if inbox.role is None else inbox.role.name
        assert inbox.received == [{"for": expected, "part": 0}, {"for": expected, "part": 1}]
    assert elsewhere.received == []


def test_unsubscribed_connections_hear_nothing_more():
    broker = MemoryBroker()
    inbox = Inbox(Seat.S)
    broker.subscribe("table", inbox)
    assert broker.unsubscribe("table", inbox) is True
    assert broker.unsubscribe("table", inbox) is False
    broker.publish("table", Broadcast.same({"type": "presence"}))
    assert inbox.received == [] and broker.subscribers("table") == frozenset()


def test_a_rendering_that_fails_drops_its_roles_subscribers_and_the_publisher_goes_on():
    # (a bot's loop publishes: a bug in one role's view must not stop the table)
    broker = MemoryBroker()
    north, east = Inbox(Seat.N), Inbox(Seat.E)
    broker.subscribe("table", north)
    broker.subscribe("table", east)

    def render(role):
        if role is Seat.N:
            raise TypeError("a bug in North's view")
        return [{"for": role.name}]

    broker.publish("table", Broadcast(render))
    assert north.received == [{"dropped": 1011}]
    assert east.received == [{"for": "E"}]
