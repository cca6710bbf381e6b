import os
import tempfile

import pytest

from assistant.variants import get_variant

# no test writes to the user's own folders: a test's tile sets, web data and finetuned head default to a
# folder of the run (a test that sets them itself still does; a teacher thread still working after its test
# ended had written a tile set to ~/.local/share before)
_RUN_DIR = tempfile.mkdtemp(prefix="mahjong-assistant-tests-")
for _var, _sub in (("MAHJONG_ASSISTANT_TILESETS", "tilesets"), ("MAHJONG_ASSISTANT_WEB_DATA", "web")):
    os.environ.setdefault(_var, os.path.join(_RUN_DIR, _sub))


@pytest.fixture(scope="session")
def sanma():
    return get_variant("sanma")


@pytest.fixture(scope="session")
def hk():
    return get_variant("hong-kong")


@pytest.fixture(scope="session")
def k3p():
    return get_variant("korean-3p")


@pytest.fixture(scope="session")
def kaki():
    return get_variant("three-kaki")


class BlindRecognizer:
    """A stand-in tile recogniser that finds nothing (the live pipeline then reads no tile)."""

    scales = (640,)

    def detect_boxes(self, image, **kw):
        from vision.boxes import TileBoxes

        return TileBoxes.empty()

    def classify(self, crops, variant=None):
        import numpy as np

        return np.zeros((len(crops), 56)), np.zeros(len(crops))


@pytest.fixture
def blind_recognizer():
    return BlindRecognizer()


# --- the match ledger on both backends ------------------------------------------------------------------------

PG_ENV = "MAHJONG_ASSISTANT_TEST_PG"  # a postgresql:// URL of a throwaway server (.ci/postgres.sh starts one)


def pg_url_for_schema(base: str, schema: str) -> str:
    """The server URL with a search_path of its own: each test gets an empty schema, so tests never share rows."""
    sep = "&" if "?" in base else "?"
    return f"{base}{sep}options=-csearch_path%3D{schema}"


@pytest.fixture
def pg_target(request):
    """A fresh, initialised PostgreSQL ledger (a schema of its own on the test server). Skipped without a
    server, except under CI (MAHJONG_ASSISTANT_REQUIRE_PG=1), where a missing server fails the run."""
    import os
    import secrets

    base = os.environ.get(PG_ENV)
    if not base:
        if os.environ.get("MAHJONG_ASSISTANT_REQUIRE_PG") == "1":
            pytest.fail(f"${PG_ENV} is not set: .ci/run should have started PostgreSQL")
        pytest.skip(f"no PostgreSQL server (${PG_ENV} not set; source .ci/postgres.sh start)")
    import psycopg

    from assistant.match.db import migrate, open_for_admin

    schema = "t_" + secrets.token_hex(6)
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    url = pg_url_for_schema(base, schema)
    admin = open_for_admin(url)
    migrate(admin)
    admin.close()
    yield url
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture(params=["sqlite", "postgresql"])
def ledger(request, tmp_path):
    """A ledger target on each backend in turn: a new SQLite file, then a new PostgreSQL schema."""
    if request.param == "sqlite":
        return str(tmp_path / "ledger.db")
    return request.getfixturevalue("pg_target")
