"""The physical plan: cutting an optimized logical plan into stages at network boundaries
(``stages``), with where rows already are (``placement``, ``clustering``), how each join is
distributed (``join_strategy``), how scans split into tasks (``splits``), aggregates split
into partial and final steps (``aggregates``) and shared subplans (``sharing``).
"""
