"""Plain-language requests and plan edits, understood offline: rules and the data's own
column names.

"I want to predict churn from data/customers.csv" -> file, target, task, metric, budget.
"make the budget 30 seconds", "use roc_auc", "drop column seats", "only tree models",
"it is a regression" -> a PlanEdit. The rules are data (the tables below); the functions
only apply them. LLM mode reads the same fields through a structured-output schema
(pipesmith/chat/task_text_llm.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from pipesmith.agents.families.names import FAMILY_WORDS
from pipesmith.core.datasets import BUNDLED
from pipesmith.core.metrics import METRICS

FILE = re.compile(r"(?P<path>[\w~./\\-]*[\w-]\.(?:csv|parquet|pq|tsv))\b", re.IGNORECASE)
TASK_WORDS: dict[str, tuple[str, ...]] = {  # what a word says about the task type
    "clustering": ("cluster", "clusters", "clustering", "segment", "segments", "group the rows"),
    "regression": ("regression", "regress", "a number", "continuous"),
    "classification": ("classification", "classify", "classifier", "categorise", "categorize"),
}
NOT_TASK_WORDS = ("logistic regression",)  # a family's name, not the task's type
# Strongest first: a column named as the target beats one after "for" or "of".
TARGET_CUES = ("target column is", "target column", "column name", "column named",
               "column labeled", "predict", "predicting", "forecast", "estimate",
               "determine", "target", "target is", "classify", "model", "label", "going to",
               "likely to", "will", "risk of", "chance of", "probability of", "for", "of")
PLURAL = r"(?:e?s)?"  # "predict the prices" names the column price
METRIC_WORDS: dict[str, str] = {  # extra spellings of METRICS' names
    "roc auc": "roc_auc", "auc": "roc_auc", "roc-auc": "roc_auc", "f1": "f1_macro",
    "balanced accuracy": "balanced_accuracy", "log loss": "log_loss", "r squared": "r2",
    "r^2": "r2",
}
BUDGET = re.compile(r"(?P<n>\d+(?:\.\d+)?)\s*"
                    r"(?P<unit>s|sec|secs|seconds?|m|mins?|minutes?|h|hours?)\b"
                    r"|\b(?P<word>half an?|an?|one|two|three|four|five|six|seven|eight|nine|ten)"
                    r"\s+(?P<word_unit>secs?|seconds?|mins?|minutes?|hours?)\b", re.IGNORECASE)
NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
                "seven": 7, "eight": 8, "nine": 9, "ten": 10, "half a": 0.5, "half an": 0.5}
UNIT_SECONDS = {"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
                "m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60,
                "h": 3600, "hour": 3600, "hours": 3600}
# Words after which the columns named are dropped, never the target ("don't use the seats
# column", "without tenure or seats"); longer phrases first, so "without using" wins.
DROP_CUES = re.compile(r"\b(?:without using|without|drop(?:ping)?|ignor(?:e|ing)|exclud(?:e|ing)|"
                       r"remov(?:e|ing)|leave out|leaving out|skip|avoid|not using|"
                       r"(?:do not|don['\u2019]?t|never|not) (?:use|include))\b", re.IGNORECASE)
# What may stand between the columns of one drop list: "seats, the tenure column and price".
DROP_FILLER = re.compile(r"^(?:\s*(?:[,&/]|\b(?:and|or|nor|also|the|columns?|features?|fields?|"
                         r"variables?)\b))*\s*")
NEGATED = re.compile(r"\b(?:not|never|don['\u2019]?t|do not)\s*$", re.IGNORECASE)
FAMILY_GROUPS = FAMILY_WORDS  # "only tree models" and friends (agents/families/names.py)
ONLY = re.compile(r"\b(?:only|just|use|try|focus on|stick to|prefer|create an?|exclusively)\s+"
                  r"(?P<what>[\w -]+?)\s*(?:models?|families|learners?|methods?|"
                  r"approach(?:es)?)?(?=$|[.;,!?]| with\b| like\b| and \d)", re.IGNORECASE)
# "train random forests only", "use xgboost only": the restriction after the families.
ONLY_AFTER = re.compile(r"\b(?:train|use|try|fit|run)\s+(?:an?\s+|the\s+)?(?P<what>[\w -]+?)"
                        r"\s+(?:(?:models?|model types?|learners?)\s+)?only\b", re.IGNORECASE)
# Words after which the families named are excluded ("no random forests", "don't use
# xgboost or catboost", "all but NN and KNN"); the scope ends at the clause's end or at a
# word that turns to what is wanted ("no svm, only boosting").
EXCLUDE_CUES = re.compile(
    r"\b(?:no|not|never|without|except|excluding|exclude|skip|skipping|avoid|avoiding|"
    r"disable|disabling|drop|remove|leave out|leaving out|ignore|all but|other than|"
    r"rather than|instead of|turn off|switch off|not interested in|"
    r"(?:do not|don['\u2019]?t|never|not) (?:use|try|train|include|want|fit|run|need))\b",
    re.IGNORECASE)
EXCLUDE_SCOPE_END = re.compile(r"[.;!?]|\b(?:only|just|instead|but use|rather use|"
                               r"use only|stick to|focus on|try)\b", re.IGNORECASE)
APPROVE_WORDS = ("yes", "y", "go", "approve", "approved", "ok", "okay", "run it", "run",
                 "looks good", "do it", "start", "sure", "lgtm", "yeah", "yep", "yes please",
                 "indeed", "of course", "correct", "absolutely", "definitely", "sounds good",
                 "that sounds good", "go ahead", "proceed", "let's go", "let's do it")
REJECT_WORDS = ("no", "n", "cancel", "stop", "abort", "never mind", "nevermind", "never",
                "nope", "nah", "no way", "not really", "not today", "no thanks", "no thank you",
                "i don't think so", "don't like that")
REJECT_START = re.compile(r"^(?:uh\s+)?(?:no+p?e?|nah)\b(?!\s+(?:column|drop))", re.IGNORECASE)
# What a message is: a question about a run, a request for one, or a change to its plan.
QUESTION_START = re.compile(
    r"^(?:what|which|why|how|who|when|where|is|are|does|do(?!\s+not\b)|can|could|would|"
    r"should|show|display|give|tell|please|i meant|nice|super|for (?:id|data point))\b",
    re.IGNORECASE)
ABOUT_ROWS = re.compile(r"\b(?:id|data ?point|instance)s?\s*(?:number\s*)?\d+|"
                        r"^predict\s+\d+\s*$|\bimportan(?:t|ce)|\bpredictions\b",
                        re.IGNORECASE)
REQUEST_VERBS = re.compile(r"^(?:\w+\s+){0,3}?(?:predict|forecast|estimate|classify|cluster|"
                           r"segment|model|build|develop|train|make|design|detect|determine|"
                           r"perform|participate|join|generate|use the|utilize|using|"
                           r"based on|you are tasked|as a contestant|run data)\b",
                           re.IGNORECASE)
EDIT_VERBS = re.compile(r"\b(?:use|only|focus|keep|avoid|prioriti[sz]e|consider|optimi[sz]e|"
                        r"maximi[sz]e|minimi[sz]e|switch|change|make the|set|maximum|drop|"
                        r"exclude|without|create an?)\b", re.IGNORECASE)
METRIC_ONLY = re.compile(r"\b(?:accuracy|f1|recall|precision|roc|auc|score|sensitivity|"
                         r"specificity|performance)\b", re.IGNORECASE)


class TaskRequest(BaseModel):
    """What a plain-language request asks for; None where it does not say."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    data_path: str | None = None
    dataset: str | None = None  # a bundled dataset's name
    target: str | None = None
    target_guessed: bool = False  # the words did not name it: say which, or ask
    task_type: str | None = None
    metric: str | None = None
    budget_s: float | None = None
    drop_columns: list[str] = Field(default_factory=list)
    families: list[str] = Field(default_factory=list)  # only these families; empty: any
    exclude_families: list[str] = Field(default_factory=list)  # never these ("no rf")


class PlanEdit(BaseModel):
    """A change to a proposed plan, in the person's words turned into fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    budget_s: float | None = None
    metric: str | None = None
    task_type: str | None = None
    drop_columns: list[str] = Field(default_factory=list)
    families: list[str] = Field(default_factory=list)
    exclude_families: list[str] = Field(default_factory=list)
    target: str | None = None

    @property
    def empty(self) -> bool:
        return self == PlanEdit()


def _norm(text: str) -> str:
    return re.sub(r"[\s_-]+", " ", text.strip().lower())


def find_file(text: str) -> str | None:
    match = FILE.search(text)
    return match.group("path") if match else None


def find_dataset(text: str) -> str | None:
    words = set(re.findall(r"[a-z_]+", text.lower()))
    return next((name for name in BUNDLED if name in words), None)


def find_task_type(text: str) -> str | None:
    low = f" {_norm(text)} "
    for name in NOT_TASK_WORDS:  # "no logistic regression" says nothing of the task
        low = low.replace(name, " ")
    for task, words in TASK_WORDS.items():
        if any(re.search(rf"\b{re.escape(w)}\b", low) for w in words):
            return task
    return None


def find_metric(text: str) -> str | None:
    low = text.lower()
    for name in sorted(METRICS, key=len, reverse=True):
        if re.search(rf"\b{re.escape(name)}\b", low):
            return name
    for words, name in sorted(METRIC_WORDS.items(), key=lambda kv: -len(kv[0])):
        if re.search(rf"(?<![\w^]){re.escape(words)}(?![\w])", low):
            return name
    return None


def find_budget(text: str) -> float | None:
    match = BUDGET.search(text)
    if not match:
        return None
    if match.group("n"):
        return float(match.group("n")) * UNIT_SECONDS[match.group("unit").lower()]
    unit = match.group("word_unit").lower()
    unit = unit if unit in UNIT_SECONDS else unit.rstrip("s")  # "secs" vs "hours"
    return NUMBER_WORDS[" ".join(match.group("word").lower().split())] * UNIT_SECONDS[unit]


def find_columns(text: str, columns: Sequence[str]) -> list[str]:
    """Columns named in the text (as words; spaces, dashes and underscores alike)."""
    low = f" {_norm(text)} "
    return [c for c in columns
            if re.search(rf"(?<!\w){re.escape(_norm(c))}{PLURAL}(?!\w)", low)]


def find_drops(text: str, columns: Sequence[str]) -> list[str]:
    """The columns listed right after a drop cue ("drop", "without", "don't use", ...): a
    list of column names joined by commas, "and", "or", "the", "column"; the list ends at
    the first word that is not one of these (", predict churn")."""
    names = sorted(((_norm(c), c) for c in columns), key=lambda pair: -len(pair[0]))
    low = _norm(text)
    dropped: set[str] = set()
    for cue in DROP_CUES.finditer(low):
        rest = low[cue.end():]
        while True:
            rest = rest[DROP_FILLER.match(rest).end():]
            hit = next((pair for pair in names
                        if re.match(rf"{re.escape(pair[0])}(?!\w)", rest)), None)
            if hit is None:
                break
            dropped.add(hit[1])
            rest = rest[len(hit[0]):]
    return [c for c in columns if c in dropped]


def find_families(text: str) -> list[str]:
    """The families the words restrict the run to ("only tree models"), less any they
    exclude ("boosting but not xgboost")."""
    named = next((families for pattern in (ONLY, ONLY_AFTER) for m in pattern.finditer(text)
                  # "don't use the tree_age column" is no ask; "try it with only ...": the
                  # first match that names a family
                  if not NEGATED.search(text[:m.start()])
                  and (families := families_named(m.group("what")))), [])
    excluded = find_excluded_families(text)
    return [f for f in named if f not in excluded]


def find_excluded_families(text: str) -> list[str]:
    """The families named after an exclusion cue, up to the end of its clause."""
    low = _norm(text)
    found: list[str] = []
    for cue in EXCLUDE_CUES.finditer(low):
        rest = low[cue.end():]
        end = EXCLUDE_SCOPE_END.search(rest)
        found += [f for f in families_named(rest[:end.start()] if end else rest)
                  if f not in found]
    return found


def without_columns(text: str, columns: Sequence[str]) -> str:
    """The text with the data's column names blanked out: "don't use the tree_age column"
    names a column, not the tree families."""
    low = _norm(text)
    for column in sorted(columns, key=len, reverse=True):
        low = re.sub(rf"(?<!\w){re.escape(_norm(column))}{PLURAL}(?!\w)", " ", low)
    return low


def families_named(what: str) -> list[str]:
    """The families the words name (agents/families/names.py), longest word first
    ("random forest" is not also "forest"), whole words, plural allowed."""
    what, found = f" {_norm(what)} ", []
    for word in sorted(FAMILY_WORDS, key=len, reverse=True):
        pattern = rf"(?<![a-z0-9]){re.escape(word)}(?:e?s)?(?![a-z0-9])"
        if re.search(pattern, what):
            found += [f for f in FAMILY_WORDS[word] if f not in found]
            what = re.sub(pattern, " ", what)
    return found


def find_target(text: str, columns: Sequence[str], exclude: Sequence[str] = ()) -> str | None:
    """The column right after a cue word ("predict churn", "for price"), else the one
    column named in the text."""
    return read_target(text, columns, exclude)[0]


def read_target(text: str, columns: Sequence[str],
                exclude: Sequence[str] = ()) -> tuple[str | None, bool]:
    """(column, guessed): the column right after a cue word, else the one column named,
    else a guess: the one column a word after a cue is part of ("predict food orders":
    num_orders)."""
    named = [c for c in find_columns(text, columns) if c not in exclude]
    low = re.sub(r"[\"'`]", "", _norm(text))
    for cue in TARGET_CUES:
        for match in re.finditer(rf"\b{cue}\s+(?:the\s+|column\s+|whether\s+)?", low):
            rest = low[match.end():]
            for column in sorted(named, key=len, reverse=True):
                if re.match(rf"{re.escape(_norm(column))}{PLURAL}(?!\w)", rest):
                    return column, False
    if len(named) == 1:
        return named[0], False
    return guess_target(low, [c for c in columns if c not in exclude]), True


def column_words(column: str) -> set[str]:
    """A column's words: "num_orders" -> num, orders, order; "IsDefaulter" -> is, defaulter."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", column)
    words = set(re.findall(r"[a-z]+", spaced.lower()))
    return words | {re.sub(r"e?s$", "", w) for w in words if len(w) > 3}


def guess_target(low: str, columns: Sequence[str]) -> str | None:
    """The one column that a content word right after a predict-like cue belongs to."""
    for match in re.finditer(r"\b(?:predict|predicting|forecast|estimate|determine|"
                             r"classify|detect)\s+(?P<words>(?:[a-z]+\s*){1,4})", low):
        for word in match.group("words").split():
            if word in GUESS_SKIP:
                continue
            stem = re.sub(r"e?s$", "", word) if len(word) > 3 else word
            hits = [c for c in columns if {word, stem} & column_words(c)]
            if len(hits) == 1:
                return hits[0]
    return None


GUESS_SKIP = frozenset(  # words after "predict" that never name a column
    "the a an whether which who if each for of in on to test data dataset values value "
    "results result submission using based and with from all this that".split())


def parse_request(text: str, columns: Sequence[str] = ()) -> TaskRequest:
    """The request's file, target, task, metric, budget, dropped columns and families.
    `columns`: the data's columns, when the file is already known and readable."""
    drops = find_drops(text, columns)
    target, guessed = read_target(text, columns, exclude=drops) if columns else (None, False)
    task = find_task_type(text)
    if task == "clustering":
        target = None
    data_path = find_file(text)
    return TaskRequest(
        data_path=data_path, dataset=None if data_path else find_dataset(text), target=target,
        target_guessed=guessed and target is not None, task_type=task,
        metric=find_metric(text), budget_s=find_budget(text),
        drop_columns=drops, families=find_families(without_columns(text, columns)),
        exclude_families=find_excluded_families(without_columns(text, columns)))


def parse_edit(text: str, columns: Sequence[str] = ()) -> PlanEdit:
    drops = find_drops(text, columns)
    target = None
    if re.search(r"\b(?:predict|target)\b", text, re.IGNORECASE):
        target = find_target(text, columns, exclude=drops)
    return PlanEdit(budget_s=find_budget(text), metric=find_metric(text),
                    task_type=find_task_type(text), drop_columns=drops,
                    families=find_families(without_columns(text, columns)),
                    exclude_families=find_excluded_families(without_columns(text, columns)),
                    target=target)


def is_approval(text: str) -> bool:
    """Approval words alone or strung together: "yes", "looks good, go"."""
    parts = re.split(r"\s*(?:[,;]|\band\b|\bthen\b|\bso\b)\s*", _norm(text).strip(" .!"))
    return all(p.strip(" .!") in APPROVE_WORDS for p in parts if p.strip(" .!")) and \
        any(p.strip(" .!") for p in parts)


def is_rejection(text: str) -> bool:
    """A no to the plan: "no", "cancel"; "no random forests" is an edit, not a no."""
    said = _norm(text).strip(" .!")
    if find_excluded_families(said):
        return False
    return said in REJECT_WORDS or bool(REJECT_START.match(said) and len(said.split()) <= 6)


class TextReading(BaseModel):
    """One message read: what it is, and the request's fields (an edit's, for an edit)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    intent: str  # request, edit, question, approval, rejection
    request: TaskRequest

    @property
    def target_guessed(self) -> bool:
        return self.request.target_guessed


def read_text(text: str, columns: Sequence[str] = ()) -> TextReading:
    """The one reader for CLI, chat and web: the intent and the fields, by the rules."""
    request = parse_request(text, columns)
    return TextReading(intent=read_intent(text, request, columns), request=request)


def read_intent(text: str, request: TaskRequest, columns: Sequence[str] = ()) -> str:
    """approval, rejection, question, request or edit, in that order of checks."""
    said = text.strip()
    if is_approval(said):
        return "approval"
    if is_rejection(said):
        return "rejection"
    if request.data_path and not QUESTION_START.match(said):
        return "request"
    if is_question(said, request):
        return "question"
    if request.target or request.task_type == "clustering" or request.dataset:
        return "request"
    if request.families or request.exclude_families or request.budget_s \
            or request.drop_columns or EDIT_VERBS.search(said):
        named = request.families or request.exclude_families  # a family choice: an edit
        return "request" if REQUEST_VERBS.match(said) and not named else "edit"
    return "request" if REQUEST_VERBS.match(said) else "question"


def is_question(said: str, request: TaskRequest) -> bool:
    """A question about a run: asked as one, about rows or importances, or a bare score."""
    if QUESTION_START.match(said) or ABOUT_ROWS.search(said):
        return True
    if said.endswith("?") and not (request.target and REQUEST_VERBS.match(said)):
        return not (request.drop_columns or request.families or request.exclude_families)
    return bool(METRIC_ONLY.search(said) and not EDIT_VERBS.search(said)
                and not REQUEST_VERBS.match(said))
