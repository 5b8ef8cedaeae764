"""Build script: declares the compiled double-dummy solver core.

The core is built with profile-guided optimisation where the compiler is GCC:
compiled once with counters, run on a few fixed deals
(flowerbridge/solver/_pgo_train.py), then compiled again with what the run
measured (which branches are taken, which calls are hot).  Measured in paired
runs against the plain build: Flower Bridge tables about 4 % less time, Contract
Bridge 2-3 % (docs/solver.md, Build; docs/solver-journal.md, fourteenth
session).  A compiler that refuses the profile's flags (another compiler, an
older GCC; tried first on a file of its own), or a training run that fails,
falls back to the plain build with a warning (so does a failure of the
second compilation, which uses the profile); sources that do not compile fail
the build at once, their errors printed once.  FLOWERBRIDGE_PGO=0 asks
for the plain build."""

import glob
import os
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.errors import CompileError
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
TRAINING = os.path.join(HERE, "flowerbridge", "solver", "_pgo_train.py")


class build_ext_pgo(build_ext):
    """build_ext, with a training run between two compilations (see above)."""

    def build_extension(self, ext):
        if os.environ.get("FLOWERBRIDGE_PGO", "1") == "0":
            return super().build_extension(ext)
        if not os.path.isfile(TRAINING):
            print(f"warning: {TRAINING} is missing; building {ext.name} without profile-guided "
                  "optimisation", file=sys.stderr)
            return super().build_extension(ext)
        compile_args, link_args = list(ext.extra_compile_args), list(ext.extra_link_args)
        force = self.force
        temp = glob.escape(self.build_temp)
        # the module tells which build it is (_core.PROFILE_GUIDED); defined
        # in both compilations, whose code must be the same for the profile
        # to apply
        pgo = ["-DFB_PGO=1"]
        generate = ["-fprofile-generate", "-fprofile-update=prefer-atomic"]
        # -fprofile-partial-training: code the run did not reach (other
        # geometries' search) is optimised as without a profile
        use = ["-fprofile-use", "-fprofile-partial-training", "-Wno-missing-profile"]
        refused = self._flags_refused(generate, use)
        if refused:
            print(f"warning: the compiler refuses {refused}; building {ext.name} without "
                  "profile-guided optimisation", file=sys.stderr)
            return super().build_extension(ext)
        first = True    # the instrumented compilation: the sources' first
        try:
            # counts of an earlier build would be added to this one's
            for stale in glob.glob(os.path.join(temp, "**", "*.gcda"), recursive=True):
                os.remove(stale)
            self.force = True   # the second compilation is of unchanged sources
            ext.extra_compile_args = compile_args + pgo + generate
            ext.extra_link_args = link_args + ["-fprofile-generate"]
            super().build_extension(ext)
            first = False
            # (a compiler other than GCC writes its own kind of profile,
            # kept in the build folder here, and the build falls back below;
            # -P: the training's folder is not put on its import path)
            env = dict(os.environ, LLVM_PROFILE_FILE=os.path.join(os.path.abspath(self.build_temp), "%p.profraw"))
            subprocess.run([sys.executable, "-P", TRAINING, self.get_ext_fullpath(ext.name)],
                           check=True, timeout=900, stdout=subprocess.DEVNULL, env=env)
            if not glob.glob(os.path.join(temp, "**", "*.gcda"), recursive=True):
                raise RuntimeError("the training run wrote no profile")
            ext.extra_compile_args = compile_args + pgo + use
            ext.extra_link_args = link_args
            super().build_extension(ext)
        except CompileError as exc:
            if first:
                # the compiler takes the flags (above): the sources themselves do not
                # compile, and the plain build would print the same errors again
                raise
            failed = exc    # (the profile's use failed)
        except Exception as exc:  # noqa: BLE001 - any other failure: the plain build
            failed = exc
        except BaseException:
            self._remove_built(ext)
            raise
        else:
            return None
        finally:
            ext.extra_compile_args, ext.extra_link_args = compile_args, link_args
            self.force = force
        print(f"warning: profile-guided build of {ext.name} failed ({failed}); building it without",
              file=sys.stderr)
        try:
            self.force = True
            super().build_extension(ext)
        except BaseException:
            self._remove_built(ext)
            raise
        finally:
            self.force = force
        return None

    def _remove_built(self, ext):
        """Interrupted (Ctrl-C) or failed: no instrumented extension is left where a later
        build would take it as up to date."""
        try:
            os.remove(self.get_ext_fullpath(ext.name))
        except OSError:
            pass

    def _flags_refused(self, *flag_sets):
        """The first of ``flag_sets`` the compiler refuses on a file of its own (another
        compiler than GCC, an older GCC), as text; None where it takes them all."""
        probe_dir = os.path.join(self.build_temp, "pgo-probe")
        os.makedirs(probe_dir, exist_ok=True)
        source = os.path.join(probe_dir, "probe.c")
        with open(source, "w", encoding="ascii") as f:
            f.write("int flowerbridge_probe(int x) { return x + 1; }\n")
        for flags in flag_sets:
            try:
                # (-Werror: a compiler that warns of a flag it ignores does not take it)
                self.compiler.compile([source], output_dir=probe_dir, extra_postargs=flags + ["-Werror"])
            except CompileError:
                return " ".join(flags)
        return None

setup(
    cmdclass={"build_ext": build_ext_pgo},
    ext_modules=[
        Extension(
            "flowerbridge.solver._core",
            # the search once for any geometry (with the Python object) and
            # once each for Contract Bridge and Flower Bridge (see _core.c)
            sources=[
                "flowerbridge/solver/_core.c",
                "flowerbridge/solver/_core_bridge.c",
                "flowerbridge/solver/_core_flower.c",
            ],
            depends=["flowerbridge/solver/_core.c", "flowerbridge/solver/_pgo_train.py"],
            # -fno-wrapv undoes the -fwrapv of Python's own flags: the core
            # relies on no signed overflow, and wrapping arithmetic keeps the
            # compiler from simplifying its index and loop arithmetic
            # (about 1-3 % fewer instructions)
            extra_compile_args=["-O3", "-std=gnu11", "-fno-wrapv"],
        )
    ],
)
