"""Settings from the environment (prefix SHADOWSWITCH_), read once at start, never at import."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SHADOWSWITCH_", extra="ignore")

    db_url: str = "sqlite:///./shadowswitch.db"
    policies: Path = Path("./policies")
    admin_token: str | None = None
    admin_token_name: str = "admin"
    host: str = "127.0.0.1"
    port: int = Field(default=8787, ge=1, le=65535)
    max_body_bytes: int = 4 * 1024 * 1024
    rollout_refresh_s: float = 0.5  # every server sees a rollout change within this + one query
    load_models: bool = True  # False: serve generative only (no local engine)
    model_cache: Path | None = None
