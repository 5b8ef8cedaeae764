"""Flower Bridge: the rules engine and its records.

The package follows the rulebook's table of contents: :mod:`~flowerbridge.cards`
(Chapters 2–5, Appendix A), :mod:`~flowerbridge.dealing` (Chapter 6),
:mod:`~flowerbridge.calls` and the auction in :mod:`~flowerbridge.state`
(Chapter 7), the play (Chapters 8–9), :mod:`~flowerbridge.scoring`
(Chapters 11–15), :mod:`~flowerbridge.session` (games and the scoresheet,
Appendix B) and :mod:`~flowerbridge.records` (hand records).

>>> from flowerbridge import Deal, HandState, Seat
>>> hand = HandState(Deal.from_seed(1), dealer=Seat.N)
>>> hand.legal_calls()[:3]
[Call('Pass'), Call('1P'), Call('1R')]
"""

from .calls import BID, BIDS, PASS, Call, Denomination, parse_call
from .cards import CARDS, DECK, Card, Kind, Suit, parse_card, parse_cards
from .contract import Contract
from .dealing import Deal
from .errors import (BotError, CallSyntaxError, CardCodeError, DealError, FlowerBridgeError,
                     IllegalCallError, IllegalPlayError, OptionError, PhaseError, RecordError)
from .observation import Observation
from .options import RuleOptions
from .scoring import HandScore
from .seats import Seat, Side
from .state import CallMade, CardPlayed, HandState, Phase, Trick

__version__ = "0.1.0"

__all__ = [
    "BID", "BIDS", "BotError", "CARDS", "DECK", "PASS", "Call", "CallMade", "CallSyntaxError", "Card",
    "CardCodeError", "CardPlayed", "Contract", "Deal", "DealError", "Denomination",
    "FlowerBridgeError", "HandScore", "HandState", "IllegalCallError", "IllegalPlayError",
    "Kind", "Observation", "OptionError", "Phase", "PhaseError", "RecordError", "RuleOptions",
    "Seat", "Side", "Suit", "Trick", "parse_call", "parse_card", "parse_cards",
]
