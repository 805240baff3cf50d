"""Bytes on disk: the table file format, compressed blocks and checksums, the trust registry, file-system safety."""
