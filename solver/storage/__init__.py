"""Bytes on disk or on a server: the table file format, compressed blocks and checksums, Range reads, the trust registry, file-system safety."""
