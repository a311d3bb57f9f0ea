"""tau2-bench's retail, airline and telecom domains, imported from a tau2 data folder (see docs/tau2.md)."""

from .common import Tau2Domain, db_diff, export_db
from .importer import (
    DOMAINS,
    ImportResult,
    PreparedImport,
    detect_domain,
    domain_folders,
    import_domain,
    prepare_domain,
    write_import,
)
from .inputs import Tau2ImportError

__all__ = [
    "DOMAINS",
    "ImportResult",
    "PreparedImport",
    "Tau2Domain",
    "Tau2ImportError",
    "db_diff",
    "detect_domain",
    "domain_folders",
    "export_db",
    "import_domain",
    "prepare_domain",
    "write_import",
]
