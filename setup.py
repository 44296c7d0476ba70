"""Build hook: ship the top-level kernels/ folder inside the wheel as seqalign_cli/kernels.

kernels/ sits next to this file both in a checkout and in an unpacked sdist
(MANIFEST.in grafts it), so the same path serves both builds.
"""

import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

KERNELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels")
SHIPPED = (".cu", ".cuh", ".md")


class BuildWithKernels(build_py):
    def run(self):
        super().run()
        if not os.path.isdir(KERNELS):
            raise FileNotFoundError(
                f"{KERNELS} is missing: an sdist must carry kernels/ (see MANIFEST.in)"
            )
        dst = os.path.join(self.build_lib, "seqalign_cli", "kernels")
        os.makedirs(dst, exist_ok=True)
        for name in sorted(os.listdir(KERNELS)):
            if name.endswith(SHIPPED):
                shutil.copy2(os.path.join(KERNELS, name), dst)


setup(cmdclass={"build_py": BuildWithKernels})
