"""PySpark's data type objects: ``from sparkwire.types import StructType, IntegerType``
(``planner.api.types``)."""

from sparkwire.planner.api.types import *  # noqa: F403
from sparkwire.planner.api.types import __all__  # noqa: F401
