import pytest

from assistant.variants import get_variant


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
