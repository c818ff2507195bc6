"""PySpark's ``StorageLevel``, for ``df.persist(level)`` and ``df.storageLevel``.

sparkwire keeps a cached result one way whatever the level asked (the workers' partition
stores hold it in memory and spill beyond their budget, ``planner.api.caching``), but a
program reads back the level it asked for, as Spark reports it: the session remembers the
level with the cached plan. Equality compares the five flags, so a sparkwire level equals
PySpark's of the same flags (from this side: PySpark's ``__eq__`` wants its own class).
"""

from __future__ import annotations

from typing import ClassVar


class StorageLevel:
    """Whether a cached result uses disk, memory, off-heap memory, deserialized objects,
    and on how many nodes, with PySpark's named levels as class attributes."""

    NONE: ClassVar[StorageLevel]
    DISK_ONLY: ClassVar[StorageLevel]
    DISK_ONLY_2: ClassVar[StorageLevel]
    DISK_ONLY_3: ClassVar[StorageLevel]
    MEMORY_ONLY: ClassVar[StorageLevel]
    MEMORY_ONLY_2: ClassVar[StorageLevel]
    MEMORY_AND_DISK: ClassVar[StorageLevel]
    MEMORY_AND_DISK_2: ClassVar[StorageLevel]
    OFF_HEAP: ClassVar[StorageLevel]
    MEMORY_AND_DISK_DESER: ClassVar[StorageLevel]

    def __init__(self, useDisk: bool, useMemory: bool, useOffHeap: bool,  # noqa: N803
                 deserialized: bool, replication: int = 1) -> None:
        self.useDisk = useDisk
        self.useMemory = useMemory
        self.useOffHeap = useOffHeap
        self.deserialized = deserialized
        self.replication = replication

    def _flags(self) -> tuple[bool, bool, bool, bool, int]:
        return (self.useDisk, self.useMemory, self.useOffHeap, self.deserialized, self.replication)

    def __repr__(self) -> str:
        return "StorageLevel(%s, %s, %s, %s, %s)" % self._flags()

    def __str__(self) -> str:
        kinds = [k for k, on in (("Disk", self.useDisk), ("Memory", self.useMemory),
                                  ("OffHeap", self.useOffHeap)) if on]
        form = "Deserialized" if self.deserialized else "Serialized"
        return " ".join([*kinds, form, f"{self.replication}x Replicated"])

    def __eq__(self, other: object) -> bool:
        flags = ("useDisk", "useMemory", "useOffHeap", "deserialized", "replication")
        if not all(hasattr(other, f) for f in flags):
            return NotImplemented
        return self._flags() == tuple(getattr(other, f) for f in flags)

    def __hash__(self) -> int:
        return hash(self._flags())


StorageLevel.NONE = StorageLevel(False, False, False, False)
StorageLevel.DISK_ONLY = StorageLevel(True, False, False, False)
StorageLevel.DISK_ONLY_2 = StorageLevel(True, False, False, False, 2)
StorageLevel.DISK_ONLY_3 = StorageLevel(True, False, False, False, 3)
StorageLevel.MEMORY_ONLY = StorageLevel(False, True, False, False)
StorageLevel.MEMORY_ONLY_2 = StorageLevel(False, True, False, False, 2)
StorageLevel.MEMORY_AND_DISK = StorageLevel(True, True, False, False)
StorageLevel.MEMORY_AND_DISK_2 = StorageLevel(True, True, False, False, 2)
StorageLevel.OFF_HEAP = StorageLevel(True, True, True, False, 1)
StorageLevel.MEMORY_AND_DISK_DESER = StorageLevel(True, True, False, True)
