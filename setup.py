"""Build hook: ship the top-level kernels/ folder inside the wheel as seqalign_cli/kernels."""

import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithKernels(build_py):
    def run(self):
        super().run()
        src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels")
        dst = os.path.join(self.build_lib, "seqalign_cli", "kernels")
        os.makedirs(dst, exist_ok=True)
        for name in os.listdir(src):
            if name.endswith((".cu", ".cuh", ".md")):
                shutil.copy2(os.path.join(src, name), dst)


setup(cmdclass={"build_py": BuildWithKernels})
