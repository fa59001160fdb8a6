"""The hierarchical error taxonomy, as data.

Each row is a (class, subclass) with its severity, the signals that detect it and
the repair actions that fix it, best first. Signals are sandbox statuses,
exception type names (from the last traceback line) and regexes on
"ExceptionType: message". The diagnostician walks the rows in order and takes
the first match; nothing here is an if-chain. `python -m pipesmith.agents.diagnostician.taxonomy`
prints the table as Markdown for docs/taxonomy.md.

Severity: "critical" means repairing the code cannot help (the infrastructure
failed); the lineage ends. Everything else is "recoverable".
"""

from __future__ import annotations

from dataclasses import dataclass

from pipesmith.agents.repair.table import actions_for


@dataclass(frozen=True)
class TaxonomyEntry:
    cls: str
    subclass: str
    severity: str
    description: str
    statuses: tuple[str, ...] = ()
    exceptions: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    redraft: bool = True  # when the patches fail, may the coder write the candidate afresh?

    @property
    def key(self) -> str:
        return f"{self.cls}.{self.subclass}"

    @property
    def repair_actions(self) -> tuple[str, ...]:
        """The rule table's actions for this class (agents/repair/table.py), then "redraft"."""
        return actions_for(self.key) + (("redraft",) if self.redraft else ())


E = TaxonomyEntry
TAXONOMY: tuple[TaxonomyEntry, ...] = (
    # Sandbox statuses first: they are certain.
    E("resource", "timeout", "recoverable", "the run exceeded its wall-clock or CPU limit",
      statuses=("timeout", "cpu_timeout")),
    E("resource", "out_of_memory", "recoverable", "the run exceeded its memory limit",
      statuses=("oom",), exceptions=("MemoryError",), patterns=(r"Unable to allocate",)),
    E("resource", "process_limit", "recoverable", "too many processes or threads",
      statuses=("pids_exhausted",),
      patterns=(r"Resource temporarily unavailable", r"can't start new thread")),
    E("resource", "disk", "recoverable", "the run wrote more than its disk allowance",
      statuses=("disk_full",), patterns=(r"No space left on device", r"Disk quota exceeded",
                                         r"File too large")),
    E("infrastructure", "sandbox", "critical", "the sandbox itself failed or was killed",
      statuses=("infra", "killed"), redraft=False),
    # Code that never ran.
    E("syntax", "invalid_syntax", "recoverable", "the module does not parse",
      exceptions=("SyntaxError", "IndentationError", "TabError")),
    E("contract", "no_build_pipeline", "recoverable",
      "the module defines no build_pipeline(task)",
      patterns=(r"defines no callable build_pipeline", r"build_pipeline must take")),
    E("contract", "wrong_return_type", "recoverable",
      "build_pipeline returned something without fit/predict",
      patterns=(r"build_pipeline returned .* which lacks",)),
    E("contract", "unpicklable", "recoverable",
      "the fitted model cannot be saved: it holds a lambda or a local function",
      patterns=(r"[Cc]an't pickle .*(lambda|local)", r"PicklingError")),
    E("contract", "predict_shape", "recoverable",
      "predict returned the wrong number of rows",
      patterns=(r"predict returned \d+ rows",)),
    E("contract", "invalid_predictions", "recoverable",
      "the predictions break the contract: probabilities that do not sum to 1, the wrong "
      "shape of predict_proba, no predictions file, or predictions that are not numbers",
      patterns=(r"predict_proba rows do not sum to 1", r"predict_proba returned",
                r"without writing predictions\.npz", r"predictions\.npz (cannot|holds)",
                r"regression predictions are not numbers", r"refit job wrote no model",
                r"needs predict_proba, which the model lacks",
                r"predict_proba classes .* are not the training classes",
                r"predictions could not be scored")),
    E("sandbox_policy", "network_denied", "recoverable",
      "the code tried to reach the network, which the sandbox forbids",
      patterns=(r"Network is unreachable", r"Temporary failure in name resolution",
                r"Name or service not known", r"urlopen error", r"NewConnectionError")),
    E("sandbox_policy", "file_access_denied", "recoverable",
      "the code touched a file outside its working directory",
      patterns=(r"\[Errno 13\] Permission denied", r"Read-only file system")),
    # Imports.
    E("import", "missing_module", "recoverable", "a module is not installed or misspelled",
      exceptions=("ModuleNotFoundError",), patterns=(r"No module named",)),
    E("import", "version_conflict", "recoverable",
      "a name the code imports is not in the installed version",
      exceptions=("ImportError",), patterns=(r"cannot import name",)),
    # Neural networks (PyTorch, Keras): the tensors, layers and losses of a training loop.
    E("neural", "dtype_mismatch", "recoverable",
      "float64 data reached float32 layers (or the reverse), or floats an index",
      patterns=(r"must have the same dtype", r"[Ff]ound dtype (Float|Double) but expected",
                r"to have (one of the following )?scalar types?:? (Long|Int)",
                r"expected scalar type (Float|Double) but found (Float|Double)",
                r"was expected to be a (float|double) tensor but is a (float|double) tensor")),
    E("neural", "detached", "recoverable",
      "a tensor left torch while it still carries gradients or lives on a device",
      patterns=(r"Can't call numpy\(\) on Tensor that requires grad",
                r"can't convert \w+(:\d+)? device type tensor to numpy")),
    E("neural", "input_width", "recoverable",
      "the first layer's input width differs from the number of features it is given",
      patterns=(r"mat1 and mat2 shapes cannot be multiplied",
                r"expected axis -1 of input shape to have value \d+")),
    E("neural", "input_rank", "recoverable",
      "a layer given inputs of the wrong rank (2-d features to a recurrent or convolutional "
      "layer, a missing batch or channel axis)",
      patterns=(r"expected (min_)?ndim=\d+, found ndim=\d+",
                r"Expected \d+D \(unbatched\) or \d+D \(batched\) input",
                r"should also be \d-D but got \d-D")),
    E("neural", "loss_target_mismatch", "recoverable",
      "the loss does not suit the task or the labels' shape (e.g. class labels to a BCE loss)",
      patterns=(r"Target size \(torch\.Size\(\[.*\]\)\) must be the same as input size",
                r"`target` and `output` must have the same (shape|rank)",
                r"0D or 1D target tensor expected", r"Target -?\d+ is out of bounds",
                r"expected scalar type Long but found", r"Received a label value of",
                r"all elements of input should be between 0 and 1",
                r"Expected input batch_size \(\d+\) to match target batch_size")),
    E("neural", "loss_usage", "recoverable",
      "a loss misused in the loop: integer targets to a float loss, a loss class called on "
      "tensors, an unreduced loss given to backward(), a batch turned into one number",
      patterns=(r"can't be cast to the desired output type",
                r"Boolean value of Tensor with more than one value is ambiguous",
                r"grad can be implicitly created only for scalar outputs",
                r"only one element tensors can be converted to Python scalars")),
    E("neural", "module_registration", "recoverable",
      "layers torch does not see as parameters (kept in a plain list or dict, or set "
      "before the base class's __init__ ran)",
      patterns=(r"optimizer got an empty parameter list", r"before Module\.__init__\(\) call",
                r"super\(\)\.__init__\(\)`? (was|is) not called")),
    E("neural", "device", "recoverable",
      "the code asks for a GPU device that this build or machine does not have",
      patterns=(r"Torch not compiled with CUDA enabled", r"Found no NVIDIA driver",
                r"CUDA driver initialization failed", r"No CUDA GPUs are available",
                r"Attempting to deserialize object on a CUDA device")),
    E("neural", "autograd", "recoverable",
      "the training loop misuses autograd (backward twice through one graph, a loss without "
      "gradients, an in-place change of a saved tensor)",
      patterns=(r"Trying to backward through the graph a second time",
                r"does not require grad and does not have a grad_fn",
                r"modified by an inplace operation",
                r"a leaf Variable that requires grad is being used in an in-place")),
    E("neural", "out_of_memory", "recoverable",
      "the network or its batches do not fit in memory (the allocator refused)",
      patterns=(r"DefaultCPUAllocator: can't allocate memory", r"CUDA out of memory",
                r"OutOfMemoryError", r"OOM when allocating", r"ResourceExhaustedError")),
    # A float where only an integer goes (before the API rows: scikit-learn's parameter
    # check says it in their words).
    E("data_flow", "integer_expected", "recoverable",
      "a float reached a place that takes only integers (a slice bound, an index, a count, "
      "an integer parameter)",
      patterns=(r"slice indices must be integers", r"'float' object cannot be interpreted "
                r"as an integer", r"indices must be integers or slices, not float",
                r"only integers, slices \(`:`\), ellipsis", r"expect int but value='?-?\d+\.",
                r"The '\w+' parameter of \w+ must be an int.*Got (np\.float\d+\()?-?\d+\.\d",
                r"expected a positive integer\. Received: \w+=-?\d+\.\d",
                r"must be tuple of ints, but found element of type float")),
    # API drift between the code and the installed libraries.
    E("api", "unexpected_keyword", "recoverable",
      "a keyword argument the installed version does not take (removed or renamed)",
      patterns=(r"unexpected keyword argument", r"Argument\(s\) not recognized",
                r"Unrecognized keyword arguments passed to")),
    E("api", "positional_arguments", "recoverable",
      "a call's positional arguments do not fit the installed signature (parameters made "
      "keyword-only, or a new required one)",
      patterns=(r"takes (from \d+ to )?\d+ positional arguments? but \d+ (were|was) given",
                r"missing \d+ required positional arguments?")),
    E("api", "invalid_parameter", "recoverable",
      "a parameter value the installed version rejects",
      exceptions=("InvalidParameterError", "ValueError"),
      patterns=(r"The '\w+' parameter of \w+ must be",
                r"Invalid parameter '?\w+'? for estimator",
                r"Unable to avoid copy while creating an array as requested",
                r"Cannot convert '[^']*' to a shape")),
    E("api", "routed_keyword", "recoverable",
      "a meta-estimator's method refuses a plain keyword it routes to its steps "
      "(`Pipeline.fit(sample_weight=)`)",
      patterns=(r"does not accept the \w+ parameter",)),
    E("api", "advised_keyword", "recoverable",
      "the message names a keyword that would accept the input (\"by setting the "
      "'duplicates' kwarg\", \"Try specifying the labels parameter\")",
      patterns=(r"(by setting|[Tt]ry (specifying|setting|passing)) the [`'\"]?\w+[`'\"]? "
                r"(kwarg|keyword|parameter|argument)",)),
    E("api", "removed_attribute", "recoverable",
      "a function, class or attribute the installed version no longer has",
      exceptions=("AttributeError",), patterns=(r"has no attribute",)),
    E("api", "removed_function", "recoverable",
      "a function the installed version removed, whose message names the replacement",
      patterns=(r"(is now|has been|was) removed", r"deprecated in favou?r of")),
    E("api", "changed_return_type", "recoverable",
      "a library call returned a different type than the code expects",
      exceptions=("TypeError", "ValueError"),
      patterns=(r"cannot unpack non-iterable", r"too many values to unpack",
                r"not enough values to unpack", r"object is not subscriptable")),
    # Data flow.
    E("data_flow", "missing_column", "recoverable", "the code uses a column the data lacks",
      patterns=(r"not columns of the dataframe", r"columns are missing", r"not in index",
                r"A given column is not", r"^KeyError: ")),
    E("data_flow", "small_class", "recoverable",
      "a class has too few members for a stratified split or the number of folds",
      patterns=(r"least populated class(es)? in y ha(s|ve) only",
                r"should be greater or equal to the number of classes",
                r"cannot be greater than the number of members in each class")),
    E("data_flow", "single_class", "recoverable",
      "the rows a model or metric met hold one class only (a split, filter or group "
      "without the others)",
      patterns=(r"needs samples of at least 2 classes", r"contains only one class",
                r"[Oo]nly one class (is )?present", r"number of classes has to be greater "
                r"than one", r"needs at least 2 classes")),
    E("data_flow", "empty_input", "recoverable",
      "a filter, split or selection left no rows (or no columns) for the next step",
      patterns=(r"Found array with 0 (sample|feature)\(s\)",
                r"zero-size array to reduction operation", r"arg(max|min) of an empty sequence",
                r"need at least one array to concatenate", r"No objects to concatenate")),
    E("data_flow", "metric_needs_scores", "recoverable",
      "a metric that needs probabilities or scores was given class labels",
      patterns=(r"multi_class must be in \('ovo', 'ovr'\)", r"`y_score` needs to be of shape",
                r"y_prob contains values (greater|less) than")),
    E("data_flow", "shape", "recoverable",
      "an estimator was given a 1-D array where it takes a 2-D one (a single feature)",
      patterns=(r"Expected 2D array, got 1D array", r"Expected a 2-dimensional container",
                r"Reshape your data either using array\.reshape\(-1, 1\)")),
    E("data_flow", "metric_arguments", "recoverable",
      "a metric's arguments do not suit the target (a binary average on several classes)",
      patterns=(r"Target is multi(class|label) but average='binary'",
                r"contains only one label", r"labels explicitly through the labels argument",
                r"does not match size of target_names",
                r"At least one label specified must be in y_true")),
    E("data_flow", "feature_mismatch", "recoverable",
      "a shape or feature-count mismatch between steps",
      patterns=(r"features, but \w+ is expecting", r"shapes .* not aligned",
                r"Found input variables with inconsistent numbers",
                r"k should be <= n_features", r"n_components=\S+ must be between",
                r"[Ee]xpected \d+ features", r"matmul: Input operand",
                r"data did not have the following fields")),
    E("data_flow", "array_shape", "recoverable",
      "arrays of different shapes or ragged rows combined into one array",
      patterns=(r"inhomogeneous shape", r"must have same number of dimensions",
                r"all the input array dimensions except for the concatenation axis")),
    E("data_flow", "input_type", "recoverable",
      "a library call given a container type it does not take (a DataFrame where a "
      "Booster wants its DMatrix)",
      patterns=(r"Expecting data to be an? \w+ object",)),
    E("data_flow", "read_only", "recoverable",
      "an array written in place is a read-only view (pandas 3 copy-on-write, to_numpy())",
      patterns=(r"destination is read-only", r"array is read-only")),
    E("data_flow", "not_fitted", "recoverable",
      "a transformer or model used before it was fitted (often a second, fresh one)",
      patterns=(r"is not fitted yet", r"instance is not fitted")),
    E("data_flow", "train_validation_mismatch", "recoverable",
      "data seen at predict time differs from training (new categories, columns)",
      patterns=(r"Found unknown categories", r"feature names should match",
                r"Feature names unseen at fit time", r"y contains previously unseen labels")),
    E("data_flow", "label_encoding", "recoverable",
      "the target's type does not suit the estimator (e.g. continuous labels to a classifier)",
      patterns=(r"Unknown label type", r"can't handle a mix of",
                r"Classification metrics can't handle",
                r"Invalid classes inferred from unique values of `y`",
                r"pos_label=\S+ is not a valid label")),
    E("data_flow", "feature_names", "recoverable",
      "column names a library refuses (brackets or '<' for XGBoost, JSON characters for "
      "LightGBM, mixed types for scikit-learn)",
      patterns=(r"feature_names must be string, and may not contain",
                r"[Dd]o not support special JSON characters in feature name",
                r"Feature names are only supported if all input features have string names")),
    E("data_flow", "nan_input", "recoverable", "NaN or infinity reached an estimator",
      patterns=(r"Input \w* ?contains NaN", r"contains infinity", r"contains NaN",
                r"Cannot convert non-finite values \(NA or inf\) to integer",
                r"Input contains NaN", r"NaN values should be converted to string",
                r"nan values for\s+float features are not allowed")),
    E("data_flow", "dtype", "recoverable",
      "strings or wrong dtypes reached numeric-only code",
      patterns=(r"could not convert string to float", r"Cannot cast", r"invalid literal for",
                r"dtype='?<?U", r"ufunc '\w+' not supported for the input types",
                r"[Ss]parse (data|matrix) was passed",
                r"not supported between instances of ('str' and|.* and 'str')",
                r"must be real number, not str", r"numpy\.object_",
                r"uniformly strings or numbers", r"Cannot convert '.*' to float",
                r"dtypes (for data )?must be int, float",
                r"Cannot perform reduction '\w+' with string dtype",
                r"Could not convert .* to numeric",
                r"Can only use \.str accessor", r"trying to merge on \w+ and \w+ columns",
                r"unhashable type", r"has no len\(\)")),
    # Numerical trouble.
    E("numerical", "divergence", "recoverable", "training diverged (loss went to inf/NaN)",
      patterns=(r"under-/overflow occurred", r"[Dd]iverg", r"loss is (nan|inf)",
                r"NaN loss", r"non-finite parameter weights")),
    E("numerical", "non_finite_output", "recoverable",
      "the model predicted NaN or infinity", patterns=(r"predictions contain NaN or infinity",)),
    E("numerical", "overflow", "recoverable", "a numeric overflow",
      exceptions=("OverflowError", "FloatingPointError"),
      patterns=(r"overflow", r"out of range", r"range error", r"out of bounds for u?int")),
    E("numerical", "singular_matrix", "recoverable", "a singular or ill-conditioned matrix",
      exceptions=("LinAlgError",), patterns=(r"[Ss]ingular matrix",
                                             r"not positive definite")),
    E("numerical", "non_convergence", "recoverable",
      "the optimiser did not converge and the model is no better than the baseline"),
    # Runs that worked but should not be trusted.
    E("quality", "below_baseline", "recoverable",
      "the validation score is no better than the dummy baseline"),
    E("quality", "suspected_leakage", "recoverable",
      "a near-perfect score with a feature that nearly equals the target",
      redraft=False),
    # A library's own exception that no row above explains: named after the library, whose
    # message says which parameter or input it refused.
    E("library", "lightgbm", "recoverable",
      "LightGBM refused a parameter or its input (LightGBMError)",
      exceptions=("LightGBMError",)),
    E("library", "xgboost", "recoverable",
      "XGBoost refused a parameter or its input (XGBoostError)",
      exceptions=("XGBoostError",)),
    E("library", "catboost", "recoverable",
      "CatBoost refused a parameter or its input (CatBoostError)",
      exceptions=("CatBoostError",)),
    E("api", "incompatible_parameters", "recoverable",
      "parameter values the installed estimator accepts one by one but not together",
      patterns=(r"[Ss]olver \S+ supports only", r"[Uu]nsupported set of arguments",
                r"combination of \w+=\S+ and \w+=\S+ (is|are) not supported",
                r"only supports? .*penalt", r"is not supported when \w+=",
                r"Setting a \w+ has no effect since \w+ is",
                r"(could|can) only be (specified|used|set) (in|when|with|if)",
                r"is only supported (for|when|with|if)",
                r"at least one \w+ and \w+ \w+ is required")),
    E("io", "unpickling", "recoverable",
      "a pickle could not be read: truncated, corrupt, not a pickle, or written by an "
      "incompatible version (UnpicklingError)",
      exceptions=("UnpicklingError",)),
    # The failure states its cure (agents/repair/patches/stated.py), where no row above
    # names it.
    E("api", "out_of_bounds_parameter", "recoverable",
      "a parameter past a bound the library or the data sets, stated in the message",
      patterns=(r"Expected \w+ <= \w+, but", r"\w+ must be in [\[(]\s*-?[\d.]+\s*,",
                r"\w+ (cannot|can not|should not|must not) be (larger|greater|bigger|more) "
                r"than", r"Valid values are -?\d+ to",
                r"larger sample than population")),
    E("api", "advised_replacement", "recoverable",
      "the library names what to use instead (\"Use .reshape(...) instead\")",
      patterns=(r"[Uu]se [`'\"]?\.?\w+(\([^)]*\))?[`'\"]? instead",)),
    E("api", "user_class_method", "recoverable",
      "a class the script defines lacks a method the library calls (often misspelt)",
      patterns=(r"should (be transformers and )?implement", r"is missing the required "
                r"\"?\w+\"? function", r"type <class '__main__\.\w+'>")),
    # The catch-alls, last.
    E("data_flow", "value_error", "recoverable", "a ValueError no finer rule explains",
      exceptions=("ValueError",)),
    E("runtime", "unclassified", "recoverable", "nothing above matched"),
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
