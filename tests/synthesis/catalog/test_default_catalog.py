"""The default catalog's cache: atomic writes, crashed writers cleaned up, concurrent writers, one
environment generated alone, and ``envfarm catalog build``."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import synthesis.catalog.default_catalog as dc
import synthesis.catalog.pipeline as pipeline
from envfarm.cli import main
from envs import Catalog
from synthesis.domains.ontology import load_ontology
from synthesis.dual import built_in_domains
from synthesis.knowledge.variant import MIN_TASKS

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache, generation allowed, and an ontology of one small domain (the ontology's own, whose
    draw has enough tasks that rest on a rule for its knowledge-base variant)."""
    root = tmp_path / "cache"
    monkeypatch.setenv("ENVFARM_CACHE_DIR", str(root))
    monkeypatch.delenv("ENVFARM_NO_GENERATE", raising=False)
    own = next(d for d in load_ontology() if d.id == "library_loans")
    monkeypatch.setattr(dc, "load_ontology", lambda: [own])
    monkeypatch.setattr(dc, "dual_domains", lambda: [])  # the dual-control ones: tests that want one add it
    return root


def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_staging_of_dead_writers_is_removed_and_live_writers_are_left_alone(cache: Path):
    envs = dc.default_envs_dir()
    envs.mkdir(parents=True)
    gone = dead_pid()
    legacy = cache / f"catalog-{dc.fingerprint()}.tmp{gone}"  # as writers before locks named it
    legacy.mkdir()
    (legacy / "half_written_env").mkdir()
    unlocked = cache / f"catalog-0123456789abcdef.tmp{os.getpid()}-aa11"  # lock file, nobody holds it
    unlocked.mkdir()
    (unlocked / ".writer").touch()
    one_env = envs / f"library_loans.tmp{gone}-bb22"
    one_env.mkdir()
    pointer = cache / f"current-catalog.tmp{gone}-cc33"
    pointer.write_text("x")
    live = cache / f"catalog-{dc.fingerprint()}.tmp{os.getpid()}-dd44"
    live.mkdir()
    starting = cache / f"catalog-{dc.fingerprint()}.tmp{os.getpid()}-ee55"  # no lock file yet, pid alive
    starting.mkdir()
    with open(live / ".writer", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        removed = dc.clean_stale()
    assert sorted(removed) == sorted([legacy, unlocked, one_env, pointer])
    assert not any(p.exists() for p in removed)
    assert live.is_dir() and starting.is_dir()


def test_a_writer_killed_mid_generation_leaves_a_cache_the_next_run_completes(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("ENVFARM_CACHE_DIR", str(cache))
    domains = load_ontology()[:4]
    monkeypatch.setattr(dc, "load_ontology", lambda: domains)
    monkeypatch.setattr(dc, "dual_domains", lambda: [])
    target = dc.default_catalog_dir()
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import synthesis.catalog.default_catalog as dc; from synthesis.domains.ontology import load_ontology; "
            "ds = load_ontology()[:4]; dc.load_ontology = lambda: ds; dc.dual_domains = lambda: []; "
            "dc.ensure_default_catalog(workers=2)",
        ],
        cwd=ROOT,
        env={**os.environ, "ENVFARM_CACHE_DIR": str(cache)},
    )
    try:
        deadline = time.monotonic() + 60
        while not any(p.is_dir() for p in cache.glob(f"{target.name}.tmp*/*")):  # one environment written
            assert writer.poll() is None and time.monotonic() < deadline, "the writer ended before it was killed"
            time.sleep(0.05)
        workers = [int(p) for p in Path(f"/proc/{writer.pid}/task/{writer.pid}/children").read_text().split()]
        writer.send_signal(signal.SIGKILL)
    finally:
        writer.kill()
        writer.wait()
    [staging] = cache.glob(f"{target.name}.tmp*")
    assert not target.exists()
    # The pool's workers notice that their parent is gone and exit (they held its locks, too).
    deadline = time.monotonic() + 10
    while alive := [pid for pid in workers if Path(f"/proc/{pid}").exists()]:
        if time.monotonic() > deadline:
            for pid in alive:  # not left behind by a failing test
                os.kill(pid, signal.SIGKILL)
            raise AssertionError("orphaned pool workers are still running")
        time.sleep(0.05)

    assert dc.ensure_default_catalog(workers=2) == target
    assert dc.is_built(target) and not staging.exists()
    assert list(cache.glob("*.tmp*")) == []
    made = sorted(p.name for p in target.iterdir() if p.is_dir())
    assert [n for n in made if not n.endswith("_kb")] == [d.id for d in domains]  # and their variants
    assert {n.removesuffix("_kb") for n in made} == {d.id for d in domains}
    assert {d.id for d in domains} <= set(Catalog().ids())


def test_a_second_writer_waits_for_the_first_and_uses_its_catalog(cache: Path, monkeypatch):
    runs: list[int] = []
    running = threading.Event()
    real = pipeline.run_pipeline

    def counted(*args, **kwargs):
        runs.append(1)
        running.set()
        time.sleep(0.3)  # the second writer arrives while this one holds the lock
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "run_pipeline", counted)
    waited = threading.Event()
    results: list[Path] = []
    first = threading.Thread(target=lambda: results.append(dc.ensure_default_catalog(workers=1)))
    first.start()
    assert running.wait(30)
    second = threading.Thread(target=lambda: results.append(dc.ensure_default_catalog(workers=1, on_wait=waited.set)))
    second.start()
    first.join(60)
    second.join(60)
    assert waited.is_set() and len(runs) == 1
    assert results == [dc.default_catalog_dir()] * 2 and dc.is_built()


def test_one_environment_alone_is_the_same_as_in_the_whole_catalog(cache: Path):
    alone = dc.default_env_dir("library_loans")
    assert alone == dc.default_envs_dir() / "library_loans"
    assert dc.default_env_dir("library_loans") == alone  # cached
    assert dc.default_env_dir("no_such_domain") is None
    assert not dc.is_built()
    whole = dc.ensure_default_catalog(workers=1)
    assert files(alone) == files(whole / "library_loans")
    assert dc.default_env_dir("library_loans") == whole / "library_loans"
    assert list(cache.rglob("*.tmp*")) == []


def test_a_knowledge_base_variant_alone_is_the_same_as_in_the_whole_catalog(cache: Path):
    alone = dc.default_env_dir("library_loans_kb")  # made from its source, made alone first
    assert alone == dc.default_envs_dir() / "library_loans_kb"
    assert sorted(p.name for p in dc.default_envs_dir().iterdir()) == ["library_loans_kb"]
    assert dc.default_env_dir("no_such_domain_kb") is None
    whole = dc.ensure_default_catalog(workers=1)
    assert files(alone) == files(whole / "library_loans_kb")
    assert json.loads((whole / "knowledge-base-measures.json").read_text())["total"]["envs"] == 1


def test_a_domain_that_fails_synthesis_is_refused_with_its_reason(cache: Path, monkeypatch):
    def rejected(domain, variant, config):
        return pipeline.EnvOutcome(
            env_id=domain.id, domain=domain.id, sector=domain.sector, status="rejected", reason="too_thin: 3 tools"
        )

    monkeypatch.setattr(pipeline, "synthesize_one", rejected)
    with pytest.raises(dc.SynthesisFailed) as err:
        dc.default_env_dir("library_loans")
    assert str(err.value) == "environment 'library_loans' did not pass synthesis (too_thin: 3 tools)"
    assert list(dc.default_envs_dir().iterdir()) == []


def test_catalog_build_generates_once_then_says_where_it_is(cache: Path, capsys):
    stale = cache / f"catalog-{dc.fingerprint()}.tmp{dead_pid()}"
    stale.mkdir(parents=True)
    assert main(["catalog", "build", "--workers", "1"]) == 0
    out, err = capsys.readouterr()
    path = dc.default_catalog_dir()
    assert f"removed {stale.name}, left unfinished by an envfarm process that was stopped" in err
    assert out.startswith("built the default catalog in ")
    kb = len(Catalog(path).get("library_loans_kb").tasks)
    assert kb >= MIN_TASKS
    what = f"1 environment with 30 tasks, 1 knowledge-base variant with {kb} tasks, plus 2 reference environments"
    assert out.rstrip().endswith(f" s at {path}: {what}")
    assert dc.is_built(path) and not stale.exists()

    assert main(["catalog", "build"]) == 0
    out, err = capsys.readouterr()
    assert out == f"the default catalog is already built at {path}: {what}\n"
    assert err == ""


def test_catalog_build_says_when_ENVFARM_CATALOG_overrides_it(cache: Path, capsys, monkeypatch):
    monkeypatch.setenv("ENVFARM_CATALOG", str(ROOT / "envs" / "catalog"))
    assert main(["catalog", "build", "--workers", "1"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("built the default catalog in ")
    assert "note: ENVFARM_CATALOG is set, so envfarm commands use that catalog instead until it is unset" in err


def test_catalog_build_waits_for_another_process_building_it(cache: Path, capsys):
    cache.mkdir()
    target = dc.default_catalog_dir()
    done: list[int] = []
    with open(target.with_name(target.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # as another envfarm process generating the catalog would
        builder = threading.Thread(target=lambda: done.append(main(["catalog", "build", "--workers", "1"])))
        builder.start()
        err = ""
        deadline = time.monotonic() + 30
        while "waiting" not in err:
            assert time.monotonic() < deadline
            time.sleep(0.05)
            err += capsys.readouterr().err
        assert not done  # it waits while the lock is held
    builder.join(60)
    out, err2 = capsys.readouterr()
    assert "another envfarm process is generating the default catalog; waiting for it to finish" in err + err2
    assert done == [0] and out.startswith("built the default catalog")


def test_the_dual_control_domains_are_part_of_the_catalog_and_each_can_be_made_alone(cache: Path, monkeypatch, capsys):
    phone = next(d for d in built_in_domains() if d.id == "mobile_phone")
    monkeypatch.setattr(dc, "dual_domains", lambda: [phone])
    assert dc.default_env_ids() == ["library_loans", "mobile_phone"]
    alone = dc.default_env_dir("mobile_phone")
    assert alone == dc.default_envs_dir() / "mobile_phone" and not dc.is_built()
    assert main(["catalog", "build", "--workers", "1"]) == 0
    whole = dc.default_catalog_dir()
    assert files(alone) == files(whole / "mobile_phone")  # the same environment, byte for byte
    kb = len(Catalog(whole).get("library_loans_kb").tasks)
    assert (
        capsys.readouterr()
        .out.rstrip()
        .endswith(
            ": 1 environment with 30 tasks, 1 dual-control environment with 24 tasks, "
            f"1 knowledge-base variant with {kb} tasks, plus 2 reference environments"
        )
    )
    entry = Catalog(whole).get("mobile_phone")
    assert entry.spec.dual_control and any(a.actor == "user" for t in entry.tasks for a in t.gold_actions)
