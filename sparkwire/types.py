"""PySpark's data type objects: ``from sparkwire.types import StructType, IntegerType``
(``planner.types_api``)."""

from sparkwire.planner.types_api import *  # noqa: F403
from sparkwire.planner.types_api import __all__  # noqa: F401
