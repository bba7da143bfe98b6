"""The per-file validation of an archive on a distributed engine: a dask.distributed
LocalCluster of two worker processes, through ``Client.get_executor()`` (docs/archives.md)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from agui_fsm.conformance.batch import Summary, expand, validate_files

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.jsonl"))

try:
    from dask.distributed import Client, LocalCluster
except ImportError:  # pragma: no cover - scripts/test installs the dask extra
    if os.environ.get("CI"):
        raise
    pytest.skip(
        "dask.distributed is not installed: pip install -e '.[dask]' (scripts/test does)",
        allow_module_level=True,
    )


def test_an_archive_validated_on_two_dask_workers_matches_one_process(tmp_path) -> None:
    for copy in range(3):
        for path in EXAMPLES:
            shutil.copy(path, tmp_path / f"{copy}-{path.name}")
    paths = expand(str(tmp_path))
    alone = list(validate_files(paths))
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        Client(cluster) as client,
    ):
        assert len(client.scheduler_info()["workers"]) == 2
        spread = list(validate_files(paths, executor=client.get_executor(), batch_size=4))
        workers = {name for name, _ in client.run(os.getpid).items()}
        assert len(workers) == 2
    assert [r.name for r in spread] == [r.name for r in alone] == [str(p) for p in paths]
    assert [r.report.as_dict() for r in spread] == [r.report.as_dict() for r in alone]
    summary = Summary().extend(spread)
    assert summary.as_dict() == Summary().extend(alone).as_dict()
    assert summary.files == 3 * len(EXAMPLES) and summary.invalid > 0
    # every rule's count is the sum over the files, each file counted once per rule
    for rule, (count, files) in summary.rules.items():
        in_files = [r for r in alone if rule in r.report.rules()]
        assert files == len(in_files)
        assert count == sum(v.rule == rule for r in in_files for v in r.report.violations)
