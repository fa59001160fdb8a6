"""The hierarchical error taxonomy, as data.

Each row is a (class, subclass) with its severity, the signals that detect it and
the repair actions that fix it, best first. Signals are sandbox statuses,
exception type names (from the last traceback line) and regexes on
"ExceptionType: message". The diagnostician walks the rows in order and takes
the first match; nothing here is an if-chain. `python -m pipesmith.agents.taxonomy`
prints the table as Markdown for docs/taxonomy.md.

Severity: "critical" means repairing the code cannot help (the infrastructure
failed); the lineage ends. Everything else is "recoverable".
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TaxonomyEntry:
    cls: str
    subclass: str
    severity: str
    description: str
    statuses: tuple[str, ...] = ()
    exceptions: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    repair_actions: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        return f"{self.cls}.{self.subclass}"


E = TaxonomyEntry
TAXONOMY: tuple[TaxonomyEntry, ...] = (
    # Sandbox statuses first: they are certain.
    E("resource", "timeout", "recoverable", "the run exceeded its wall-clock or CPU limit",
      statuses=("timeout", "cpu_timeout"),
      repair_actions=("remove_infinite_loop", "shrink_model", "redraft")),
    E("resource", "out_of_memory", "recoverable", "the run exceeded its memory limit",
      statuses=("oom",), exceptions=("MemoryError",), patterns=(r"Unable to allocate",),
      repair_actions=("shrink_model", "redraft")),
    E("resource", "process_limit", "recoverable", "too many processes or threads",
      statuses=("pids_exhausted",),
      patterns=(r"Resource temporarily unavailable", r"can't start new thread"),
      repair_actions=("single_process", "redraft")),
    E("resource", "disk", "recoverable", "the run wrote more than its disk allowance",
      statuses=("disk_full",), patterns=(r"No space left on device", r"Disk quota exceeded",
                                         r"File too large"),
      repair_actions=("redraft",)),
    E("infrastructure", "sandbox", "critical", "the sandbox itself failed or was killed",
      statuses=("infra", "killed"), repair_actions=()),
    # Code that never ran.
    E("syntax", "invalid_syntax", "recoverable", "the module does not parse",
      exceptions=("SyntaxError", "IndentationError", "TabError"),
      repair_actions=("fix_syntax", "redraft")),
    E("contract", "no_build_pipeline", "recoverable",
      "the module defines no build_pipeline(task)",
      patterns=(r"defines no callable build_pipeline", r"build_pipeline must take"),
      repair_actions=("fix_contract", "redraft")),
    E("contract", "wrong_return_type", "recoverable",
      "build_pipeline returned something without fit/predict",
      patterns=(r"build_pipeline returned .* which lacks",),
      repair_actions=("fix_contract", "redraft")),
    E("contract", "predict_shape", "recoverable",
      "predict returned the wrong number of rows",
      patterns=(r"predict returned \d+ rows",), repair_actions=("redraft",)),
    E("contract", "invalid_predictions", "recoverable",
      "the predictions break the contract: probabilities that do not sum to 1, the wrong "
      "shape of predict_proba, no predictions file, or predictions that are not numbers",
      patterns=(r"predict_proba rows do not sum to 1", r"predict_proba returned",
                r"without writing predictions\.npz", r"predictions\.npz (cannot|holds)",
                r"regression predictions are not numbers", r"refit job wrote no model",
                r"needs predict_proba, which the model lacks"),
      repair_actions=("redraft",)),
    E("sandbox_policy", "network_denied", "recoverable",
      "the code tried to reach the network, which the sandbox forbids",
      patterns=(r"Network is unreachable", r"Temporary failure in name resolution",
                r"Name or service not known", r"urlopen error", r"NewConnectionError"),
      repair_actions=("remove_network_access", "redraft")),
    E("sandbox_policy", "file_access_denied", "recoverable",
      "the code touched a file outside its working directory",
      patterns=(r"\[Errno 13\] Permission denied", r"Read-only file system"),
      repair_actions=("redraft",)),
    # Imports.
    E("import", "missing_module", "recoverable", "a module is not installed or misspelled",
      exceptions=("ModuleNotFoundError",), patterns=(r"No module named",),
      repair_actions=("replace_import", "redraft")),
    E("import", "version_conflict", "recoverable",
      "a name the code imports is not in the installed version",
      exceptions=("ImportError",), patterns=(r"cannot import name",),
      repair_actions=("replace_import", "redraft")),
    # Neural networks (PyTorch, Keras): the tensors, layers and losses of a training loop.
    E("neural", "dtype_mismatch", "recoverable",
      "float64 data reached float32 layers (or the reverse)",
      patterns=(r"must have the same dtype", r"[Ff]ound dtype (Float|Double) but expected",
                r"expected scalar type (Float|Double) but found (Float|Double)",
                r"was expected to be a (float|double) tensor but is a (float|double) tensor"),
      repair_actions=("cast_float32", "redraft")),
    E("neural", "input_width", "recoverable",
      "the first layer's input width differs from the number of features it is given",
      patterns=(r"mat1 and mat2 shapes cannot be multiplied",
                r"expected axis -1 of input shape to have value \d+"),
      repair_actions=("infer_input_width", "redraft")),
    E("neural", "loss_target_mismatch", "recoverable",
      "the loss does not suit the task or the labels' shape (e.g. class labels to a BCE loss)",
      patterns=(r"Target size \(torch\.Size\(\[.*\]\)\) must be the same as input size",
                r"`target` and `output` must have the same (shape|rank)",
                r"0D or 1D target tensor expected", r"Target -?\d+ is out of bounds",
                r"expected scalar type Long but found", r"Received a label value of"),
      repair_actions=("fix_loss", "redraft")),
    E("neural", "out_of_memory", "recoverable",
      "the network or its batches do not fit in memory (the allocator refused)",
      patterns=(r"DefaultCPUAllocator: can't allocate memory", r"CUDA out of memory",
                r"OutOfMemoryError", r"OOM when allocating", r"ResourceExhaustedError"),
      repair_actions=("shrink_model", "redraft")),
    # API drift between the code and the installed libraries.
    E("api", "unexpected_keyword", "recoverable",
      "a keyword argument the installed version does not take (removed or renamed)",
      exceptions=("TypeError",), patterns=(r"unexpected keyword argument",),
      repair_actions=("fix_keyword", "redraft")),
    E("api", "invalid_parameter", "recoverable",
      "a parameter value the installed version rejects",
      exceptions=("InvalidParameterError",), patterns=(r"The '\w+' parameter of \w+ must be",),
      repair_actions=("fix_parameter_value", "redraft")),
    E("api", "removed_attribute", "recoverable",
      "a function, class or attribute the installed version no longer has",
      exceptions=("AttributeError",), patterns=(r"has no attribute",),
      repair_actions=("replace_attribute", "redraft")),
    E("api", "changed_return_type", "recoverable",
      "a library call returned a different type than the code expects",
      exceptions=("TypeError", "ValueError"),
      patterns=(r"cannot unpack non-iterable", r"too many values to unpack",
                r"not enough values to unpack", r"object is not subscriptable"),
      repair_actions=("redraft",)),
    # Data flow.
    E("data_flow", "missing_column", "recoverable", "the code uses a column the data lacks",
      patterns=(r"not columns of the dataframe", r"columns are missing", r"not in index",
                r"A given column is not", r"^KeyError: "),
      repair_actions=("fix_columns", "redraft")),
    E("data_flow", "feature_mismatch", "recoverable",
      "a shape or feature-count mismatch between steps",
      patterns=(r"features, but \w+ is expecting", r"shapes .* not aligned",
                r"Found input variables with inconsistent numbers",
                r"k should be <= n_features", r"n_components=\S+ must be between",
                r"[Ee]xpected \d+ features", r"matmul: Input operand"),
      repair_actions=("fix_parameter_value", "redraft")),
    E("data_flow", "train_validation_mismatch", "recoverable",
      "data seen at predict time differs from training (new categories, columns)",
      patterns=(r"Found unknown categories", r"feature names should match",
                r"Feature names unseen at fit time", r"y contains previously unseen labels"),
      repair_actions=("encode_categoricals", "redraft")),
    E("data_flow", "label_encoding", "recoverable",
      "the target's type does not suit the estimator (e.g. continuous labels to a classifier)",
      patterns=(r"Unknown label type", r"can't handle a mix of",
                r"Classification metrics can't handle"),
      repair_actions=("redraft",)),
    E("data_flow", "nan_input", "recoverable", "NaN or infinity reached an estimator",
      patterns=(r"Input \w* ?contains NaN", r"contains infinity", r"contains NaN",
                r"Input contains NaN"),
      repair_actions=("add_imputation", "redraft")),
    E("data_flow", "dtype", "recoverable",
      "strings or wrong dtypes reached numeric-only code",
      patterns=(r"could not convert string to float", r"Cannot cast", r"invalid literal for",
                r"dtype='?<?U", r"ufunc '\w+' not supported for the input types"),
      repair_actions=("encode_categoricals", "redraft")),
    # Numerical trouble.
    E("numerical", "divergence", "recoverable", "training diverged (loss went to inf/NaN)",
      patterns=(r"under-/overflow occurred", r"[Dd]iverg", r"loss is (nan|inf)",
                r"NaN loss", r"non-finite parameter weights"),
      repair_actions=("lower_learning_rate", "clip_gradients", "scale_features", "redraft")),
    E("numerical", "non_finite_output", "recoverable",
      "the model predicted NaN or infinity", patterns=(r"predictions contain NaN or infinity",),
      repair_actions=("scale_features", "lower_learning_rate", "redraft")),
    E("numerical", "overflow", "recoverable", "a numeric overflow",
      exceptions=("OverflowError", "FloatingPointError"),
      patterns=(r"overflow", r"out of range", r"range error"),
      repair_actions=("scale_features", "redraft")),
    E("numerical", "singular_matrix", "recoverable", "a singular or ill-conditioned matrix",
      exceptions=("LinAlgError",), patterns=(r"[Ss]ingular matrix",
                                             r"not positive definite"),
      repair_actions=("scale_features", "redraft")),
    E("numerical", "non_convergence", "recoverable",
      "the optimiser did not converge and the model is no better than the baseline",
      repair_actions=("increase_iterations", "scale_features", "redraft")),
    # Runs that worked but should not be trusted.
    E("quality", "below_baseline", "recoverable",
      "the validation score is no better than the dummy baseline",
      repair_actions=("replace_placeholder_model", "redraft")),
    E("quality", "suspected_leakage", "recoverable",
      "a near-perfect score with a feature that nearly equals the target",
      repair_actions=("drop_leaky_columns",)),
    # The catch-alls, last.
    E("data_flow", "value_error", "recoverable", "a ValueError no finer rule explains",
      exceptions=("ValueError",), repair_actions=("redraft",)),
    E("runtime", "unclassified", "recoverable", "nothing above matched",
      repair_actions=("redraft",)),
)

BY_KEY = {row.key: row for row in TAXONOMY}
UNCLASSIFIED = BY_KEY["runtime.unclassified"]


def entry(cls: str, subclass: str) -> TaxonomyEntry:
    return BY_KEY.get(f"{cls}.{subclass}", UNCLASSIFIED)


def markdown() -> str:
    lines = ["| class.subclass | severity | what it means | detected by | repair actions |",
             "|---|---|---|---|---|"]
    for row in TAXONOMY:
        signals = [f"status {s}" for s in row.statuses] + list(row.exceptions) + [
            f"`{p}`" for p in row.patterns]
        lines.append(f"| `{row.key}` | {row.severity} | {row.description} | "
                     f"{'; '.join(signals).replace('|', '&#124;') or 'checks after the run'} | "
                     f"{', '.join(row.repair_actions) or '-'} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown())  # noqa: T201
