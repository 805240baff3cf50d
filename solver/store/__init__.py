"""Where tables come from: found on disk, built on first use, fetched from a mirror or read at a URL, written, estimated, sample-checked."""
