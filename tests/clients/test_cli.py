"""``envfarm eval`` errors: one line, exit code 1."""

from __future__ import annotations

from envfarm.cli import main


def one_line_error(capsys) -> str:
    return one_line_error_in(capsys.readouterr().err)


def one_line_error_in(stderr: str) -> str:
    err = stderr.strip().splitlines()
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


def test_a_bad_base_url_is_refused_before_an_embedded_farm_starts(tmp_path, capsys):
    args = ["eval", "--agent", "openai", "--model", "m", "--base-url", "localhost:8000/v1", "--tasks", "clinic-001"]
    assert main([*args, "--out", str(tmp_path)]) == 1
    captured = capsys.readouterr().err
    assert "started an embedded farm" not in captured
    assert one_line_error_in(captured) == (
        "error: --base-url must be an http(s) URL such as http://127.0.0.1:8000/v1 (got 'localhost:8000/v1')"
    )
    assert not (tmp_path / "results.jsonl").exists()


def test_a_missing_simulator_key_is_refused_before_an_embedded_farm_starts(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    args = ["eval", "--agent", "oracle", "--user", "llm", "--user-model", "sim", "--tasks", "clinic-001"]
    assert main([*args, "--out", str(tmp_path)]) == 1
    captured = capsys.readouterr().err
    assert "started an embedded farm" not in captured
    assert one_line_error_in(captured) == "error: no openai API key: set OPENAI_API_KEY or pass --user-api-key-env VAR"


def test_a_run_with_uncounted_trials_exits_3(tmp_path, capsys, farm_url, llm, monkeypatch):
    monkeypatch.setenv("FAKE_LLM_KEY", "sk-test")
    llm.fail(503, 503)
    args = ["eval", "--agent", "openai", "--model", "m", "--base-url", llm.base_url, "--api-key-env", "FAKE_LLM_KEY"]
    args += ["--tasks", "clinic-001", "--retries", "1", "--retry-delay", "0.01", "--no-progress"]
    assert main([*args, "--out", str(tmp_path), "--server", farm_url]) == 3
    assert "1 trial(s) hit infrastructure errors" in capsys.readouterr().err
    assert (tmp_path / "report.html").exists()


def test_help_lists_the_new_commands(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "eval" in out and "export" in out


def test_an_unknown_selector_is_refused_before_an_embedded_farm_starts(tmp_path, capsys):
    from envs import paths

    catalog = ["--catalog", str(paths.BUILTIN_CATALOG)]
    for command, says in (
        (["eval", "--agent", "oracle", "--tasks", "nosuchtask", "--out", str(tmp_path)], "neither an environment"),
        (["eval", "--agent", "oracle", "--tasks", "env:retial", "--out", str(tmp_path)], "Did you mean 'retail'"),
        (["export", "tasks", "--tasks", "clinc", "--out", str(tmp_path / "t.jsonl")], "'clinc' is neither"),
    ):
        assert main([*command, *catalog]) == 1
        captured = capsys.readouterr().err
        assert "started an embedded farm" not in captured
        assert says in one_line_error_in(captured)
    assert not (tmp_path / "t.jsonl").exists() and not (tmp_path / "results.jsonl").exists()
