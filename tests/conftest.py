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


class BlindRecognizer:
    """A stand-in tile recogniser that finds nothing (the live pipeline then reads no tile)."""

    scales = (640,)

    def detect_boxes(self, image, **kw):
        from vision.inference import empty_boxes

        return empty_boxes()

    def classify(self, crops, variant=None):
        import numpy as np

        return np.zeros((len(crops), 56)), np.zeros(len(crops))


@pytest.fixture
def blind_recognizer():
    return BlindRecognizer()
