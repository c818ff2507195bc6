"""The function registry (``registry``): each function by its Spark name, how its
arguments are checked and how its expression is built from argument expressions; the
DataFrame API and the SQL front end both build every call through it.

    base          the contract: a ``Function`` entry, checked calls, option arguments
    registry      the table of every family's entries: ``lookup``, ``call``, ``generator``
    strings, texts, nulls, dates, numeric, conditionals, collections
                  scalar functions, by family (``nulls``: ``nvl`` ..., ``try_`` arithmetic)
    elementary, bits, encodings     trigonometry and the like, bitwise, digests and encodings
    arrays, maps  the array and map functions beyond ``collections``' basics
    higher_order  ``transform``, ``filter``, ``aggregate`` ...: functions of a lambda
    aggregates, statistics, windows                         aggregate and window functions
    grouping      ``grouping``/``grouping_id``, answered by grouping sets
    assertions    ``raise_error``, ``assert_true``: the query failing on purpose
    generators    ``explode`` and its family (planned by ``planner.logical.generate``)
    casts         the type names a cast may name

Result types stay where they are inferred for every expression (``planner.logical.types``,
``collection_types``, ``array_types``), as do the checks a worker repeats (``planner.logical.literal_args``).
This package imports nothing.
"""
