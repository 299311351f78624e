# diffprivlib's LogisticRegression(epsilon=1, data_norm=1, C=1, no intercept) on benches/peers/run's
# files, random_state 0..K-1: test log-loss mean ± s.e. (as run.py computes it), to set beside
# `cargo run --release --example op_residual -- K 2 3` (ours on the same files).
# target/peers/venv/bin/python benches/peers/diffprivlib_seeds.py target/peers/data 40
import json, sys, warnings
from pathlib import Path
import numpy as np
from diffprivlib.models import LogisticRegression
data = Path(sys.argv[1]); K = int(sys.argv[2])
def load(name):
    meta = json.loads((data / "meta.json").read_text())[name]
    x = np.fromfile(data / f"{name}_x.f64", dtype="<f8").reshape(meta["n"], meta["d"])
    return x, np.fromfile(data / f"{name}_y.f64", dtype="<f8")
(x, y), (xt, yt) = load("lr"), load("lr_test")
losses = []
for seed in range(K):
    m = LogisticRegression(epsilon=1.0, data_norm=1.0, fit_intercept=False, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore"); m.fit(x, y)
    p = np.clip(m.predict_proba(xt)[:, list(m.classes_).index(1.0)], 1e-15, 1 - 1e-15)
    losses.append(float(-np.mean(np.where(yt > 0, np.log(p), np.log1p(-p)))))
l = np.array(losses)
print(f"diffprivlib {K} seeds: test log-loss mean {l.mean():.6f} ± {l.std(ddof=1)/np.sqrt(K):.6f} (median {np.median(l):.6f}, min {l.min():.6f}, max {l.max():.6f})")
