"""Malformed tau2 folders: every one is refused by ``envfarm import tau2`` with exit code 1 and one
line on stderr naming the file and the field, and leaves nothing in the output folder.

Each case copies tau2's retail files (../shared/tau2, or $ENVFARM_TAU2_DIR) into a temporary folder
and breaks one thing in them.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from envfarm.cli import main
from synthesis.tau2 import Tau2ImportError, import_domain

from .reference import TAU2_DIR, needs_tau2

pytestmark = needs_tau2

# the first product, variant, user, payment method and order of tau2's retail db.json
PRODUCT, VARIANT, USER, METHOD, ORDER = "9523456873", "9612497925", "noah_brown_6181", "paypal_5727330", "#W2611340"


def _edit_json(name: str, change: Callable[[Any], Any]) -> Callable[[Path], None]:
    """Load ``name``, change it (in place, or return a replacement), write it back."""

    def edit(folder: Path) -> None:
        data = json.loads((folder / name).read_text(encoding="utf-8"))
        replaced = change(data)
        (folder / name).write_text(json.dumps(data if replaced is None else replaced), encoding="utf-8")

    return edit


def _write(name: str, content: str | bytes) -> Callable[[Path], None]:
    def write(folder: Path) -> None:
        path = folder / name
        path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content, encoding="utf-8")

    return write


def _set(*path_and_value: Any) -> Callable[[Any], None]:
    """Set the value at a path (keys and indexes) in the loaded JSON."""
    *path, value = path_and_value

    def change(data: Any) -> None:
        node = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return change


def _delete(*path: Any) -> Callable[[Any], None]:
    def change(data: Any) -> None:
        node = data
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]

    return change


def _raw_replace(name: str, old: str, new: str | bytes) -> Callable[[Path], None]:
    """Replace bytes in the file as written: for what ``json.dumps`` cannot write (NaN, 1e999, huge
    integers, bytes that are not UTF-8)."""

    def edit(folder: Path) -> None:
        raw = (folder / name).read_bytes()
        assert old.encode() in raw
        (folder / name).write_bytes(raw.replace(old.encode(), new if isinstance(new, bytes) else new.encode(), 1))

    return edit


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"a": value}
    return value


def _two_tasks_with_ids(first: Any, second: Any) -> Callable[[Any], None]:
    def change(tasks: list[Any]) -> None:
        tasks[0]["id"], tasks[1]["id"] = first, second

    return change


@dataclass(frozen=True)
class Case:
    name: str
    breaks: Callable[[Path], None]
    file: str
    says: str  # what the one line must hold after the file name: the field and the problem


VARIANT_PRICE = f"products.{PRODUCT}.variants.{VARIANT}.price"
CASES = [
    Case(
        "db deeper than the parser reads",
        _write("db.json", "[" * 100_000 + "]" * 100_000),
        "db.json",
        "line 1, column 65: nested deeper than 64 levels",
    ),
    Case(
        "a field nested too deep",
        _edit_json("db.json", _set("products", PRODUCT, "variants", VARIANT, "options", _nested(200))),
        "db.json",
        f"products.{PRODUCT}.variants.{VARIANT}.options.a.a.a…: nested deeper than 64",
    ),
    Case("db not JSON", _write("db.json", '{"products": {'), "db.json", "line 1, column 15: invalid JSON"),
    Case("db not UTF-8", _raw_replace("db.json", '"T-Shirt"', b'"T-Shirt\xff"'), "db.json", "not UTF-8"),
    Case("a table missing", _edit_json("db.json", _delete("orders")), "db.json", "orders: missing"),
    Case(
        "a record not an object",
        _edit_json("db.json", _set("users", USER, [])),
        "db.json",
        f"users.{USER}: expected object, got a list",
    ),
    Case(
        "a price as text",
        _edit_json("db.json", _set("products", PRODUCT, "variants", VARIANT, "price", "50.88")),
        "db.json",
        f"{VARIANT_PRICE}: expected number, got a string",
    ),
    Case(
        "a price of 1e999",
        _raw_replace("db.json", '"price": 50.88', '"price": 1e999'),
        "db.json",
        f"{VARIANT_PRICE}: inf is not a finite number",
    ),
    Case(
        "a price of NaN",
        _raw_replace("db.json", '"price": 50.88', '"price": NaN'),
        "db.json",
        f"{VARIANT_PRICE}: nan is not a finite number",
    ),
    Case(
        "a price of -Infinity",
        _raw_replace("db.json", '"price": 50.88', '"price": -Infinity'),
        "db.json",
        f"{VARIANT_PRICE}: -inf is not a finite number",
    ),
    Case(
        "an integer beyond 64 bits",
        _raw_replace("db.json", '"price": 50.88', '"price": 36893488147419103232'),
        "db.json",
        f"{VARIANT_PRICE}: the integer does not fit in 64 bits",
    ),
    Case(
        "a missing first name",
        _edit_json("db.json", _delete("users", USER, "name", "first_name")),
        "db.json",
        f"users.{USER}.name.first_name: missing",
    ),
    Case(
        "order ids not a list",
        _edit_json("db.json", _set("users", USER, "orders", "#W7678072")),
        "db.json",
        f"users.{USER}.orders: expected array, got a string",
    ),
    Case(
        "a value the table refuses",
        _edit_json("db.json", _set("users", USER, "payment_methods", METHOD, "source", "bitcoin")),
        "db.json",
        f"users.{USER}.payment_methods.{METHOD}.source: 'bitcoin' is not one of credit_card, paypal, gift_card",
    ),
    Case(
        "an order of nobody", _edit_json("db.json", _set("orders", ORDER, "user_id", "nobody_0")), "db.json", "nobody_0"
    ),
    Case("tasks not a list", _write("tasks.json", "{}"), "tasks.json", "(root): expected array, got an object"),
    Case(
        "a task not an object",
        _edit_json("tasks.json", _set(3, "refund me")),
        "tasks.json",
        "[3]: expected object, got a string",
    ),
    Case("a task without id", _edit_json("tasks.json", _delete(0, "id")), "tasks.json", "[0].id: missing"),
    Case(
        "an id that is a list",
        _edit_json("tasks.json", _set(2, "id", ["2"])),
        "tasks.json",
        "[2].id: expected string or integer, got a list",
    ),
    Case(
        "ids colliding after sanitising",
        _edit_json("tasks.json", _two_tasks_with_ids("a/b", "a_b")),
        "tasks.json",
        "[1].id: 'a_b' becomes task id 'tau2_retail-a_b', as does [0].id 'a/b'",
    ),
    Case(
        "an id twice",
        _edit_json("tasks.json", _two_tasks_with_ids("7", 7)),
        "tasks.json",
        "[1].id: 7 is the same id as [0].id '7'",
    ),
    Case(
        "an action not an object",
        _edit_json("tasks.json", _set(0, "evaluation_criteria", "actions", 1, 5)),
        "tasks.json",
        "[0].evaluation_criteria.actions[1]: expected object, got a number",
    ),
    Case(
        "arguments a list",
        _edit_json("tasks.json", _set(0, "evaluation_criteria", "actions", 0, "arguments", [1])),
        "tasks.json",
        "[0].evaluation_criteria.actions[0].arguments: expected object or null, got a list",
    ),
    Case(
        "reward basis a string",
        _edit_json("tasks.json", _set(0, "evaluation_criteria", "reward_basis", "DB")),
        "tasks.json",
        "[0].evaluation_criteria.reward_basis: expected array or null, got a string",
    ),
    Case(
        "an output of NaN",
        _raw_replace("tasks.json", '"communicate_info": []', '"communicate_info": [NaN]'),
        "tasks.json",
        "communicate_info[0]: nan is not a finite number",
    ),
    Case(
        "tasks not UTF-8",
        _write("tasks.json", b'[{"id": "\xff"}]'),
        "tasks.json",
        "line 1: not UTF-8 text (byte 0xff at offset 9)",
    ),
    Case(
        "an initial state",
        _edit_json("tasks.json", _set(0, "initial_state", {"x": 1})),
        "tasks.json",
        "[0].initial_state: task '0' has one",
    ),
    Case(
        "policy not UTF-8",
        _write("policy.md", b"# Policy\n\nBe kind." + b"\n\xc3(\n"),
        "policy.md",
        "line 4: not UTF-8 text (byte 0xc3 at offset 19)",
    ),
    Case("policy missing", lambda folder: (folder / "policy.md").unlink(), "policy.md", "is missing"),
    Case(
        "splits not lists",
        _edit_json("split_tasks.json", _set("train", {"0": True})),
        "split_tasks.json",
        "train: expected array, got an object",
    ),
]


def _writable(folder: Path) -> None:
    """The shared copy of tau2's data is read-only; each case changes a copy of its own."""
    folder.chmod(0o755)
    for path in folder.iterdir():
        path.chmod(0o644)


@pytest.fixture(scope="module")
def retail_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tau2-retail") / "retail"
    shutil.copytree(TAU2_DIR / "data" / "retail", folder)
    _writable(folder)
    return folder


def _folder_with(case: Case, retail_files: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "retail"
    shutil.copytree(retail_files, folder)
    case.breaks(folder)
    return folder


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_malformed_folder_is_refused_in_one_line_naming_file_and_field(
    case: Case, retail_files: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder_with(case, retail_files, tmp_path)
    out = tmp_path / "out"
    code = main(["import", "tau2", str(folder), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 1
    assert err.count("\n") == 1 and err.startswith(f"error: {folder / case.file}"), err
    assert case.says in err, err
    assert "Traceback" not in err
    assert not out.exists() or list(out.iterdir()) == []


def test_the_library_raises_the_typed_error_and_writes_nothing(retail_files: Path, tmp_path: Path) -> None:
    case = next(c for c in CASES if c.name == "ids colliding after sanitising")
    folder = _folder_with(case, retail_files, tmp_path)
    with pytest.raises(Tau2ImportError, match=r"tasks\.json: \[1\]\.id: 'a_b' becomes task id"):
        import_domain(folder, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_malformed_second_domain_leaves_the_first_unwritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every domain is checked before any is written: valid retail beside broken airline writes nothing."""
    data = tmp_path / "data"
    for domain in ("retail", "airline"):
        shutil.copytree(TAU2_DIR / "data" / domain, data / domain)
        _writable(data / domain)
    (data / "airline" / "policy.md").write_bytes(b"\xff")
    out = tmp_path / "out"
    assert main(["import", "tau2", str(data), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {data / 'airline' / 'policy.md'}: line 1: not UTF-8") and err.count("\n") == 1
    assert not out.exists()


def test_the_bench_reads_a_malformed_folder_as_the_importer_does(retail_files: Path, tmp_path: Path) -> None:
    from synthesis.bench.tau2 import bench_tau2_retail

    case = next(c for c in CASES if c.name == "a price of 1e999")
    folder = _folder_with(case, retail_files, tmp_path)
    with pytest.raises(Tau2ImportError, match=rf"db\.json: {re.escape(VARIANT_PRICE)}: inf is not a finite number$"):
        bench_tau2_retail(folder, repeat=1)


def test_an_output_folder_behind_a_link_is_refused_in_one_line_and_not_followed(
    retail_files: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("mine")
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "tau2_retail").symlink_to(elsewhere)  # the environment's folder is a link to another folder
    for out, says in ((dangling, "cannot write a catalog there"), (linked, "it is a symbolic link")):
        assert main(["import", "tau2", str(retail_files), "--out", str(out)]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and says in err and "Traceback" not in err, err
    assert [p.name for p in elsewhere.iterdir()] == ["keep.txt"] and not (tmp_path / "nowhere").exists()
    assert [p.name for p in linked.iterdir()] == ["tau2_retail"]  # no staging folder left behind
