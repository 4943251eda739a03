"""Reference-based metrics: LSDSCC, multi-reference metrics, SCARCE reference augmentation."""
