"""Bytes on disk or on a server: the table file format, compressed blocks, the integrity stage every block passes and
checksums, the trust policy (which tables are believed), Range reads, file-system safety."""
