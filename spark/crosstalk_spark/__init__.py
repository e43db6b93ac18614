"""crosstalk on Apache Spark: the same findings as one machine, for billions of logged responses."""

__version__ = "0.1.0"
