"""The hierarchical error taxonomy, as data.

Each row is a (class, subclass) with its severity, the signals that detect it
(exception types and message patterns from the traceback, or sandbox statuses)
and the repair actions that fix it, best first. The diagnostician walks this
table in order; nothing here is an if-chain. The repair-loop issue deepens it.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class TaxonomyEntry:
    cls: str
    subclass: str
    severity: str  # "critical" stops the lineage at once; "recoverable" can be repaired
    exceptions: tuple[str, ...] = ()  # exception type names (last traceback line)
    patterns: tuple[str, ...] = ()  # regexes on the error message
    statuses: tuple[str, ...] = ()  # sandbox statuses that mean this class
    repair_actions: tuple[str, ...] = field(default=())

    @property
    def key(self) -> str:
        return f"{self.cls}.{self.subclass}"


TAXONOMY: tuple[TaxonomyEntry, ...] = (
    # Sandbox statuses come first: they are certain.
    TaxonomyEntry("resource", "timeout", "recoverable", statuses=("timeout", "cpu_timeout"),
                  repair_actions=("shrink_model", "subsample")),
    TaxonomyEntry("resource", "out_of_memory", "recoverable", statuses=("oom",),
                  exceptions=("MemoryError",), repair_actions=("shrink_model", "subsample")),
    TaxonomyEntry("resource", "process_limit", "recoverable", statuses=("pids_exhausted",),
                  patterns=(r"Resource temporarily unavailable", r"can't start new thread"),
                  repair_actions=("single_process",)),
    TaxonomyEntry("resource", "disk", "recoverable", statuses=("disk_full",),
                  patterns=(r"No space left on device", r"Disk quota exceeded"),
                  repair_actions=("write_less",)),
    TaxonomyEntry("sandbox_policy", "denied", "critical", statuses=("denied",),
                  patterns=(r"Network is unreachable", r"Temporary failure in name resolution",
                            r"Permission denied", r"Read-only file system"),
                  repair_actions=("remove_network_and_file_access",)),
    TaxonomyEntry("infrastructure", "sandbox", "critical", statuses=("infra", "killed"),
                  repair_actions=()),
    # Then the exception that ended the run.
    TaxonomyEntry("syntax", "invalid_syntax", "recoverable",
                  exceptions=("SyntaxError", "IndentationError", "TabError"),
                  repair_actions=("redraft",)),
    TaxonomyEntry("import", "missing_module", "recoverable",
                  exceptions=("ModuleNotFoundError",), patterns=(r"No module named",),
                  repair_actions=("replace_import", "redraft")),
    TaxonomyEntry("import", "version_conflict", "recoverable", exceptions=("ImportError",),
                  patterns=(r"cannot import name",), repair_actions=("replace_import", "redraft")),
    TaxonomyEntry("contract", "no_build_pipeline", "recoverable",
                  patterns=(r"defines no callable build_pipeline",), repair_actions=("redraft",)),
    TaxonomyEntry("contract", "wrong_return_type", "recoverable",
                  patterns=(r"build_pipeline returned .* which lacks",),
                  repair_actions=("redraft",)),
    TaxonomyEntry("contract", "predict_shape", "recoverable",
                  patterns=(r"predict returned \d+ rows",), repair_actions=("redraft",)),
    TaxonomyEntry("api", "unexpected_keyword", "recoverable", exceptions=("TypeError",),
                  patterns=(r"unexpected keyword argument", r"got an unexpected keyword"),
                  repair_actions=("drop_keyword", "redraft")),
    TaxonomyEntry("api", "removed_attribute", "recoverable", exceptions=("AttributeError",),
                  patterns=(r"has no attribute",), repair_actions=("redraft",)),
    TaxonomyEntry("data_flow", "missing_column", "recoverable",
                  patterns=(r"not columns of the dataframe", r"columns are missing",
                            r"not in index", r"A given column is not", r"^KeyError: "),
                  repair_actions=("use_profiled_columns",)),
    TaxonomyEntry("data_flow", "feature_mismatch", "recoverable",
                  patterns=(r"features, but .* is expecting", r"shapes .* not aligned",
                            r"Found input variables with inconsistent numbers"),
                  repair_actions=("use_profiled_columns", "redraft")),
    TaxonomyEntry("data_flow", "nan_input", "recoverable",
                  patterns=(r"Input (X )?contains NaN", r"contains NaN",
                            r"Input contains infinity"),
                  repair_actions=("add_imputation",)),
    TaxonomyEntry("data_flow", "dtype", "recoverable",
                  patterns=(r"could not convert string to float", r"Cannot cast",
                            r"invalid literal for int", r"dtype"),
                  repair_actions=("encode_categoricals", "add_imputation")),
    TaxonomyEntry("data_flow", "label_encoding", "recoverable",
                  patterns=(r"Unknown label type", r"y contains previously unseen labels",
                            r"Found unknown categories"),
                  repair_actions=("encode_categoricals",)),
    TaxonomyEntry("numerical", "singular_matrix", "recoverable", exceptions=("LinAlgError",),
                  patterns=(r"[Ss]ingular matrix",),
                  repair_actions=("scale_features", "regularise")),
    TaxonomyEntry("numerical", "overflow", "recoverable", exceptions=("OverflowError",),
                  patterns=(r"overflow",), repair_actions=("scale_features", "regularise")),
    TaxonomyEntry("numerical", "non_finite", "recoverable", exceptions=("FloatingPointError",),
                  patterns=(r"NaN|inf", ), repair_actions=("scale_features", "regularise")),
    TaxonomyEntry("data_flow", "value_error", "recoverable", exceptions=("ValueError",),
                  repair_actions=("redraft",)),
    TaxonomyEntry("runtime", "unclassified", "recoverable", repair_actions=("redraft",)),
)

BY_KEY = {entry.key: entry for entry in TAXONOMY}
UNCLASSIFIED = BY_KEY["runtime.unclassified"]


def entry(cls: str, subclass: str) -> TaxonomyEntry:
    return BY_KEY.get(f"{cls}.{subclass}", UNCLASSIFIED)
