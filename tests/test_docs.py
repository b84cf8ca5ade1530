"""The README's and .env.example's settings stay true to the one settings object."""

from __future__ import annotations

import re

from conftest import REPO
from pydantic import AliasChoices


def _env_names() -> list[str]:
    from papernotes.retrieval.settings import Settings

    names = []
    for name, f in Settings.model_fields.items():
        alias = f.validation_alias
        if alias is None:
            names.append(f"PAPERNOTES_{name.upper()}")
            continue
        assert isinstance(alias, AliasChoices)  # the settings alias by AliasChoices("ENV_NAME", ...)
        env = alias.choices[0]
        assert isinstance(env, str)
        names.append(env)
    return names


def test_every_setting_is_documented():
    readme = (REPO / "README.md").read_text()
    example = (REPO / ".env.example").read_text()
    for env in _env_names():
        assert f"`{env}`" in readme, f"{env} missing from README's configuration table"
        assert re.search(rf"^#?\s*{env}=", example, re.M), f"{env} missing from .env.example"


def test_ci_runs_the_readme_test_command():
    readme = (REPO / "README.md").read_text()
    ci = (REPO / ".ci" / "run").read_text()
    assert "make test" in readme and "make test" in ci
