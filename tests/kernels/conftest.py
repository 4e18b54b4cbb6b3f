"""Kernel tests: the C++ kernel is built once per session (and cached on disk across sessions)."""

import shutil

import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "triton_interpret: Triton kernel run on CPU tensors by Triton's interpreter "
                                       "(small shapes only)")


@pytest.fixture(scope="session")
def cpp_kernel():
    """The built C++ kernel; skips where no compiler exists, fails where one exists but the build breaks."""
    from posenc.kernels import cpu

    if shutil.which("c++") is None and shutil.which("g++") is None:
        pytest.skip("no C++ compiler on this machine: the torch path is used (tested elsewhere)")
    lib = cpu.load_library()
    assert lib is not None, f"a compiler exists but the C++ RoPE kernel did not build: {cpu.build_error()}"
    return lib
