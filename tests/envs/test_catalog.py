"""The catalog: every shipped environment passes ``check_env``; load errors name the file and JSON path."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from envs import paths
from envs.catalog import Catalog, load_env, load_env_dir
from envs.check import check_env
from envs.errors import CatalogError, InvalidEnvironment, SpecError, UnknownEnvironment, UnknownTask
from tests.envs.specs import SHOP, TASK

BUILTIN = Catalog(paths.BUILTIN_CATALOG)


@pytest.mark.parametrize("env_id", BUILTIN.ids())
def test_builtin_environment_passes_check_env(env_id: str) -> None:
    entry = BUILTIN.get(env_id)
    assert entry.spec.id == env_id
    report = check_env(entry.spec, entry.tasks)
    assert report.ok, "\n".join(map(str, report.problems))
    assert report.tasks_passed == len(entry.tasks)


def test_builtin_catalog_has_the_reference_environments() -> None:
    assert {"clinic", "retail"} <= set(BUILTIN.ids())
    assert BUILTIN.ids() == sorted(BUILTIN.ids())


# -- a catalog in tmp_path -------------------------------------------------------------------------------


def write_env(
    root: Path,
    env_id: str = "shop",
    *,
    spec: dict[str, Any] | None = None,
    tasks: list[dict[str, Any]] | None = None,
    seed_in_file: bool = True,
    spec_text: str | None = None,
    tasks_text: str | None = None,
) -> Path:
    """Write SHOP (or ``spec``) as a catalog directory: spec.json, seed.json, policy.md, tasks.json."""
    data = copy.deepcopy(SHOP if spec is None else spec)
    data["id"] = env_id
    directory = root / env_id
    directory.mkdir(parents=True)
    policy = data.pop("policy", "")
    if seed_in_file:
        (directory / "seed.json").write_text(json.dumps(data.pop("seed")), encoding="utf-8")
    (directory / "policy.md").write_text(policy, encoding="utf-8")
    (directory / "spec.json").write_text(
        spec_text if spec_text is not None else json.dumps(data, indent=2), encoding="utf-8"
    )
    if tasks_text is not None:
        (directory / "tasks.json").write_text(tasks_text, encoding="utf-8")
    elif tasks is not None:
        (directory / "tasks.json").write_text(
            json.dumps([{**t, "env": t.get("env", env_id)} for t in tasks]), encoding="utf-8"
        )
    return directory


def test_tmp_catalog_loads(tmp_path: Path) -> None:
    write_env(tmp_path, tasks=[TASK])
    (tmp_path / "not-an-env").mkdir()
    cat = Catalog(tmp_path)
    assert cat.ids() == ["shop"]
    entry = cat.get("shop")
    assert entry.path == tmp_path / "shop"
    assert entry.spec.policy == "Be nice."
    assert entry.spec.seed["accounts"][0]["account_id"] == "U1"
    assert [t.id for t in entry.tasks] == ["shop-1"]
    assert entry.task("shop-1").env == "shop"
    assert cat.get("shop") is entry  # cached
    assert entry.environment is entry.environment  # compiled once
    assert check_env(entry.spec, entry.tasks).ok
    found_entry, found_task = cat.task("shop-1")
    assert found_entry is entry and found_task.id == "shop-1"
    assert load_env("shop", tmp_path).spec.id == "shop"


def test_env_var_selects_the_default_catalog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_env(tmp_path, "tiny")
    monkeypatch.setenv("ENVFARM_CATALOG", str(tmp_path))
    assert Catalog().ids() == ["tiny"]
    monkeypatch.delenv("ENVFARM_CATALOG")
    assert Catalog().root == paths.BUILTIN_CATALOG


def test_missing_catalog_directory(tmp_path: Path) -> None:
    with pytest.raises(CatalogError) as info:
        Catalog(tmp_path / "nope")
    assert info.value.source == str(tmp_path / "nope")
    assert "catalog directory not found" in str(info.value)


def test_unknown_environment_suggests_close_ids(tmp_path: Path) -> None:
    write_env(tmp_path, "shop")
    write_env(tmp_path, "clinic")
    cat = Catalog(tmp_path)
    with pytest.raises(UnknownEnvironment) as info:
        cat.get("shpo")
    assert info.value.env_id == "shpo"
    assert str(info.value) == "Environment 'shpo' doesn't exist. Did you mean 'shop'?"
    with pytest.raises(UnknownEnvironment) as info:
        cat.get("zzzzzz")
    assert "Did you mean" not in str(info.value)
    with pytest.raises(UnknownEnvironment):
        cat.get("../shop")  # no path tricks


def test_unknown_task_suggests_close_ids(tmp_path: Path) -> None:
    write_env(tmp_path, tasks=[TASK])
    cat = Catalog(tmp_path)
    with pytest.raises(UnknownTask, match=r"Task 'shop-2' doesn't exist\. Did you mean 'shop-1'\?"):
        cat.task("shop-2")
    with pytest.raises(UnknownTask, match="Did you mean 'shop-1'"):
        cat.get("shop").task("shop-11")


def test_bad_json_names_file_line_and_column(tmp_path: Path) -> None:
    write_env(tmp_path, spec_text='{"id": "shop",\n  "name": }')
    with pytest.raises(SpecError) as info:
        Catalog(tmp_path).get("shop")
    assert info.value.source == str(tmp_path / "shop" / "spec.json")
    assert "invalid JSON" in str(info.value)
    assert "line 2, column 11" in str(info.value)


def test_bad_json_in_tasks_file_is_named(tmp_path: Path) -> None:
    write_env(tmp_path, tasks_text="[{]")
    with pytest.raises(SpecError) as info:
        Catalog(tmp_path).get("shop")
    assert info.value.source == str(tmp_path / "shop" / "tasks.json")


def test_unknown_key_deep_in_a_step_names_file_and_json_path(tmp_path: Path) -> None:
    spec = copy.deepcopy(SHOP)
    spec["tools"][0]["steps"][0]["bogus"] = 1
    write_env(tmp_path, spec=spec)
    with pytest.raises(SpecError) as info:
        Catalog(tmp_path).get("shop")
    err = info.value
    assert err.source == str(tmp_path / "shop" / "spec.json")
    assert err.location == "tools[0].steps[0].bogus"
    assert str(err) == f"{tmp_path / 'shop' / 'spec.json'}: at tools[0].steps[0].bogus: Extra inputs are not permitted"


def test_bad_value_in_a_step_names_its_json_path(tmp_path: Path) -> None:
    spec = copy.deepcopy(SHOP)
    spec["tools"][2]["steps"][1]["mode"] = "maybe"
    write_env(tmp_path, spec=spec)
    with pytest.raises(SpecError) as info:
        Catalog(tmp_path).get("shop")
    assert info.value.location == "tools[2].steps[1].mode"
    assert "'true' or 'empty'" in str(info.value)


def test_tool_rule_violation_names_the_tool(tmp_path: Path) -> None:
    spec = copy.deepcopy(SHOP)
    spec["tools"][1]["steps"][0]["sql"] = "SELECT * FROM orders WHERE order_id = :oder_id"
    write_env(tmp_path, spec=spec)
    with pytest.raises(SpecError) as info:
        Catalog(tmp_path).get("shop")
    assert info.value.location == "tools[1]"
    assert "tool 'get_order' steps[0]: SQL uses :oder_id" in str(info.value)


def test_several_errors_are_counted(tmp_path: Path) -> None:
    spec = copy.deepcopy(SHOP)
    spec["colour"] = 1
    spec["flavour"] = 2
    write_env(tmp_path, spec=spec)
    with pytest.raises(SpecError, match=r"\(and 1 more error\(s\)\)"):
        Catalog(tmp_path).get("shop")


def test_seed_error_names_the_seed_file(tmp_path: Path) -> None:
    spec = copy.deepcopy(SHOP)
    spec["seed"]["orders"][1]["colour"] = "red"
    write_env(tmp_path, spec=spec)
    with pytest.raises(SpecError) as info:
        Catalog(tmp_path).get("shop")
    assert info.value.source == str(tmp_path / "shop" / "seed.json")
    assert "seed.orders[1] has unknown column(s) ['colour']" in str(info.value)


def test_seed_in_both_files_is_rejected(tmp_path: Path) -> None:
    directory = write_env(tmp_path)
    spec = json.loads((directory / "spec.json").read_text())
    spec["seed"] = {}
    (directory / "spec.json").write_text(json.dumps(spec))
    with pytest.raises(SpecError) as info:
        Catalog(tmp_path).get("shop")
    assert info.value.location == "seed"
    assert "both here and in seed.json" in str(info.value)


def test_seed_file_must_be_an_object(tmp_path: Path) -> None:
    directory = write_env(tmp_path)
    (directory / "seed.json").write_text("[]")
    with pytest.raises(SpecError) as info:
        Catalog(tmp_path).get("shop")
    assert info.value.source == str(directory / "seed.json")


def test_seed_inline_in_spec_is_accepted(tmp_path: Path) -> None:
    write_env(tmp_path, seed_in_file=False)
    assert len(Catalog(tmp_path).get("shop").spec.seed["orders"]) == 2


def test_directory_name_must_equal_the_spec_id(tmp_path: Path) -> None:
    directory = write_env(tmp_path, "shop")
    directory.rename(tmp_path / "store")
    with pytest.raises(SpecError) as info:
        Catalog(tmp_path).get("store")
    assert info.value.location == "id"
    assert "spec id 'shop' differs from its directory name 'store'" in str(info.value)


def test_task_with_the_wrong_env_names_file_and_index(tmp_path: Path) -> None:
    other = {**TASK, "id": "shop-2", "env": "clinic"}
    write_env(tmp_path, tasks=[TASK, other])
    with pytest.raises(SpecError) as info:
        Catalog(tmp_path).get("shop")
    assert info.value.source == str(tmp_path / "shop" / "tasks.json")
    assert info.value.location == "[1].env"
    assert "task 'shop-2' belongs to env 'clinic', not 'shop'" in str(info.value)


def test_task_with_an_unknown_key_names_its_path(tmp_path: Path) -> None:
    bad = copy.deepcopy(TASK)
    bad["gold_actions"][2]["argument"] = {}
    write_env(tmp_path, tasks=[{**TASK, "id": "ok"}, bad])
    with pytest.raises(SpecError) as info:
        Catalog(tmp_path).get("shop")
    assert info.value.location == "[1].gold_actions[2].argument"


def test_duplicate_task_ids_are_rejected(tmp_path: Path) -> None:
    write_env(tmp_path, tasks=[TASK, TASK])
    with pytest.raises(SpecError) as info:
        Catalog(tmp_path).get("shop")
    assert info.value.location == "[1].id"
    assert "task id 'shop-1' appears twice" in str(info.value)


def test_tasks_file_must_be_a_list(tmp_path: Path) -> None:
    write_env(tmp_path, tasks_text=json.dumps(TASK))
    with pytest.raises(SpecError, match="expected a JSON list of tasks"):
        Catalog(tmp_path).get("shop")


def test_missing_spec_file_is_a_catalog_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(CatalogError, match="file not found"):
        load_env_dir(tmp_path / "empty")


def test_an_invalid_environment_is_left_out_of_entries_and_remembered(tmp_path: Path) -> None:
    write_env(tmp_path, "shop")
    write_env(tmp_path, "broken", spec_text='{"id": "broken"')
    catalog = Catalog(tmp_path)
    assert [e.spec.id for e in catalog.entries()] == ["shop"]
    (invalid,) = catalog.invalid().values()
    assert invalid.env_id == "broken" and invalid.reason.startswith("broken/spec.json: invalid JSON")
    # to the library it reads as the validation error it wraps
    with pytest.raises(SpecError) as info:
        catalog.get("broken")
    assert info.value is invalid and isinstance(info.value, InvalidEnvironment)
    assert info.value.source == str(tmp_path / "broken" / "spec.json")
    assert str(info.value).startswith(f"{tmp_path / 'broken' / 'spec.json'}: invalid JSON")


def test_a_folder_without_environments_is_refused_as_no_catalog(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from envfarm.cli import cli

    runs = tmp_path / "runs"
    (runs / "oracle").mkdir(parents=True)
    (runs / "oracle" / "report.json").write_text("{}", encoding="utf-8")
    with pytest.raises(CatalogError, match="not a catalog: no environment folder"):
        Catalog(runs)
    for argv in (["envs", "list", "--catalog", str(runs)], ["serve", "--catalog", str(runs), "--port", "0"]):
        result = CliRunner().invoke(cli, argv)
        assert result.exit_code != 0, argv
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and "not a catalog" in lines[0] and str(runs) in lines[0], result.output
