"""Red team (#26): attacks on the referee and the sandbox, each a real module run through the
real sandbox and referee, held to the honest outcome: the attack denied, or the candidate
scored on what its predictions earn, or a contract error of the candidate (never a crash).

The candidates avoid importing scikit-learn where they can (numpy-only models), so that a
job costs little more than the harness's own start and the module stays under a minute.
"""

from __future__ import annotations

import os
import resource
import stat
from pathlib import Path

import numpy as np
import pytest

from pipesmith.agents.diagnostician.agent import Diagnostician
from pipesmith.agents.executor import Executor
from pipesmith.agents.schemas import Candidate
from pipesmith.core import referee
from pipesmith.core.metrics import get_metric
from pipesmith.sandbox.safe_files import UnsafeFile, copy_regular
from tests.conftest import make_inputs

CENTROIDS = '''
import numpy as np


class Centroids:
    """Nearest centroid with softmax probabilities: honest, numpy only."""

    def fit(self, X, y):
        X, y = np.asarray(X, dtype=float), np.asarray(y)
        self.classes_ = np.unique(y)
        self.centres_ = np.stack([X[y == c].mean(axis=0) for c in self.classes_])
        return self

    def predict_proba(self, X):
        d = ((np.asarray(X, dtype=float)[:, None, :] - self.centres_) ** 2).sum(axis=2)
        e = np.exp(-(d - d.min(axis=1, keepdims=True)) / 50.0)
        return e / e.sum(axis=1, keepdims=True)

    def predict(self, X):
        return self.classes_[self.predict_proba(X).argmax(axis=1)]
'''


def candidate(code: str, name: str) -> Candidate:
    return Candidate(id="a1", name=name, phase="draft", code=code)


def diagnosis(result):
    return Diagnostician().diagnose_result(result, "def build_pipeline(task): ...")


@pytest.fixture(scope="module")
def digits(tmp_path_factory):
    inputs, _ = make_inputs(tmp_path_factory.mktemp("digits"), "digits", metric="roc_auc")
    return inputs


@pytest.fixture(scope="module")
def iris(tmp_path_factory):
    inputs, _ = make_inputs(tmp_path_factory.mktemp("iris"), "iris")
    return inputs


def test_a_symlink_left_by_the_refit_never_reaches_the_host(sandbox, tmp_path, iris):
    """Issue #26, 2: the refit job replaces model.joblib with a symlink to a host file and
    leaves a link to / and a FIFO; none is reproduced on the host, the refit is a contract
    error, and nothing on the host is read through a link."""
    secret = tmp_path / "host-secret.txt"
    secret.write_text("host secret")
    code = CENTROIDS + f'''
import atexit, os

def _swap():
    os.remove("model.joblib")
    os.symlink({str(secret)!r}, "model.joblib")
    os.symlink("/", "root")
    os.mkfifo("pipe")

atexit.register(_swap)

def build_pipeline(task):
    return Centroids()
'''
    workdir = tmp_path / "refit"
    result, scores = Executor(sandbox).refit(candidate(code, "symlink"), iris, workdir, 60)
    assert scores is None and result.exit_code == 3, result.stderr[-2000:]
    assert "wrote no model.joblib" in result.stderr
    assert diagnosis(result).subclass == "invalid_predictions"
    left = [p for p in workdir.rglob("*") if p.is_symlink() or not (p.is_file() or p.is_dir())]
    assert left == [] and not (workdir / "model.joblib").exists()
    # what the report's copy does with a link or a FIFO: refuses, never follows
    os.symlink(secret, tmp_path / "link")
    os.mkfifo(tmp_path / "fifo")
    for bad in ("link", "fifo"):
        with pytest.raises(UnsafeFile):
            copy_regular(tmp_path / bad, tmp_path / "copy", 1 << 20)
    assert not (tmp_path / "copy").exists()


def test_declared_classes_do_not_choose_the_metric(sandbox, tmp_path, digits):
    """Issue #26, 3: a class-0-vs-rest model on the 10 digits declares classes [1, 0]; it
    used to be scored as a binary ROC AUC (0.9999). Its classes are not the training
    classes: a contract error."""
    code = CENTROIDS + '''
class ZeroVsRest(Centroids):
    def fit(self, X, y):
        super().fit(X, (np.asarray(y) == 0).astype(int))
        self.classes_ = np.array([1, 0])  # "is zero" first
        return self

    def predict_proba(self, X):
        return super().predict_proba(X)[:, ::-1]

def build_pipeline(task):
    return ZeroVsRest()
'''
    result, metrics = Executor(sandbox).run(candidate(code, "zero_vs_rest"), digits,
                                            tmp_path / "a1", timeout_s=60, cv_folds=1)
    assert metrics is None and result.exit_code == 3, result.stderr[-2000:]
    assert "are not the training classes" in result.stderr
    assert diagnosis(result).subclass == "invalid_predictions"


def test_classes_in_any_order_are_scored_in_the_true_order(sandbox, tmp_path, digits):
    """Issue #26, 7: classes returned in reverse order used to make the metric raise (no
    report); the columns are put back in the training order and scored as the model earns."""
    code = CENTROIDS + '''
class Reversed(Centroids):
    def fit(self, X, y):
        super().fit(X, y)
        self.true_ = self.classes_
        self.classes_ = self.classes_[::-1]
        return self

    def predict_proba(self, X):
        return super().predict_proba(X)[:, ::-1]

    def predict(self, X):
        return self.true_[super().predict_proba(X).argmax(axis=1)]

def build_pipeline(task):
    return Reversed()
'''
    result, metrics = Executor(sandbox).run(candidate(code, "reversed"), digits,
                                            tmp_path / "a1", timeout_s=60, cv_folds=1)
    assert result.ok and metrics is not None, result.stderr[-2000:]
    # the same model scored here, in the true order
    import pandas as pd

    namespace: dict = {}
    exec(compile(CENTROIDS, "centroids", "exec"), namespace)  # noqa: S102 - our own code
    dev = pd.read_parquet(digits.data_path)
    fold = referee.fold_plan(dev, digits.target, "classification", 1, digits.seed)[0]
    X, y = dev.drop(columns=[digits.target]), dev[digits.target].to_numpy()
    model = namespace["Centroids"]().fit(X.iloc[fold.train], y[fold.train])
    honest = get_metric("roc_auc").score(y[fold.predict], None,
                                         proba=model.predict_proba(X.iloc[fold.predict]),
                                         classes=model.classes_)
    assert metrics["score"] == pytest.approx(honest, abs=1e-9) and honest > 0.9


BOMB = '''
import atexit, zipfile

def _bomb():  # after the harness: its predictions.npz becomes a 256 MB array in ~0.25 MB
    with zipfile.ZipFile("predictions.npz", "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("pred.npy", "w", force_zip64=True) as member:
            np.lib.format.write_array_header_1_0(
                member, {"descr": "<f8", "fortran_order": False, "shape": (32 << 20,)})
            block = bytes(1 << 24)
            for _ in range(16):
                member.write(block)

atexit.register(_bomb)

def build_pipeline(task):
    return Centroids()
'''


def test_a_decompression_bomb_is_a_contract_error_and_never_inflated(sandbox, tmp_path, iris):
    """Issue #26, 6: a small predictions.npz that inflates to 256 MB; its declared size is
    checked before anything is decompressed (the referee's peak memory does not move)."""
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result, metrics = Executor(sandbox).run(candidate(CENTROIDS + BOMB, "bomb"), iris,
                                            tmp_path / "a1", timeout_s=60, cv_folds=1)
    assert metrics is None and result.exit_code == 3, result.stderr[-2000:]
    assert "over the cap" in result.stderr
    assert (tmp_path / "a1" / "fold" / "predictions.npz").stat().st_size < 2 << 20
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before) / 1024
    assert grown_mb < 100, grown_mb
    assert diagnosis(result).subclass == "invalid_predictions"


def test_bundled_data_sets_are_not_readable_in_the_job(sandbox, tmp_path, digits):
    """Issue #26, 5: a model that loads the digits bundled with scikit-learn inside its job
    and looks every row up. The data folders are empty there: it earns the prior."""
    code = '''
import numpy as np


class LookUp:
    def fit(self, X, y):
        values, counts = np.unique(y, return_counts=True)
        self.classes_, self.prior_ = values, counts / counts.sum()
        self.table_ = {}
        try:
            from sklearn.datasets import load_digits
            data = load_digits()
            self.table_ = {tuple(r): t for r, t in zip(data.data, data.target)}
            print("LEAKED digits")
        except Exception as exc:
            print("no data:", type(exc).__name__)
        return self

    def predict_proba(self, X):
        out = np.tile(self.prior_, (len(X), 1))
        for i, row in enumerate(np.asarray(X, dtype=float)):
            if tuple(row) in self.table_:
                out[i] = self.classes_ == self.table_[tuple(row)]
        return out

    def predict(self, X):
        return self.classes_[self.predict_proba(X).argmax(axis=1)]

def build_pipeline(task):
    return LookUp()
'''
    result, metrics = Executor(sandbox).run(candidate(code, "lookup"), digits, tmp_path / "a1",
                                            timeout_s=60, cv_folds=1)
    assert result.ok, result.stderr[-2000:]
    assert "LEAKED" not in result.stdout and "no data: FileNotFoundError" in result.stdout
    assert metrics["score"] == pytest.approx(metrics["baseline_score"], abs=1e-9)


def test_the_clustering_job_never_sees_the_target(sandbox, tmp_path):
    """Issue #26, 8: the clustering job's train.parquet used to hold the true target."""
    inputs, _ = make_inputs(tmp_path, "iris", task_type="clustering")
    assert inputs.target
    code = f'''
import numpy as np
import pandas as pd


class Peek:
    def fit_predict(self, X):
        columns = list(pd.read_parquet("train.parquet").columns)
        print("SAW_TARGET" if {inputs.target!r} in columns else "features only", columns)
        return (np.asarray(X, dtype=float)[:, 2] > 2.5).astype(int)

def build_pipeline(task):
    return Peek()
'''
    result, metrics = Executor(sandbox).run(candidate(code, "peek"), inputs, tmp_path / "a1",
                                            timeout_s=60)
    assert result.ok and metrics is not None, result.stderr[-2000:]
    assert "features only" in result.stdout and "SAW_TARGET" not in result.stdout


CHANNELS = r'''
import ctypes, errno, fcntl, importlib.util, json, mmap, os, sqlite3, struct

libc = ctypes.CDLL(None, use_errno=True)
out = {}

def probe(name, call):
    try:
        value = call()
        if isinstance(value, int) and value < 0:
            raise OSError(ctypes.get_errno(), name)
        out[name] = "allowed"
    except OSError as exc:
        out[name] = errno.errorcode.get(exc.errno, str(exc.errno))

shared = os.open(os.__file__, os.O_RDONLY)  # a host file every job of the machine can open
probe("flock", lambda: fcntl.flock(shared, fcntl.LOCK_SH | fcntl.LOCK_NB))
probe("lockf", lambda: fcntl.lockf(shared, fcntl.LOCK_SH | fcntl.LOCK_NB))
probe("ofd_lock", lambda: fcntl.fcntl(shared, 37, struct.pack("hhqqi", 0, 0, 0, 0, 0)))
probe("dnotify", lambda: fcntl.fcntl(os.open("/usr", os.O_RDONLY), 1026, 1))
probe("fcntl_getfl", lambda: fcntl.fcntl(shared, fcntl.F_GETFL))
probe("fadvise", lambda: os.posix_fadvise(shared, 0, 0, os.POSIX_FADV_DONTNEED))
probe("readahead", lambda: libc.readahead(shared, ctypes.c_long(0), ctypes.c_size_t(4096)))
libc.mmap.restype = ctypes.c_void_p
page = libc.mmap(None, 4096, mmap.PROT_READ, mmap.MAP_SHARED, shared, 0)
probe("mincore", lambda: libc.mincore(ctypes.c_void_p(page), 4096, (ctypes.c_ubyte * 1)()))
probe("cachestat", lambda: libc.syscall(451, shared, None, None, 0))
probe("preadv2_nowait", lambda: os.preadv(shared, [bytearray(16)], 0, os.RWF_NOWAIT))
probe("pread", lambda: os.preadv(shared, [bytearray(16)], 0))
probe("inotify_init1", lambda: libc.inotify_init1(0))
probe("io_uring_setup", lambda: libc.syscall(425, 1, (ctypes.c_ubyte * 120)()))
sklearn = importlib.util.find_spec("sklearn").submodule_search_locations[0]
out["sklearn_data"] = sorted(os.listdir(os.path.join(sklearn, "datasets", "data")))
out["sqlite_memory"] = sqlite3.connect(":memory:").execute("select 1").fetchone()[0]
print(json.dumps(out))
'''


def test_anything_scoring_raises_is_the_candidates_contract_error():
    """Labels the metric cannot compare (text for numbers) used to crash the run."""
    checked = referee.check_predictions({"pred": np.array(["a", "b", "a"])}, 3,
                                        "classification", "f1_macro")
    with pytest.raises(referee.ContractViolation, match="could not be scored") as caught:
        referee.score("f1_macro", np.array([0, 1, 0]), checked)
    from pipesmith.sandbox.base import ExecResult

    result = ExecResult(status="error", exit_code=3,
                        stderr=f"pipesmith.harness.ContractError: {caught.value}\n")
    assert diagnosis(result).subclass == "invalid_predictions"


def test_a_file_the_job_swaps_for_a_link_is_never_read_through_it(tmp_path):
    """Without the scratch tmpfs (not root) the job writes into the host workdir itself."""
    os.symlink("/etc/hostname", tmp_path / "predictions.npz")
    with pytest.raises(referee.ContractViolation, match="symlink"):
        referee.load_returned(tmp_path, 10)
    assert stat.S_ISLNK(os.lstat(tmp_path / "predictions.npz").st_mode)
    assert Path(tmp_path / "predictions.npz").is_symlink()
