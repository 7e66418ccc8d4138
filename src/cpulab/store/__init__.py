"""Results storage: a SQLite database of run records (`database.py`, its layout and
migrations in `layout.py`), and versioned JSON bundles of runs in and out (`bundle.py`),
checked against their JSON Schema (`bundle_schema.py`, `schema/bundle.schema.json`)."""

from cpulab.store.bundle import BUNDLE_SCHEMA, BundleError, read_bundle, write_bundle
from cpulab.store.database import Imported, NoDatabase, Store, StoreError, default_path
from cpulab.store.layout import LAYOUT, record_uid

__all__ = ["BUNDLE_SCHEMA", "LAYOUT", "BundleError", "Imported", "NoDatabase", "Store",
           "StoreError", "default_path", "read_bundle", "record_uid", "write_bundle"]
