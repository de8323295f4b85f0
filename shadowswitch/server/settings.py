"""Settings from the environment (prefix SHADOWSWITCH_), read once at start, never at import."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from shadowswitch.access.roles import AdminToken, parse_admin_tokens
from shadowswitch.durations import parse_since


def packaged_calibration() -> Path:
    """The prior shipped with the package (imported here only when Settings are built)."""
    from shadowswitch.engines.local.calibration import PACKAGED

    return PACKAGED


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SHADOWSWITCH_", extra="ignore")

    db_url: str = "sqlite:///./shadowswitch.db"
    policies: Path = Path("./policies")
    admin_token: str | None = None
    admin_token_name: str = "admin"
    # More admins, each with a role: "name:role:token,..." (viewer | operator); the one above is an operator.
    admin_tokens: str | None = None
    session_ttl_s: float = Field(default=8 * 3600, gt=0)  # a dashboard sign-in lasts this long
    # Agent keys: "auto" asks for one while any key exists; "required" always does.
    agent_auth: Literal["auto", "required"] = "auto"
    key_cache_ttl_s: float = Field(default=2.0, gt=0, le=60)  # a revoked key works at most this long
    host: str = "127.0.0.1"
    port: int = Field(default=8787, ge=1, le=65535)
    max_body_bytes: int = Field(default=4 * 1024 * 1024, ge=1)  # larger request bodies → 413
    max_json_depth: int = Field(default=64, ge=2)  # deeper nesting in a request body → 400
    upstream_retries: int = Field(default=2, ge=0, le=5)  # unreachable or 500/502/503, before a byte
    # SIGTERM: in-flight requests, then background comparisons, may take this long each to finish
    shutdown_timeout_s: float = Field(default=30.0, gt=0)
    url: str | None = None  # where `shadowswitch policy reload` finds a running server
    rollout_refresh_s: float = 0.5  # every server sees a rollout change within this + one query
    # While the database is away, decision records wait on disk here (default: beside a SQLite
    # file, else under $XDG_STATE_HOME/shadowswitch/spool/), at most this many bytes (0: no spool).
    spool_dir: Path | None = None
    spool_max_bytes: int = Field(default=256 * 1024 * 1024, ge=0)
    db_timeout_s: float = Field(default=5.0, gt=0)  # a database this slow counts as away
    ramp_check_s: float = Field(default=2.0, gt=0)  # running ramps read their evidence this often
    load_models: bool = True  # False: serve generative only (no local engine)
    # The engine process this worker shares with the others (`serve --workers N` sets it).
    engine_socket: Path | None = None
    model_cache: Path | None = None
    calibration: Path = Field(default_factory=packaged_calibration)  # the local engine's prior
    retention: str = "30d"  # decisions older than this are pruned (`db prune`, and hourly by `serve`)
    store_prompts: bool = False  # keep each request's messages on its decision (never needed to compare)
    prompt_cap_bytes: int = Field(default=16 * 1024, ge=0)  # ... cut to this many bytes
    redact: str = "default"  # ... after this: default (emails, phones, cards) | none | module:function
    learn_interval_s: float = Field(default=300.0, ge=0)  # background learning rounds (0: only the CLI)
    max_exemplars: int = Field(default=10_000, ge=100)  # per task type; the oldest are evicted
    # The local engine's optional tables, comma-separated ("places,currencies"; "" for none).
    knowledge: Annotated[tuple[str, ...], NoDecode] = ("places", "currencies")

    @field_validator("retention")
    @classmethod
    def _readable(cls, value: str) -> str:
        parse_since(value)  # ValueError names the accepted forms
        return value

    @field_validator("admin_tokens")
    @classmethod
    def _parsable(cls, value: str | None) -> str | None:
        parse_admin_tokens(value)  # ValueError names the entry, never the token
        return value

    def admins(self) -> tuple[AdminToken, ...]:
        """Every admin token: the named ones, and SHADOWSWITCH_ADMIN_TOKEN as an operator."""
        named = parse_admin_tokens(self.admin_tokens)
        if self.admin_token:
            return (AdminToken(self.admin_token_name, "operator", self.admin_token), *named)
        return named

    @field_validator("redact")
    @classmethod
    def _loadable(cls, value: str) -> str:
        from shadowswitch.redact import load_redactor

        load_redactor(value)  # ValueError says what is wrong, at start rather than on a request
        return value

    @field_validator("knowledge", mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        return tuple(t.strip() for t in value.split(",") if t.strip()) if isinstance(value, str) else value
