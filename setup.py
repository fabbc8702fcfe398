"""Builds the etkit extension with CMake for `pip install .`.

The C sources are built by the project's CMake (target etkit_python) for
the interpreter running pip (ETKIT_PYTHON=sys.executable); the resulting
_etkit module is copied next to the Python files.  Set CMAKE_ARGS to pass
more options, e.g. CMAKE_ARGS="-DCMAKE_BUILD_TYPE=Release".
"""
import os
import shlex
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        source = os.path.dirname(os.path.abspath(__file__))
        build = os.path.abspath(os.path.join(self.build_temp, "cmake"))
        os.makedirs(build, exist_ok=True)
        args = ["cmake", "-S", source, "-B", build, "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                f"-DETKIT_PYTHON={sys.executable}", "-DETKIT_BUILD_TESTS=OFF",
                "-DETKIT_BUILD_BENCH=OFF"]
        args += shlex.split(os.environ.get("CMAKE_ARGS", ""))
        subprocess.run(args, check=True)
        subprocess.run(["cmake", "--build", build, "--target", "etkit_python",
                        "-j", str(os.cpu_count() or 2)], check=True)
        name = "_etkit" + sysconfig.get_config_var("EXT_SUFFIX")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        self.copy_file(os.path.join(build, "python", "etkit", name), target)


setup(ext_modules=[Extension("etkit._etkit", sources=[])],
      cmdclass={"build_ext": CMakeBuild})
