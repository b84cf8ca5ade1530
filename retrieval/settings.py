"""The one settings object, read from the environment and ``.env`` by the edges (CLI, bot) and passed
into the core. Every field has a description; ``.env.example`` documents the same names."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Annotated, Literal

from platformdirs import user_data_dir
from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2"


class Settings(BaseSettings):
    """papernotes configuration (environment variables shown in each field's alias/prefix)."""

    model_config = SettingsConfigDict(
        env_prefix="PAPERNOTES_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
    )

    # --- where things live --------------------------------------------------------------------
    data_dir: Path = Field(
        default_factory=lambda: Path(user_data_dir("papernotes", appauthor=False)),
        description="State directory: chroma/, records.sqlite, catalog.json, bm25/, repos/, models/. "
        "Deleting it is safe; ingest rebuilds it. Env: PAPERNOTES_DATA_DIR.",
    )
    sources: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Default sources for `ingest`: paths or git URLs, separated by commas or newlines. "
        "Env: PAPERNOTES_SOURCES.",
    )
    site_url: str = Field(
        default="",
        description="Published site base URL of GitBook notes (e.g. https://notes.example.org); with a "
        "page's site path it gives the page's link in citations. Empty: no page links.",
    )

    # --- index ----------------------------------------------------------------------------------
    embedding_model: str = Field(
        default=DEFAULT_EMBEDDING_MODEL,
        description="Embedding model: 'all-MiniLM-L6-v2' (offline ONNX, 384-d, the default) or "
        "'openai:MODEL' for an OpenAI-compatible /embeddings endpoint (uses OPENAI_BASE_URL/KEY).",
    )
    chunk_tokens: int = Field(default=240, ge=64, le=2048, description="Chunk budget in embedding-model tokens.")
    chunk_overlap: int = Field(default=32, ge=0, le=256, description="Overlap between split chunks, tokens.")
    collection: str = Field(default="papernotes", description="Chroma collection name.")
    chroma_url: str | None = Field(
        default=None,
        description="Chroma server URL (e.g. http://127.0.0.1:8000) to use instead of the embedded store; "
        "run one with `chroma run --path DIR --host 127.0.0.1 --port 8000`. Env: PAPERNOTES_CHROMA_URL.",
    )
    store_lock_timeout: float = Field(
        default=5.0, ge=0, description="Seconds to wait for another writer of the embedded store before failing."
    )

    # --- retrieval ------------------------------------------------------------------------------
    k: int = Field(default=5, ge=1, le=50, description="Chunks cited per answer (top k after fusion).")
    candidates: int = Field(default=40, ge=5, le=500, description="Candidates per retriever before fusion.")
    rrf_k: int = Field(default=60, ge=1, description="Reciprocal rank fusion constant (Cormack et al. 2009).")

    # --- LLM (any OpenAI-compatible endpoint) -----------------------------------------------------
    openai_api_key: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("OPENAI_API_KEY", "PAPERNOTES_OPENAI_API_KEY"),
        description="API key for the OpenAI-compatible endpoint. Env: OPENAI_API_KEY.",
    )
    openai_base_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("OPENAI_BASE_URL", "PAPERNOTES_OPENAI_BASE_URL"),
        description="Base URL of an OpenAI-compatible API (OpenAI, vLLM, Ollama, llama.cpp). Env: OPENAI_BASE_URL.",
    )
    llm_model: str = Field(default="gpt-4o-mini", description="Chat model name. Env: PAPERNOTES_LLM_MODEL.")
    llm_temperature: float = Field(default=0.0, ge=0, le=2, description="Sampling temperature.")
    llm_timeout: float = Field(
        default=30.0, gt=0, description="Seconds before a model request (or a stalled stream) times out."
    )
    llm_max_retries: int = Field(
        default=2,
        ge=0,
        le=10,
        description="Retries of a model call on HTTP 429 (after its Retry-After), 5xx and connection errors; "
        "never on timeouts or insufficient_quota.",
    )
    llm_context_tokens: int = Field(
        default=8192, ge=512, description="The model's context window in tokens; prompts are packed to fit."
    )
    llm_answer_tokens: int = Field(default=700, ge=64, description="Tokens reserved for the answer.")

    # --- Discord ----------------------------------------------------------------------------------
    discord_token: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("DISCORD_TOKEN", "PAPERNOTES_DISCORD_TOKEN"),
        description="Discord bot token. Env: DISCORD_TOKEN.",
    )
    discord_guild_id: int | None = Field(
        default=None, description="Guild (server) id for instant slash-command sync while developing."
    )
    discord_max_chars: int = Field(default=2000, ge=200, le=2000, description="Maximum characters per message.")
    discord_max_concurrent: int = Field(default=4, ge=1, description="Answers computed at once; more wait.")
    discord_cooldown_s: float = Field(default=10.0, ge=0, description="Per-user cooldown between questions, seconds.")
    discord_answer_timeout_s: float = Field(
        default=600.0,
        gt=0,
        description="Give up on an answer after this many seconds (the interaction token lasts 900).",
    )
    discord_allowed_guilds: Annotated[list[int], NoDecode] = Field(
        default_factory=list,
        description="Guild (server) ids whose members may ask, separated by commas. Empty: every guild the "
        "bot was invited to.",
    )
    discord_allowed_channels: Annotated[list[int], NoDecode] = Field(
        default_factory=list,
        description="Channel ids where the bot answers (a thread counts as its parent channel), separated by "
        "commas. Empty: every channel it can read.",
    )
    discord_allowed_roles: Annotated[list[int], NoDecode] = Field(
        default_factory=list,
        description="Role ids allowed to ask, separated by commas (a member needs one of them; in DMs, in one "
        "of the allowed guilds). Empty: every member.",
    )
    discord_dms: Literal["members", "off"] = Field(
        default="members",
        description="Direct messages: 'members' answers users who are members of an allowed guild (with an "
        "allowed role, when roles are set); 'off' answers no DMs.",
    )
    discord_daily_model_answers: int = Field(
        default=50,
        ge=0,
        description="Model-written answers per user per UTC day in Discord (with a model configured); past it "
        "answers are extractive with a note. 0: no cap.",
    )

    @field_validator("data_dir", mode="before")
    @classmethod
    def _data_dir(cls, v: object) -> object:
        """An empty value would put the index in the current directory; a file cannot hold it."""
        if isinstance(v, str | Path) and not str(v).strip():
            raise ValueError("is empty: unset PAPERNOTES_DATA_DIR for the default, or name a directory")
        if isinstance(v, str | Path):
            path = Path(v).expanduser()
            if path.is_symlink() and not path.exists():
                raise ValueError(f"{v} is a link to nothing (→ {os.readlink(path)})")
            file = next((p for p in [path, *path.parents] if p.exists() and not p.is_dir()), None)
            if file is not None:
                raise ValueError(f"{v} cannot be a directory: {file} is a file")
        return Path(v).expanduser() if isinstance(v, str | Path) else v

    @field_validator("sources", mode="before")
    @classmethod
    def _split_sources(cls, v: object) -> object:
        if isinstance(v, str):
            return [s.strip() for s in re.split(r"[,\n]", v) if s.strip()]
        return v

    @field_validator("discord_allowed_guilds", "discord_allowed_channels", "discord_allowed_roles", mode="before")
    @classmethod
    def _split_ids(cls, v: object) -> object:
        if isinstance(v, int):
            return [v]
        if isinstance(v, str):
            return [int(x) for x in re.split(r"[,\s]+", v) if x.strip()]
        return v

    @property
    def llm_enabled(self) -> bool:
        """True when an LLM endpoint is configured (a key or a base URL)."""
        return bool(self.openai_api_key) or bool(self.openai_base_url)

    # paths inside the data dir
    @property
    def chroma_dir(self) -> Path:
        return self.data_dir / "chroma"

    @property
    def record_db(self) -> Path:
        return self.data_dir / "records.sqlite"

    @property
    def catalog_path(self) -> Path:
        return self.data_dir / "catalog.json"

    @property
    def bm25_dir(self) -> Path:
        return self.data_dir / "bm25"

    @property
    def repos_dir(self) -> Path:
        return self.data_dir / "repos"

    @property
    def models_dir(self) -> Path:
        return self.data_dir / "models"

    @property
    def feedback_db(self) -> Path:
        return self.data_dir / "feedback.sqlite"

    @property
    def usage_db(self) -> Path:
        return self.data_dir / "usage.sqlite"
