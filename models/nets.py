"""The two small networks (PyTorch; training only - inference runs the exported ONNX files).

* :class:`TileDetector`: CenterNet-style oriented tile detector. Input ``image`` float32 [N, 3, H, W], BGR
  in 0..1 (H, W multiples of 32). Output ``maps`` float32 [N, 8, H/4, W/4]: channel 0 centre heat logit,
  1-2 sub-pixel centre offset (stride units), 3-4 log face width / height in input pixels, 5-6 (cos 2t, sin 2t)
  of the face's up direction t (clockwise from image up; 180-degree ambiguous), 7 face-up logit.
* :class:`TileClassifier`: input ``crops`` float32 [N, 3, 96, 72] BGR in 0..1 (upright-rectified face
  crops); outputs ``kind_logits`` [N, 56] (the 55 codes of ``datasets.codes.TILE_CODES`` + ``none``) and
  ``flip_logit`` [N, 1] (> 0: the crop shows the face upside down).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

DET_STRIDE = 4
DET_CHANNELS = 8
CROP_W, CROP_H = 72, 96


def cbr(cin: int, cout: int, stride: int = 1, k: int = 3) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, k // 2, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True))


class Res(nn.Module):
    """Two 3x3 convs with a skip."""

    def __init__(self, c: int):
        super().__init__()
        self.a = cbr(c, c)
        self.b = nn.Sequential(nn.Conv2d(c, c, 3, 1, 1, bias=False), nn.BatchNorm2d(c))

    def forward(self, x):
        return F.relu(x + self.b(self.a(x)))


class TileDetector(nn.Module):
    def __init__(self, width: int = 1):
        super().__init__()
        c = [16, 32, 64, 96, 128]
        self.stem = cbr(3, c[0], 2)                                  # /2
        self.s4 = cbr(c[0], c[1], 2)                                   # /4
        self.s8 = nn.Sequential(cbr(c[1], c[2], 2), cbr(c[2], c[2]))   # /8
        self.s16 = nn.Sequential(cbr(c[2], c[3], 2), Res(c[3]))        # /16
        self.s32 = nn.Sequential(cbr(c[3], c[4], 2), Res(c[4]))        # /32
        self.l16 = cbr(c[4] + c[3], 64, k=1)
        self.l8 = cbr(64 + c[2], 48, k=1)
        self.l4 = cbr(48 + c[1], 32, k=1)
        self.fuse = cbr(32, 32)
        self.head = nn.Conv2d(32, DET_CHANNELS, 1)
        nn.init.constant_(self.head.bias, 0.0)
        with torch.no_grad():
            self.head.bias[0] = -4.0  # focal-loss prior

    @staticmethod
    def _up(x, ref):
        return F.interpolate(x, size=ref.shape[-2:], mode="nearest")

    def forward(self, image):
        x4 = self.s4(self.stem(image))
        x8 = self.s8(x4)
        x16 = self.s16(x8)
        x32 = self.s32(x16)
        y = self.l16(torch.cat([self._up(x32, x16), x16], 1))
        y = self.l8(torch.cat([self._up(y, x8), x8], 1))
        y = self.l4(torch.cat([self._up(y, x4), x4], 1))
        return self.head(self.fuse(y))


class TileClassifier(nn.Module):
    def __init__(self, n_kinds: int = 56):
        super().__init__()
        self.features = nn.Sequential(
            cbr(3, 24, 2),                     # 48x36
            cbr(24, 32, 2), Res(32),           # 24x18
            cbr(32, 64, 2), Res(64),           # 12x9
            cbr(64, 128, 2), Res(128),         # 6x5
            cbr(128, 192, k=1),
        )
        self.drop = nn.Dropout(0.2)
        self.kind = nn.Linear(192, n_kinds)
        self.flip = nn.Linear(192, 1)

    def forward(self, crops):
        f = self.features(crops).mean(dim=(2, 3))
        f = self.drop(f)
        return self.kind(f), self.flip(f)
