"""Where tables come from: found on disk, built on first use, written, estimated, sample-checked."""
