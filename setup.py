"""Build script: declares the compiled double-dummy solver core."""
from setuptools import setup, Extension

setup(
    ext_modules=[
        Extension(
            "flowerbridge.solver._core",
            sources=["flowerbridge/solver/_core.c"],
            extra_compile_args=["-O3", "-std=gnu11"],
        )
    ]
)
