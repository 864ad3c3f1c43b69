"""What the pages of a table hold of its parted public regions, as this process
last sent them: by (language, region), each split into its parts (games.live.parts).

A move's frames send a parted region (the seat list, the earlier tricks, the
score sheet) as only the parts that changed since this record. The record is
good for the table's next version only: if another process sent a version in
between (or this one restarted), there is none, and each region goes whole once,
after which the record is good again. A part that reads otherwise on some page
(an online mark that moved since) is only sent again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from datetime import datetime
from typing import TYPE_CHECKING

from games.live.parts import Split

if TYPE_CHECKING:
    from games.models import Table

Record = dict[tuple[str, str], Split]
#: Which table (a test database may hand out a deleted table's id again) at which version.
type Key = tuple[datetime | None, int, int]

#: Tables whose record is kept; the least recently sent go first.
MAX_TABLES = 500

_lock = threading.Lock()
_records: OrderedDict[int, tuple[Key, Record]] = OrderedDict()


def before(table: Table) -> Record:
    """The record to send the table's version against (a new, empty one when this
    process did not send the version before it): the caller fills it in as it
    renders, then keeps it (``keep``)."""
    with _lock:
        kept = _records.get(table.pk)
    if kept is None:
        return {}
    (created_at, seed, version), record = kept
    same_table = (created_at, seed) == (table.created_at, table.seed)
    if not same_table or version not in (table.version - 1, table.version):
        return {}
    return dict(record)


def keep(table: Table, record: Record) -> None:
    with _lock:
        kept = _records.get(table.pk)
        same_table = kept is not None and kept[0][:2] == (table.created_at, table.seed)
        if same_table and kept is not None and kept[0][2] > table.version:
            return  # the next version's frames went out first (another thread)
        _records[table.pk] = ((table.created_at, table.seed, table.version), record)
        _records.move_to_end(table.pk)
        while len(_records) > MAX_TABLES:
            _records.popitem(last=False)


def forget_all() -> None:
    """As after a restart (tests)."""
    with _lock:
        _records.clear()
