"""Membership notices only the coordinator can make.

A worker dials only the cluster's members (``taskplan.Members``), which is what keeps a plan
from making it dial a service behind the firewall. Every member holds the cluster's
credentials, so a notice that any authenticated peer could send would let one compromised
member redefine the membership. The coordinator therefore signs each notice with an Ed25519
key of its own, made when its cluster starts and never written anywhere; the workers get the
public half in their settings (``Security.coordinator_key``) and take only notices it
verifies, each with a higher ``sequence`` than the last, so an old notice cannot be replayed.

``cryptography`` is imported when a key is first used, not with this module: it costs a
worker process 7 MB, which one that is never told the members (an idle one) does not pay.
"""

from __future__ import annotations

import itertools
import threading

from sparkwire.coordinator.taskplan import Members
from sparkwire.transport.errors import PlanRejected


def _signed_part(notice: Members) -> bytes:
    """What a signature covers: the notice as JSON without its signature."""
    return notice.model_copy(update={"signature": None}).model_dump_json().encode()


class MembershipSigner:
    """The coordinator's side: makes signed notices, their sequence growing from 1."""

    def __init__(self) -> None:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        self._key = Ed25519PrivateKey.generate()
        self._sequence = itertools.count(1)
        self._lock = threading.Lock()

    @property
    def public_key(self) -> str:
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        return self._key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()

    def notice(self, members: tuple[str, ...]) -> Members:
        with self._lock:
            unsigned = Members(members=members, sequence=next(self._sequence))
        return unsigned.model_copy(update={"signature": self._key.sign(_signed_part(unsigned)).hex()})


class MembershipCheck:
    """A worker's side: a notice is taken once its signature verifies under the coordinator's
    key and its sequence is above the last one taken. With no key (security off), any is.
    Not thread-safe: the worker takes notices under its own lock, with the members they name."""

    def __init__(self, coordinator_key: str | None) -> None:
        self._key = bytes.fromhex(coordinator_key) if coordinator_key is not None else None
        self._last = 0

    def take(self, notice: Members) -> frozenset[str]:
        """The members ``notice`` names, once it is the coordinator's and new; else
        ``PlanRejected``."""
        if self._key is not None:
            if notice.signature is None:
                raise PlanRejected("a membership notice must be signed by the coordinator")
            from cryptography.exceptions import InvalidSignature
            from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

            try:
                Ed25519PublicKey.from_public_bytes(self._key).verify(
                    bytes.fromhex(notice.signature), _signed_part(notice))
            except InvalidSignature:
                raise PlanRejected("a membership notice not signed by the coordinator") from None
            if notice.sequence <= self._last:
                raise PlanRejected(f"a membership notice older than the last one taken "
                                   f"({notice.sequence} <= {self._last})")
            self._last = notice.sequence
        return frozenset(notice.members)
