"""PySpark-style column functions: ``from sparkwire import functions as F``.

PySpark has them in one module; here each group has its own, all re-exported: ``basics``
(the common aggregates, ``when``, ``coalesce``, ``expr`` ...), ``strings``, ``dates``,
``texts`` (the later string functions), ``nulls`` (``nvl`` ..., ``try_`` arithmetic),
``calendar`` (the later date functions, ``isnan``, the sort orders), ``numeric``, ``nested`` (arrays, maps, structs, collection aggregates, generators),
``arrays`` (the other array and map functions), ``lambdas`` (``transform`` ...: functions of a
Python function),
``statistics`` (``stddev``, ``corr`` ...), ``summaries`` (``bool_and``, ``max_by``, ``percentile`` ...), ``grouping``, ``windows``, ``elementary``
(trigonometry ...), ``bits`` and ``encodings`` (digests, hex, base64; one-column ones made
by ``unary``), ``aggregate_forms`` (``first_value``, ``mode``, ``try_sum`` ...), ``session_info``
(``current_user``, ``version`` ...), ``try_calendar`` (``try_make_timestamp`` ...), ``formats`` (JSON, URLs, UTF-8), ``spellings`` (``soundex``, ``format_number``), ``listaggs`` (``listagg``, ``string_agg`` ...), ``radix`` (``conv``, ``hmac``, ``to_char``), ``json_tuples`` (``json_tuple``), ``stacks`` (``stack``), with ``Column``, ``col`` and ``lit`` (``planner.api.column``). Each function
reads PySpark's arguments (``core``: a ``str`` where a column is expected is a column name,
a Python value where a value is expected a literal) and has the function registry
(``planner.logical.functions``) build the call, as the SQL front end does. The group modules
import ``core`` and ``planner.api.column``, never this package.
"""

from __future__ import annotations

from sparkwire.planner.api.column import (  # noqa: F401 - re-exported as F.*, as in PySpark
    Column,
    ColumnOrName,
    SortOrder,
    Value,
    _literal,
    _value,
    col,
    lit,
    to_column,
)
from sparkwire.planner.api.functions.core import flatten_arguments  # noqa: F401 - used as F.*
from sparkwire.planner.api.functions.arrays import *  # noqa: F403
from sparkwire.planner.api.functions.basics import *  # noqa: F403
from sparkwire.planner.api.functions.bits import *  # noqa: F403
from sparkwire.planner.api.functions.calendar import *  # noqa: F403
from sparkwire.planner.api.functions.dates import *  # noqa: F403
from sparkwire.planner.api.functions.elementary import *  # noqa: F403
from sparkwire.planner.api.functions.encodings import *  # noqa: F403
from sparkwire.planner.api.functions.formats import *  # noqa: F403
from sparkwire.planner.api.functions.spellings import *  # noqa: F403
from sparkwire.planner.api.functions.listaggs import *  # noqa: F403
from sparkwire.planner.api.functions.radix import *  # noqa: F403
from sparkwire.planner.api.functions.json_tuples import *  # noqa: F403
from sparkwire.planner.api.functions.stacks import *  # noqa: F403
from sparkwire.planner.api.functions.grouping import *  # noqa: F403
from sparkwire.planner.api.functions.lambdas import *  # noqa: F403
from sparkwire.planner.api.functions.hints import *  # noqa: F403
from sparkwire.planner.api.functions.nested import *  # noqa: F403
from sparkwire.planner.api.functions.nulls import *  # noqa: F403
from sparkwire.planner.api.functions.numeric import *  # noqa: F403
from sparkwire.planner.api.functions.statistics import *  # noqa: F403
from sparkwire.planner.api.functions.strings import *  # noqa: F403
from sparkwire.planner.api.functions.summaries import *  # noqa: F403
from sparkwire.planner.api.functions.texts import *  # noqa: F403
from sparkwire.planner.api.functions.windows import *  # noqa: F403
from sparkwire.planner.api.functions.aggregate_forms import *  # noqa: F403
from sparkwire.planner.api.functions.session_info import *  # noqa: F403
from sparkwire.planner.api.functions.try_calendar import *  # noqa: F403
from sparkwire.planner.api.functions.times import *  # noqa: F403
from sparkwire.planner.api.functions.task_values import *  # noqa: F403
from sparkwire.planner.api.functions.time_windows import *  # noqa: F403
from sparkwire.planner.api.functions.calling import *  # noqa: F403
from sparkwire.planner.api.functions.vectors import *  # noqa: F403
from sparkwire.planner.api.functions.urls import *  # noqa: F403
from sparkwire.planner.api.functions.unions import *  # noqa: F403
from sparkwire.planner.api.functions.number_formats import *  # noqa: F403
from sparkwire.planner.api.functions.timestamp_units import *  # noqa: F403
from sparkwire.planner.api.pyspark_names import FUNCTIONS
from sparkwire.planner.api.unsupported import missing_attribute


def __getattr__(name: str) -> object:
    """``F.<name>`` for a PySpark function sparkwire lacks says so (PEP 562)."""
    raise missing_attribute("functions", name, FUNCTIONS)
