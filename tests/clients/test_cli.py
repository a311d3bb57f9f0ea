"""``envfarm eval`` errors: one line, exit code 1."""

from __future__ import annotations

from envfarm.cli import main


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    err = [line for line in err if not line.startswith("started an embedded farm")]
    assert len(err) == 1, err
    assert err[0].startswith("error: ")
    return err[0]


def test_missing_model(tmp_path, capsys, farm_url):
    assert main(["eval", "--agent", "openai", "--out", str(tmp_path), "--server", farm_url]) == 1
    assert one_line_error(capsys) == "error: --model is required with --agent openai"


def test_unknown_task_suggests(tmp_path, capsys, farm_url):
    assert (
        main(["eval", "--agent", "oracle", "--tasks", "clinic-01", "--out", str(tmp_path), "--server", farm_url]) == 1
    )
    assert "Did you mean 'clinic-001'" in one_line_error(capsys)


def test_missing_api_key(tmp_path, capsys, farm_url, monkeypatch):
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    args = ["eval", "--agent", "anthropic", "--model", "m", "--api-key-env", "NO_SUCH_KEY_VAR", "--tasks", "clinic-001"]
    assert main([*args, "--out", str(tmp_path), "--server", farm_url]) == 1
    assert one_line_error(capsys) == "error: environment variable NO_SUCH_KEY_VAR (the anthropic API key) is not set"


def test_help_lists_the_new_commands(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "eval" in out and "export" in out
