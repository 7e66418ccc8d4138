"""Results storage: a SQLite database of run records (see `database.py`)."""

from cpulab.store.database import Store, StoreError, default_path

__all__ = ["Store", "StoreError", "default_path"]
