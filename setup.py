"""Build script: declares the compiled double-dummy solver core."""
from setuptools import setup, Extension

setup(
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
            depends=["flowerbridge/solver/_core.c"],
            # -fno-wrapv undoes the -fwrapv of Python's own flags: the core
            # relies on no signed overflow, and wrapping arithmetic keeps the
            # compiler from simplifying its index and loop arithmetic
            # (about 1-3 % fewer instructions)
            extra_compile_args=["-O3", "-std=gnu11", "-fno-wrapv"],
        )
    ]
)
