"""The offline repair knowledge, as one table: which patch answers which failure.

Each row names a taxonomy class.subclass, the repair action (the name diagnoses, the
knowledge base and reports use), an optional trigger (a regex the failure's text must
match before the patch is tried), the patch function, and where the knowledge comes from.
Rows of one class are tried in table order; the taxonomy's repair actions for a class are
read from here (agents/diagnostician/taxonomy.py adds "redraft" last). To teach pipesmith a
new repair, write the patch in the family module under agents/repair/patches/ and add a row
here.

A patch takes the failing code, its diagnosis and what is known about the data, and
returns new code or None when it does not apply.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass

from pipesmith.agents.repair.patches import (
    advice,
    api_drift,
    boosting,
    cleaning,
    coercions,
    constraints,
    data_flow,
    feature_names,
    keras_drift,
    keyword_moves,
    methods,
    metrics,
    migrations,
    numerical,
    resources,
    stated,
    stated_values,
    structure,
    torch_loops,
    torch_losses,
)
from pipesmith.agents.repair.patches.editing import RepairContext, message_text
from pipesmith.agents.schemas import Diagnosis

__all__ = ["RULES", "RepairContext", "Rule", "actions_for", "apply", "caveats", "rule_for"]

Patch = Callable[[str, Diagnosis, RepairContext], "str | None"]
# (code before, code after, diagnosis) -> what the patch could not carry over, in words
Caveat = Callable[[str, str, "Diagnosis | None"], list[str]]
OWN = "derived"  # knowledge derived from the installed libraries or the code itself


@dataclass(frozen=True)
class Rule:
    key: str  # taxonomy class.subclass
    action: str
    patch: Patch
    trigger: str = ""  # a regex on the failure's summary and evidence; "" = any failure
    source: str = OWN  # a URL, or "derived" (signatures, messages, the code itself)
    caveat: Caveat | None = None  # a lossy patch says what it lost; its repair is partial


R = Rule
MIGRATIONS = "agents/repair/patches/migrations.csv (a source URL per row)"
RULES: tuple[Rule, ...] = (
    # resources
    R("resource.timeout", "remove_infinite_loop", resources.remove_infinite_loop),
    R("resource.timeout", "shrink_model", resources.shrink_model),
    R("resource.out_of_memory", "shrink_model", resources.shrink_model),
    R("resource.process_limit", "single_process", resources.single_process),
    R("neural.out_of_memory", "shrink_model", resources.shrink_model),
    # code that never ran
    R("syntax.invalid_syntax", "fix_syntax", structure.fix_syntax),
    R("contract.no_build_pipeline", "fix_contract", structure.fix_contract),
    R("contract.wrong_return_type", "fix_contract", structure.fix_contract),
    R("contract.unpicklable", "lift_lambdas", structure.lift_lambdas),
    R("sandbox_policy.network_denied", "remove_network_access", structure.remove_network_access),
    # API drift
    R("import.missing_module", "migrate_api", migrations.migrate_api, source=MIGRATIONS),
    R("import.missing_module", "replace_import", api_drift.replace_import,
      r"No module named"),
    R("import.version_conflict", "migrate_api", migrations.migrate_api, source=MIGRATIONS),
    R("import.version_conflict", "replace_import", api_drift.replace_import,
      r"cannot import name"),
    R("api.unexpected_keyword", "migrate_api", migrations.migrate_api, source=MIGRATIONS),
    R("api.unexpected_keyword", "move_keyword", keyword_moves.move_keyword,
      r"unexpected keyword argument"),
    R("api.routed_keyword", "step_keyword", advice.step_keyword,
      r"stepname__parameter format"),
    R("api.unexpected_keyword", "drop_rejected_keywords", keras_drift.drop_rejected_keywords,
      r"unexpected keyword argument", caveat=api_drift.dropped_keywords),
    R("api.unexpected_keyword", "fix_keyword", api_drift.fix_keyword,
      r"unexpected keyword argument|not recognized|Unrecognized keyword",
      caveat=api_drift.dropped_keywords),
    R("api.incompatible_parameters", "follow_advice", advice.follow_advice,
      r"\bset \w+="),
    R("api.incompatible_parameters", "compatible_parameters",
      constraints.compatible_parameters, caveat=constraints.changed_values),
    R("api.incompatible_parameters", "drop_conditional_keyword",
      stated_values.drop_conditional_keyword, caveat=api_drift.dropped_keywords),
    R("api.advised_keyword", "other_option", stated_values.other_option),
    R("api.advised_keyword", "metric_labels", stated_values.metric_labels, r"\blabels\b"),
    R("api.invalid_parameter", "migrate_api", migrations.migrate_api, source=MIGRATIONS),
    R("api.invalid_parameter", "prefix_step_parameters", advice.prefix_step_parameters,
      r"Invalid parameter '?\w+'? for estimator"),
    R("api.invalid_parameter", "copy_if_needed", advice.copy_if_needed,
      r"Unable to avoid copy"),
    R("api.invalid_parameter", "tuple_shape", keras_drift.tuple_shape,
      r"Cannot convert '[^']*' to a shape"),
    R("api.invalid_parameter", "fix_parameter_value", api_drift.fix_parameter_value),
    R("api.removed_attribute", "migrate_api", migrations.migrate_api, source=MIGRATIONS),
    R("api.removed_attribute", "replace_attribute", api_drift.replace_attribute,
      r"has no attribute"),
    R("api.removed_attribute", "replace_member", api_drift.replace_member,
      r"object has no attribute"),
    R("api.removed_attribute", "method_to_function", methods.method_to_function,
      r"object has no attribute '_"),
    R("api.removed_attribute", "moved_attribute", api_drift.moved_attribute,
      r"module '[\w.]+' has no attribute"),
    R("api.removed_function", "migrate_api", migrations.migrate_api, source=MIGRATIONS),
    # data flow
    R("io.unpickling", "follow_advice", advice.follow_advice,
      r"with `\w+` set to `(True|False|None)`"),
    R("data_flow.missing_column", "fix_columns", data_flow.fix_columns),
    R("data_flow.feature_mismatch", "align_features", data_flow.align_features,
      r"features, but \w+ is expecting|feature names should match|Feature names unseen"),
    R("data_flow.feature_mismatch", "predict_without_dropped", boosting.predict_without_dropped,
      r"X has \d+ features, but"),
    R("data_flow.feature_mismatch", "fix_parameter_value", api_drift.fix_parameter_value),
    R("data_flow.input_type", "wrap_input_type", boosting.wrap_input_type,
      r"Expecting data to be an? \w+ object"),
    R("data_flow.read_only", "writable_copy", coercions.writable_copy),
    R("data_flow.train_validation_mismatch", "align_features", data_flow.align_features),
    R("data_flow.train_validation_mismatch", "encode_categoricals",
      data_flow.encode_categoricals),
    R("data_flow.nan_input", "nullable_integer", stated.nullable_integer,
      r"integer type that supports these values"),
    R("data_flow.nan_input", "fill_missing_categories", data_flow.fill_missing_categories,
      r"NaN values should be converted to string"),
    R("data_flow.nan_input", "add_imputation", data_flow.add_imputation),
    R("data_flow.nan_input", "clean_inputs", cleaning.clean_inputs),
    R("data_flow.feature_names", "sanitize_feature_names",
      feature_names.sanitize_feature_names),
    R("data_flow.label_encoding", "positive_label", advice.positive_label_from_classes,
      r"pos_label=\S+ is not a valid label"),
    R("data_flow.label_encoding", "encode_labels", data_flow.encode_labels,
      r"Invalid classes inferred from unique values"),
    R("data_flow.dtype", "cast_at_call", stated.cast_at_call, r"Cannot cast array data"),
    R("data_flow.dtype", "numeric_tensor_input", torch_loops.numeric_tensor_input,
      r"numpy\.object_"),
    R("data_flow.dtype", "densify", data_flow.densify, r"[Ss]parse (data|matrix) was passed"),
    R("data_flow.dtype", "encode_categoricals", data_flow.encode_categoricals),
    R("data_flow.dtype", "clean_inputs", cleaning.clean_inputs),
    R("data_flow.dtype", "numeric_only", coercions.numeric_only),
    R("data_flow.shape", "reshape_2d", coercions.reshape_2d),
    R("data_flow.metric_arguments", "metric_average", metrics.metric_average),
    R("data_flow.metric_arguments", "metric_labels", stated_values.metric_labels,
      r"\blabels?\b|target_names"),
    R("data_flow.small_class", "relax_split", data_flow.relax_split),
    R("data_flow.single_class", "shuffle_split", stated_values.shuffle_split,
      caveat=stated_values.unshuffled),
    R("data_flow.integer_expected", "int_where_float", stated_values.int_where_float),
    R("data_flow.metric_needs_scores", "use_probabilities", data_flow.use_probabilities),
    # numerical and neural
    R("neural.dtype_mismatch", "cast_at_call", stated.cast_at_call,
      r"scalar types?:? (Long|Int)"),
    R("neural.dtype_mismatch", "cast_float32", numerical.cast_float32),
    R("neural.detached", "detach_tensor", coercions.detach_tensor),
    R("neural.device", "use_cpu", coercions.use_cpu),
    R("neural.input_width", "infer_input_width", numerical.infer_input_width),
    R("neural.loss_target_mismatch", "targets_from_zero", torch_loops.targets_from_zero,
      r"Target \d+ is out of bounds"),
    R("neural.loss_target_mismatch", "logits_loss", torch_losses.logits_loss,
      r"should be between 0 and 1"),
    R("neural.loss_target_mismatch", "fix_loss", numerical.fix_loss,
      caveat=numerical.swapped_losses),
    R("neural.loss_usage", "float_targets", torch_losses.float_targets,
      r"can't be cast to the desired output type"),
    R("neural.loss_usage", "instantiate_loss", torch_losses.instantiate_loss,
      r"value of Tensor with more than one value is ambiguous"),
    R("neural.loss_usage", "reduce_loss", torch_losses.reduce_loss,
      r"only for scalar outputs"),
    R("neural.loss_usage", "tensor_scalar", torch_losses.tensor_scalar,
      r"only one element tensors"),
    R("neural.module_registration", "call_super_init", stated.call_super_init,
      r"__init__\(\)"),
    R("neural.module_registration", "module_list", torch_losses.module_list),
    R("neural.autograd", "forward_in_loop", torch_loops.forward_in_loop,
      r"backward through the graph a second time"),
    R("neural.autograd", "no_grad_update", torch_losses.no_grad_update,
      r"leaf Variable that requires grad"),
    R("numerical.divergence", "lower_learning_rate", numerical.lower_learning_rate),
    R("numerical.divergence", "clip_gradients", numerical.clip_gradients),
    R("numerical.divergence", "scale_features", numerical.scale_features),
    R("numerical.non_finite_output", "scale_features", numerical.scale_features),
    R("numerical.non_finite_output", "lower_learning_rate", numerical.lower_learning_rate),
    R("numerical.overflow", "scale_features", numerical.scale_features),
    R("numerical.singular_matrix", "scale_features", numerical.scale_features),
    R("numerical.non_convergence", "increase_iterations", numerical.increase_iterations),
    R("numerical.non_convergence", "scale_features", numerical.scale_features),
    # the boosting libraries' own refusals, whose message names the cure
    R("library.catboost", "one_of_parameters", boosting.one_of_parameters,
      r"[Oo]nly one of (the )?parameters", caveat=boosting.lost_duplicates),
    R("library.catboost", "declare_cat_features", boosting.declare_cat_features,
      r"cat_features"),
    R("library.lightgbm", "add_num_class", boosting.add_num_class,
      r"Number of classes should be specified"),
    R("library.lightgbm", "predict_without_dropped", boosting.predict_without_dropped,
      r"number of features in data \(\d+\) is not the same"),
    R("library.xgboost", "add_num_class", boosting.add_num_class, r"num_class"),
    R("library.xgboost", "clamp_to_bound", stated.clamp_to_bound, r"must be in [\[(]"),
    R("library.lightgbm", "clamp_to_bound", stated.clamp_to_bound, r"must be in [\[(]"),
    # the failure states its cure
    R("api.out_of_bounds_parameter", "clamp_to_bound", stated.clamp_to_bound),
    R("api.out_of_bounds_parameter", "flip_stated_flag", stated_values.flip_stated_flag,
      r"\b(when|if|with|while) [`'\"]?\w+=(True|False)"),
    R("api.out_of_bounds_parameter", "loop_from_valid", stated_values.loop_from_valid,
      r"Valid values are -?\d+ to"),
    R("api.out_of_bounds_parameter", "default_past_bound", stated_values.default_past_bound,
      caveat=api_drift.dropped_keywords),
    R("api.advised_replacement", "follow_replacement", stated.follow_replacement),
    R("api.user_class_method", "rename_near_method", stated.rename_near_method),
    # runs that worked but should not be trusted
    R("quality.below_baseline", "replace_placeholder_model", numerical.replace_placeholder_model),
    R("quality.below_baseline", "increase_iterations", numerical.increase_iterations),
    R("quality.below_baseline", "scale_features", numerical.scale_features),
    R("quality.suspected_leakage", "drop_leaky_columns", data_flow.drop_leaky_columns),
)


def actions_for(key: str) -> tuple[str, ...]:
    """The repair actions for a taxonomy class.subclass, in the table's order."""
    return tuple(dict.fromkeys(rule.action for rule in RULES if rule.key == key))


def rule_for(action: str, key: str | None = None) -> Rule | None:
    """The row for `action` under `key`, else the first row with that action."""
    rows = [rule for rule in RULES if rule.action == action]
    return next((r for r in rows if r.key == key), rows[0] if rows else None)


def apply(action: str, code: str, diagnosis: Diagnosis | None,
          ctx: RepairContext) -> str | None:
    """The patched code, or None when the action does not apply or changes nothing."""
    key = f"{diagnosis.taxonomy_class}.{diagnosis.subclass}" if diagnosis else None
    rule = rule_for(action, key)
    if rule is None:
        return None
    if rule.trigger and diagnosis is not None and \
            not re.search(rule.trigger, message_text(diagnosis)):
        return None
    try:
        new = rule.patch(code, diagnosis, ctx)
        if new is None or new == code:
            return None
        ast.parse(new)
    except (SyntaxError, ValueError, LookupError, TypeError, ImportError):
        return None
    return new


def caveats(action: str, key: str | None, before: str, after: str,
            diagnosis: Diagnosis | None) -> list[str]:
    """What the row's patch lost in turning `before` into `after` (empty: a faithful edit)."""
    rule = rule_for(action, key)
    return rule.caveat(before, after, diagnosis) if rule and rule.caveat else []


def markdown() -> str:
    """The table for docs/repairs.md."""
    lines = ["| class.subclass | action | trigger | patch | source |", "|---|---|---|---|---|"]
    for rule in RULES:
        trigger = f"`{rule.trigger}`".replace("|", "&#124;") if rule.trigger else "any"
        lines.append(f"| `{rule.key}` | {rule.action} | {trigger} | "
                     f"`{rule.patch.__module__.rsplit('.', 1)[-1]}.{rule.patch.__name__}` | "
                     f"{rule.source} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown())  # noqa: T201
