"""To and from the C library's structs, one module per kind that has
structs of its own (workouts, routes, correlations, heartbeat series,
audiograms, electrocardiograms, clinical records) and one for what every
sample has (``samples``).

These modules sit right above ``_native`` and ``_convert``: they read and
fill structs from Python's plain values (numbers, bytes, tuples,
datetimes) and from the value classes' attributes, and never import the
value modules, which build their objects from what these return.
"""
