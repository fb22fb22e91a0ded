"""Where labbot keeps its records and the keys that seal them: the database's place, key files, the
storage keys, the audit chain's key, head and verification."""
