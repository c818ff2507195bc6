"""A Spark Connect server: an unchanged PySpark program, pointed at sparkwire with
``SparkSession.builder.remote("sc://host:port")``, runs on sparkwire's workers.

The protocol is PySpark's own (the generated messages and servicer base it ships in
``pyspark.sql.connect.proto``, installed by the ``connect`` extra), so the server speaks
exactly the version its client does. One module per job:

    server       ``serve(session)``: the gRPC server, its bounded thread pool, close
    security     who may call: the bearer token, TLS (required off loopback)
    service      the ``SparkConnectService`` methods: execute, analyze, config, interrupt, release
    sessions     a sparkwire session per client session id, bounded by count and idle time
    operations   the operations running now, by id and tag, for ``Interrupt``
    relations    a protocol relation -> our ``DataFrame``, through the DataFrame API and ``session.sql``
    reshaping    the one-input relations: repartition, sample, ``na``, describe, summary
    expressions  a protocol expression -> our ``Column``, functions through the function registry
    literals     a protocol literal -> a Python value (the DataFrame API makes it a literal)
    types        Spark types between our ``StructType`` and the protocol's ``DataType``
    results      a result stream -> the protocol's Arrow IPC batches
    errors       our exceptions -> Spark's error shape on the wire (gRPC status + ``ErrorInfo``)

Nothing here plans a query: a relation becomes the same DataFrame calls a program written
against ``sparkwire`` would make (``tests/test_layering.py`` holds this folder to the
planner's API), so there is no third planning path beside the DataFrame API and SQL.
"""
